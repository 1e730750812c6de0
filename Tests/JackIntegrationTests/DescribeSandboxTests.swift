import Foundation
import Testing
import TestKit

extension JackIntegration {
    /// The engine never opens a native library outside its trusted folders: `validate`, `render`,
    /// `plugins` and graph loads learn its node types from a sandboxed describe child, under the
    /// load phase's restrictions (docs/isolation.md, "The describe child"). Offline but for the
    /// live `iaa run`.
    @Suite("Untrusted plugin libraries: described in a sandboxed child, never opened in the engine")
    struct DescribeSandboxTests {
        typealias Setup = IsolationSandboxTests.Setup

        /// Each attempt of the constructor said exactly `times` times, by the describe child,
        /// refused; none by anything else.
        static func expectDescribedRefusals(_ lines: [String], setup: Setup, times: Int, _ output: String,
                                            sourceLocation: SourceLocation = #_sourceLocation) {
            for attempt in IsolationSandboxTests.attempts {
                let said = lines.filter { $0.contains("hostile constructor \(attempt): ") }
                #expect(said.count == times && said.allSatisfy(setup.isDescribeTagged) && said.allSatisfy { $0.contains(": refused (") },
                        "constructor \(attempt): \(said)\n\(output)", sourceLocation: sourceLocation)
            }
            #expect(!lines.contains { $0.contains("hostile create ") }, "create ran:\n\(output)", sourceLocation: sourceLocation)
        }

        @Test("`iaa validate` of a graph with three apps of an untrusted library (one of them \"isolation\": \"none\") runs its constructor once, in a describe child, where every attempt is refused")
        func validateDescribesInTheSandbox() throws {
            let setup = try Setup()
            defer { setup.cleanUp() }
            let graph = setup.folder + "/three.json"
            try HostilePlugin.threeApps.write(toFile: graph, atomically: true, encoding: .utf8)
            let (result, lines) = try setup.iaa(["validate", graph])
            #expect(result.status == 0, "\(result.stderr)")
            Self.expectDescribedRefusals(lines, setup: setup, times: 1, result.stderr)
            #expect(setup.traces().isEmpty, "the constructor got through: \(setup.traces())")
        }

        @Test("`iaa plugins LIBRARY` lists an untrusted library's node types from its describe child; the constructor's attempts are refused there")
        func pluginsDescribesInTheSandbox() throws {
            let setup = try Setup()
            defer { setup.cleanUp() }
            let library = setup.folder + "/libhostile.so"
            let (result, lines) = try setup.iaa(["plugins", library, "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            for id in ["attack", "imitate", "flood"] {
                #expect(result.stdout.contains("\"id\" : \"\(library)#\(id)\""), "\(result.stdout)")
            }
            #expect(result.stdout.contains("\"subtype\" : \"hstl\""), "\(result.stdout)")
            Self.expectDescribedRefusals(lines, setup: setup, times: 1, result.stderr)
            #expect(setup.traces().isEmpty, "the constructor got through: \(setup.traces())")
        }

        @Test("live: `iaa run` reads the untrusted library in a describe child and runs it in the app's isolated child; every attempt of the constructor, in either, is refused")
        func liveRunNeverOpensItInTheEngine() throws {
            let setup = try Setup()
            defer { setup.cleanUp() }
            let graph = setup.folder + "/live.json"
            try HostilePlugin.graph("attack").write(toFile: graph, atomically: true, encoding: .utf8)
            let engine = try EngineProcess(graph: graph, client: "t-describe")
            defer { engine.stop() }
            // The isolated child's create runs after its constructor; its last attempt ends the story.
            let deadline = Date().addingTimeInterval(10)
            while !engine.stderr.contains("hostile create exec: ") && Date() < deadline { usleep(20_000) }
            engine.stop()
            let log = engine.stderr
            let lines = log.split(separator: "\n").map(String.init)
            for attempt in IsolationSandboxTests.attempts {
                let said = lines.filter { $0.contains("hostile constructor \(attempt): ") }
                #expect(said.count == 2 && said.filter(setup.isDescribeTagged).count == 1
                            && said.filter(IsolationSandboxTests.isTagged).count == 1 && said.allSatisfy { $0.contains(": refused (") },
                        "constructor \(attempt): \(said)\n\(log)")
            }
            #expect(setup.traces().isEmpty, "the plugin got through: \(setup.traces())")
        }

        @Test("a library whose constructor crashes fails validation with the library and the signal named; one that hangs is killed after 5 s and leaves no process")
        func crashAndHangAreReported() throws {
            let setup = try Setup()
            defer { setup.cleanUp() }
            try HostilePlugin.buildLibrary("crash", body: "__attribute__((constructor)) static void boom(void) { raise(SIGSEGV); }",
                                           in: setup.folder)
            try HostilePlugin.buildLibrary("hang", body: "__attribute__((constructor)) static void stall(void) { for (;;) {} }",
                                           in: setup.folder)
            for name in ["crash", "hang"] {
                let graph = setup.folder + "/\(name).json"
                try """
                    { "format": "iaa-graph/1", "name": "\(name)", "apps": [ { "id": "a", "plugin": "./lib\(name).so" } ] }
                    """.write(toFile: graph, atomically: true, encoding: .utf8)
            }
            let (crashed, _) = try setup.iaa(["validate", setup.folder + "/crash.json"])
            #expect(crashed.status != 0)
            #expect(crashed.stderr.contains("\(setup.folder)/libcrash.so\" crashed while it was opened in its describe child (SIGSEGV)"),
                    "\(crashed.stderr)")
            let start = Date()
            let (hung, _) = try setup.iaa(["validate", setup.folder + "/hang.json"])
            let took = Date().timeIntervalSince(start)
            #expect(hung.status != 0)
            #expect(hung.stderr.contains("libhang.so\" did not finish describing itself within 5 s"), "\(hung.stderr)")
            #expect(took >= 5 && took < 15, "validate took \(took) s")
            let left = (try? runCommand("pgrep", ["-f", "isolated-node --describe --plugin \(setup.folder)/"]).stdout) ?? ""
            for pid in left.split(separator: "\n").compactMap({ Int32($0) }) { kill(pid, SIGKILL) }
            #expect(left.isEmpty, "describe children left running: \(left)")
        }
    }
}
