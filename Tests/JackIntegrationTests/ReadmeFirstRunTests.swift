import AudioFiles
import ControlSocket
import Foundation
import SignalAnalysis
import Testing
import TestKit

extension JackIntegration {
    /// docs/programs.md's "From zero to a ducked music player" and its second player ("A second
    /// player", in "Admitting programs the graph does not name"), run as written (all but `apt-get`, whose packages tools/test installs) with
    /// real mpv, espeak-ng and jack_rec: installed into a fresh HOME by `tools/install`, the engine's
    /// socket in a private XDG_RUNTIME_DIR, a generated 1 kHz `song.ogg` as the user's song.
    @Suite("The first run with programs, as written", .serialized,
           .enabled(if: JackHarness.server != nil, "needs the private JACK server that tools/test starts"))
    struct ReadmeFirstRunTests {
        /// The shell blocks: the first run's one, then the second player's.
        static var steps: [String] {
            let page = Markdown.page("docs/programs.md")
            let firstRun = Markdown.section(from: "## From zero to a ducked music player", to: "## 1. In the graph file", in: page)
            let admission = Markdown.section(from: "### A second player", to: "### What is admitted", in: page)
            return Markdown.blocks(["sh"], in: firstRun) + Markdown.blocks(["sh"], in: admission)
        }

        /// The block as a script: the `apt-get` line left out, and after each command put in the
        /// background its PID added to `pids`, so the test ends each one by PID whatever happens.
        static func script(_ block: String) -> String {
            block.split(separator: "\n").filter { !$0.hasPrefix("apt-get ") }.map { line in
                let command = line.split(separator: "#", maxSplits: 1).first.map(String.init) ?? ""
                let trimmed = command.trimmingCharacters(in: .whitespaces)
                return trimmed.hasSuffix("&") && !trimmed.hasSuffix("&&") ? line + "\necho $! >>\"$PIDS\"" : String(line)
            }.joined(separator: "\n")
        }

        /// The 1 kHz amplitude of each 50 ms window of the recording.
        static func toneLevels(_ samples: [Float]) -> [Float] {
            stride(from: 0, to: samples.count - 2_400, by: 2_400).map {
                SignalAnalysis.goertzelMagnitude(samples: samples[$0..<($0 + 2_400)], frequency: 1_000, sampleRate: 48_000)
            }
        }

        /// The processes whose environment holds `mark`: what the script started, its background
        /// programs' children included, found by PID to be ended by PID.
        static func processes(marked mark: String) -> [pid_t] {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            return entries.compactMap { pid_t($0) }.filter { pid in
                guard let environment = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
                return environment.split(separator: 0).contains { $0.elementsEqual(mark.utf8) }
            }
        }

        @Test("the first run's commands work when pasted: the music is routed, ducked by 12 dB under each of three prompts, and a second player is admitted under its own name")
        func firstRunAsWritten() throws {
            let steps = Self.steps
            try #require(steps.count == 2, "expected the first run's shell block and the second player's, found \(steps.count)")
            // As in docs/plugins.md's plugin steps: tools/install builds only what is stale, and a build cannot
            // run while `swift test` holds the build folder; tools/test builds these first.
            let current = try runCommand("/bin/sh", ["-c", """
                cd "\(Repository.root)" && test -x .build/release/iaa && test -x .build/release/libiaa-session.so \
                && { test -x .build/release/generate-manual || test -x .build/debug/generate-manual; } \
                && test -z "$(find Sources Package.swift -newer .build/release/iaa -print -quit)" \
                && test -z "$(find Sources/CIAASession Package.swift -newer .build/release/libiaa-session.so -print -quit)"
                """])
            try #require(current.status == 0,
                         "the release binary, the session library or the man page generator is missing or older than the sources: run tools/test, which builds them first")
            for command in ["mpv", "espeak-ng", "jack_rec", "sox", "cc", "pkg-config"] {
                try #require(try runCommand("/bin/sh", ["-c", "command -v \(command)"]).status == 0, "\(command) is not installed (tools/test installs it)")
            }

            let directory = try makeTemporaryDirectory("first")
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let work = directory + "/work"
            for folder in ["home", "run", "work"] {
                try FileManager.default.createDirectory(atPath: directory + "/" + folder, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            }
            // The commands run "from the clone": its folders they name, without writing into it.
            for name in ["graphs", "Examples", "tools"] {
                try FileManager.default.createSymbolicLink(atPath: work + "/" + name, withDestinationPath: Repository.path(name))
            }
            #expect(try runCommand("sox", ["-n", "-r", "48000", "-c", "2", work + "/song.ogg", "synth", "60", "sine", "1000", "vol", "0.2"]).status == 0)

            let mark = "IAA_FIRST_RUN=" + UUID().uuidString
            let pids = directory + "/pids"
            let log = directory + "/log"
            // The script's own end: Process sees its child end only once every inherited copy of
            // its descriptors is closed, and the programs the steps put in the background keep them.
            let exitFile = directory + "/exit"
            _ = FileManager.default.createFile(atPath: pids, contents: nil)
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            let script = """
                trap 'echo $? >"\(exitFile)"' EXIT
                set -eu
                export \(mark) PIDS="\(pids)" HOME="\(directory)/home" XDG_RUNTIME_DIR="\(directory)/run"
                export PATH="$HOME/.local/bin:$PATH"
                unset IAA_BIN IAA_SDK IAA_CONFIG IAA_CLIENT
                cd "\(work)"
                \(Self.script(steps[0]))
                \(Self.script(steps[1]))
                """
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", script]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
            process.standardError = process.standardOutput
            let status = { (try? String(contentsOfFile: exitFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) }
            try process.run()
            defer {
                // Every process the steps started, by PID: those they put in the background, then
                // any other still marked (a foreground one after a timeout), until none is left.
                if status() == nil { kill(process.processIdentifier, SIGKILL) }
                let started = ((try? String(contentsOfFile: pids, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { pid_t($0) }
                for pid in started { kill(pid, SIGKILL) }
                let gone = waitUntil(seconds: 10) {
                    let left = Self.processes(marked: mark)
                    for pid in left { kill(pid, SIGKILL) }
                    return left.isEmpty
                }
                #expect(gone, "processes of the first run's steps outlived the test: \(Self.processes(marked: mark))")
                process.waitUntilExit()
            }
            let finished = waitUntil(seconds: 240) { status()?.isEmpty == false }
            let output = { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
            try #require(finished, "the first run's steps did not finish within 240 s:\n\(output())")
            try #require(status() == "0", "the first run's steps failed (exit \(status() ?? "?")):\n\(output())")

            // Three prompts, each played to the end (mpv ends its status lines with a carriage return).
            #expect(output().split(whereSeparator: \.isNewline).filter { $0 == "done" }.count == 3, "\(output())")
            // The status the steps printed once the engine listened: music waiting for mpv*.
            #expect(output().contains("program not running (waiting for mpv*)"), "\(output())")

            // The recording: the song at unity, 12 dB lower under each of the three prompts.
            let heard = try SoundFileReader(path: work + "/heard.wav").readAll()[0]
            let levels = Self.toneLevels(heard)
            let loudest = levels.max() ?? 0
            try #require(loudest > 0.1, "the music is not in heard.wav (loudest 1 kHz window \(loudest))")
            let unity = levels.filter { $0 > 0.7 * loudest }.sorted()
            let ducked = levels.filter { $0 > 0.15 * loudest && $0 < 0.4 * loudest }.sorted()
            let duck = SignalAnalysis.decibels(ducked[ducked.count / 2] / unity[unity.count / 2])
            #expect(abs(duck + 12) < 0.5, "the music under the prompts: \(duck) dB")
            // Three runs of ducked windows (a prompt is about 2.3 s: 46 windows), each after music at unity.
            var runs: [Int] = [], inRun = false
            for level in levels {
                let low = level > 0.15 * loudest && level < 0.4 * loudest
                if low && !inRun { runs.append(0) }
                if low { runs[runs.count - 1] += 1 }
                if level > 0.7 * loudest || low { inRun = low }
            }
            #expect(runs.filter { $0 >= 30 }.count == 3, "ducked stretches of 50 ms windows: \(runs)")

            // The second player is an app of its own, not a second client of music.
            let environment = ["XDG_RUNTIME_DIR": directory + "/run"]
            let iaa = directory + "/home/.local/bin/iaa"
            var apps: [ControlJSON] = []
            let admitted = try waitUntil(seconds: 10) {
                let status = try runCommand(iaa, ["status", "--json"], environment: environment)
                apps = (try? ControlJSONParser.parse(status.stdout))?["apps"]?.arrayValue ?? []
                return apps.contains { $0["id"]?.stringValue == "radio" && $0["program"]?["admitted"]?.boolValue == true
                    && $0["program"]?["clients"]?.arrayValue?.first?["ports"]?.arrayValue?.count == 2 }
            }
            #expect(admitted, "radio was not admitted with its two ports routed: \(apps.map(\.text))")
            let music = apps.first { $0["id"]?.stringValue == "music" }
            #expect(music?["program"]?["clients"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["mpv"])
        }
    }
}
