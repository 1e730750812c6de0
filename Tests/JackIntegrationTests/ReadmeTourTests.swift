import AudioFiles
import Foundation
import SignalAnalysis
import Testing
import TestKit

extension JackIntegration {
    /// README's five-minute tour, the part with audio sessions, run as written: the debug `iaa` on
    /// PATH as the tour says, the engine's socket in a private XDG_RUNTIME_DIR, the repository's
    /// graphs beside the commands.
    @Suite("README's tour, as written", .serialized,
           .enabled(if: JackHarness.server != nil, "needs the private JACK server that tools/test starts"))
    struct ReadmeTourTests {
        /// The tour's shell block.
        static var steps: [String] {
            let tour = Markdown.section(from: "## A five-minute tour", to: "## How it works", in: Markdown.page("README.md"))
            return Markdown.blocks(["sh"], in: tour)
        }

        @Test("the tour's commands work when pasted: nav's prompt ducks music and game by 12 dB, and status says so")
        func tourAsWritten() throws {
            let steps = Self.steps
            try #require(steps.count == 1, "expected the tour's one shell block, found \(steps.count)")
            let directory = try makeTemporaryDirectory("tour")
            defer { try? FileManager.default.removeItem(atPath: directory) }
            for folder in ["bin", "run", "work"] {
                try FileManager.default.createDirectory(atPath: directory + "/" + folder, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            }
            try FileManager.default.createSymbolicLink(atPath: directory + "/bin/iaa", withDestinationPath: Repository.debugBinary)
            try FileManager.default.createSymbolicLink(atPath: directory + "/work/graphs", withDestinationPath: Repository.path("graphs"))

            let mark = "IAA_TOUR=" + UUID().uuidString
            let pids = directory + "/pids", log = directory + "/log", exitFile = directory + "/exit"
            _ = FileManager.default.createFile(atPath: pids, contents: nil)
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            let script = """
                trap 'echo $? >"\(exitFile)"' EXIT
                set -eu
                export \(mark) PIDS="\(pids)" XDG_RUNTIME_DIR="\(directory)/run" PATH="\(directory)/bin:$PATH"
                unset IAA_CONFIG IAA_CLIENT
                cd "\(directory)/work"
                \(ReadmeFirstRunTests.script(steps[0]))
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
                if status() == nil { kill(process.processIdentifier, SIGKILL) }
                let started = ((try? String(contentsOfFile: pids, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { pid_t($0) }
                for pid in started { kill(pid, SIGKILL) }
                let gone = waitUntil(seconds: 10) {
                    let left = ReadmeFirstRunTests.processes(marked: mark)
                    for pid in left { kill(pid, SIGKILL) }
                    return left.isEmpty
                }
                #expect(gone, "processes of the tour outlived the test: \(ReadmeFirstRunTests.processes(marked: mark))")
                process.waitUntilExit()
            }
            let output = { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
            try #require(waitUntil(seconds: 60) { status()?.isEmpty == false }, "the tour did not finish within 60 s:\n\(output())")
            try #require(status() == "0", "the tour failed (exit \(status() ?? "?")):\n\(output())")

            // The last status: music and game ducked to 0.25, nav active at unity.
            let lines = output().split(separator: "\n")
            let last = { (app: String) in lines.last { $0.contains(". \(app) ") }.map(String.init) ?? "" }
            #expect(last("music").contains("ducked 0.25"), "\(output())")
            #expect(last("game").contains("ducked 0.25"), "\(output())")
            #expect(last("nav").contains("active   gain 1.00"), "\(output())")

            // heard.wav: music's 220 Hz at unity before the prompt, 12 dB lower under it.
            let heard = try SoundFileReader(path: directory + "/work/heard.wav").readAll()[0]
            let level = { (from: Double, to: Double) in
                SignalAnalysis.goertzelMagnitude(samples: heard[Int(from * 48_000)..<Int(to * 48_000)], frequency: 220, sampleRate: 48_000)
            }
            let before = level(0.1, 0.8), under = level(1.8, 2.8)
            try #require(before > 0.05, "no music in heard.wav before the prompt (220 Hz level \(before))")
            let duck = SignalAnalysis.decibels(under / before)
            #expect(abs(duck + 12) < 0.5, "music under the prompt: \(duck) dB")
        }
    }
}
