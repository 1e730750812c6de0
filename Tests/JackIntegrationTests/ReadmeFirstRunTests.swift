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

        /// The 1 kHz amplitude of each 50 ms window of the recording.
        static func toneLevels(_ samples: [Float]) -> [Float] {
            stride(from: 0, to: samples.count - 2_400, by: 2_400).map {
                SignalAnalysis.goertzelMagnitude(samples: samples[$0..<($0 + 2_400)], frequency: 1_000, sampleRate: 48_000)
            }
        }

        @Test("the first run's commands work when pasted: the music is routed, ducked by 12 dB under each of three prompts, and a second player is admitted under its own name")
        func firstRunAsWritten() throws {
            let blocks = Self.steps
            try #require(blocks.count == 2, "expected the first run's shell block and the second player's, found \(blocks.count)")
            // As in docs/plugins.md's plugin steps: tools/install builds only what is stale, and a build cannot
            // run while `swift test` holds the build folder; tools/test builds these first.
            try #require(try Repository.releaseProductsAreCurrent(), "\(Repository.staleReleaseProducts)")
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

            let steps = try DocumentedSteps(directory: directory, markName: "IAA_FIRST_RUN", prologue: """
                export HOME="\(directory)/home" XDG_RUNTIME_DIR="\(directory)/run"
                export PATH="$HOME/.local/bin:$PATH"
                unset IAA_BIN IAA_SDK IAA_CONFIG IAA_CLIENT
                cd "\(work)"
                """, blocks: blocks)
            defer { steps.finish("the first run's steps") }
            let finished = waitUntil(seconds: 240) { steps.status?.isEmpty == false }
            let output = { steps.output }
            try #require(finished, "the first run's steps did not finish within 240 s:\n\(output())")
            try #require(steps.status == "0", "the first run's steps failed (exit \(steps.status ?? "?")):\n\(output())")

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
