import AudioFiles
import Foundation
import SignalAnalysis
import Testing
import TestKit

extension JackIntegration {
    /// An isolated child is restricted before its plugin's first instruction (the library's
    /// constructors and `create` included), and what it prints reaches the engine's log only
    /// tagged with its app and pid (docs/isolation.md, "Least privilege" and "The child's
    /// output"). Offline renders run isolated children too, so no JACK server is needed.
    @Suite("Isolated apps: restricted from the plugin's first instruction, output tagged")
    struct IsolationSandboxTests {
        /// The plugin built into a private folder, with a TCP port listening for it.
        struct Setup {
            let folder: String
            let plugin: HostilePlugin
            let listener: Int32

            init() throws {
                folder = try makeTemporaryDirectory("sandbox")
                let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
                try #require(listener >= 0)
                self.listener = listener
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_addr.s_addr = inet_addr("127.0.0.1")
                var length = socklen_t(MemoryLayout<sockaddr_in>.size)
                let bound = withUnsafeMutablePointer(to: &address) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                        bind(listener, raw, length) == 0 && listen(listener, 8) == 0 && getsockname(listener, raw, &length) == 0
                    }
                }
                try #require(bound, "cannot listen on 127.0.0.1")
                let unique = String(UInt64.random(in: 0...UInt64.max), radix: 16)
                plugin = HostilePlugin(folder: folder, temporaryFile: "iaa-sandbox-\(unique)", port: UInt16(bigEndian: address.sin_port),
                                       daemonName: "hstl" + unique.prefix(8))
                try plugin.build()
            }

            /// `iaa render` of the graph whose isolated app is `#id`; its stderr's lines and the take.
            func render(_ id: String) throws -> (result: CommandResult, lines: [String], take: [[Float]]) {
                let graph = folder + "/\(id).json"
                try HostilePlugin.graph(id).write(toFile: graph, atomically: true, encoding: .utf8)
                let out = folder + "/\(id).wav"
                let result = try runCommand(Repository.binary, ["render", graph, "-o", out, "-d", "0.5"])
                let take = (try? SoundFileReader(path: out).readAll()) ?? []
                return (result, result.stderr.split(separator: "\n").map(String.init), take)
            }

            /// `iaa ARGUMENTS…` and its stderr's lines.
            func iaa(_ arguments: [String]) throws -> (result: CommandResult, lines: [String]) {
                let result = try runCommand(Repository.binary, arguments)
                return (result, result.stderr.split(separator: "\n").map(String.init))
            }

            /// Whether `line` is one the describe child of the plugin's library printed, behind its tag.
            func isDescribeTagged(_ line: String) -> Bool {
                line.hasPrefix("iaa: plugin library \"\(folder)/libhostile.so\" (describe child ")
                    && line.contains(#/\(describe child [1-9][0-9]*\) says: /#)
            }

            /// What the machine shows of a constructor or `create` that was not refused: files the
            /// plugin wrote, a connection it made, a daemon it left. Empty when nothing got through.
            func traces() -> [String] {
                var found = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
                    .filter { $0.hasPrefix("written-") || $0.hasPrefix("daemon-") }
                found += ["constructor", "create"].map { "/tmp/\(plugin.temporaryFile)-\($0)" }.filter { access($0, F_OK) == 0 }
                let connection = accept(listener, nil, nil)
                if connection >= 0 {
                    close(connection)
                    found.append("a connection to 127.0.0.1")
                }
                found += daemons.map { "daemon \($0)" }
                return found
            }

            /// The daemons the plugin started that are still running, by their pids.
            var daemons: [Int32] {
                let listing = (try? runCommand("pgrep", ["-x", plugin.daemonName]).stdout) ?? ""
                return listing.split(separator: "\n").compactMap { Int32($0) }
            }

            func cleanUp() {
                for pid in daemons { kill(pid, SIGKILL) }
                close(listener)
                for place in ["constructor", "create"] { unlink("/tmp/\(plugin.temporaryFile)-\(place)") }
                try? FileManager.default.removeItem(atPath: folder)
            }
        }

        /// What the plugin's constructor and `create` try (a refused `socket` leaves no `connect`).
        static let attempts = ["write-private", "write-tmp", "read-shadow", "socket", "clear-pdeathsig", "fork", "exec"]

        /// The tag every line of the child's carries: `iaa: app "hostile" (isolated child PID) says: `.
        static func isTagged(_ line: String) -> Bool {
            line.wholeMatch(of: /iaa: app "hostile" \(isolated child [1-9][0-9]*\) says: .*/) != nil
        }

        @Test("a plugin's library constructor and create can write no file, read no secret, connect nowhere, run no program and start no process; each attempt is refused, said in the log with the app's tag, and the app still plays")
        func loadPhaseIsRestricted() throws {
            let setup = try Setup()
            defer { setup.cleanUp() }
            let (result, lines, take) = try setup.render("attack")
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!result.stderr.contains("is silent"), "\(result.stderr)")
            // The constructor runs twice, each time sandboxed: in the describe child the engine
            // reads the library's node types through, then in the app's isolated child.
            for place in ["constructor", "create"] {
                for attempt in Self.attempts {
                    let said = lines.filter { $0.contains("hostile \(place) \(attempt): ") }
                    let isolated = said.filter(Self.isTagged), described = said.filter(setup.isDescribeTagged)
                    #expect(isolated.count == 1 && described.count == (place == "constructor" ? 1 : 0)
                                && said.count == isolated.count + described.count && said.allSatisfy { $0.contains(": refused (") },
                            "\(place) \(attempt): \(said)\n\(result.stderr)")
                }
            }
            #expect(setup.traces().isEmpty, "the plugin got through: \(setup.traces())")
            #expect(IsolationTests.children(of: URL(fileURLWithPath: setup.folder)).isEmpty)
            let samples = take.flatMap { $0 }
            #expect(abs(SignalAnalysis.peak(samples) - 0.25) < 0.01, "the refused plugin did not play")
        }

        @Test("a line the plugin prints that imitates the engine's log, a colour escape or a carriage return appears only escaped and behind the app's tag, stdout too")
        func outputCannotPassForTheEngine() throws {
            let setup = try Setup()
            defer { setup.cleanUp() }
            let (result, lines, take) = try setup.render("imitate")
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!lines.contains { $0.hasPrefix("iaa: event:") }, "an untagged event line:\n\(result.stderr)")
            #expect(lines.contains { Self.isTagged($0) && $0.hasSuffix(#"says: iaa: event: {"event":"appFaulted","app":"good"}"#) })
            #expect(!result.stderr.unicodeScalars.contains { [0x1B, 0x9B, 0x202E].contains($0.value) }, "a control character reached the log")
            #expect(lines.contains { Self.isTagged($0) && $0.hasSuffix(#"says: \x1B[31mred alert\x1B[0m"#) }, "\(result.stderr)")
            #expect(!result.stderr.contains("\riaa: error: overwritten"), "a carriage return reached the log")
            #expect(lines.contains { Self.isTagged($0) && $0.hasSuffix(#"says: harmless\riaa: error: overwritten"#) }, "\(result.stderr)")
            #expect(lines.contains { Self.isTagged($0) && $0.hasSuffix(#"says: c1 \x9B31m, reversed \u{202E}txet"#) }, "\(result.stderr)")
            #expect(lines.contains { Self.isTagged($0) && $0.hasSuffix("says: on stdout too") }, "\(result.stderr)")
            #expect(SignalAnalysis.peak(take.flatMap { $0 }) > 0.2)
        }

        @Test("a plugin that prints too much: a long line is cut at 500 bytes, and past 50 lines a second the rest are counted in one line")
        func outputIsLimited() throws {
            let setup = try Setup()
            defer { setup.cleanUp() }
            let (result, lines, _) = try setup.render("flood")
            #expect(result.status == 0, "\(result.stderr)")
            let long = lines.first { $0.contains("says: long ") }
            #expect(long?.hasSuffix("says: long " + String(repeating: "x", count: 495) + "…") == true, "\(long ?? "no long line")")
            let shown = lines.filter { Self.isTagged($0) }
            #expect(shown.count <= 50, "\(shown.count) lines shown")
            #expect(shown.contains { $0.hasSuffix("says: flood 0") })
            #expect(!shown.contains { $0.hasSuffix("says: flood 299") })
            #expect(lines.contains { $0.wholeMatch(of: /iaa: app "hostile" \(isolated child [0-9]+\): [0-9]+ more lines of its output dropped .*/) != nil },
                    "\(result.stderr)")
        }
    }
}
