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
            try FileManager.default.createSymbolicLink(atPath: directory + "/bin/iaa", withDestinationPath: Repository.binary)
            try FileManager.default.createSymbolicLink(atPath: directory + "/work/graphs", withDestinationPath: Repository.path("graphs"))

            let tour = try DocumentedSteps(directory: directory, markName: "IAA_TOUR", prologue: """
                export XDG_RUNTIME_DIR="\(directory)/run" PATH="\(directory)/bin:$PATH"
                unset IAA_CONFIG IAA_CLIENT
                cd "\(directory)/work"
                """, blocks: [steps[0]])
            defer { tour.finish("the tour") }
            let output = { tour.output }
            try #require(waitUntil(seconds: 60) { tour.status?.isEmpty == false }, "the tour did not finish within 60 s:\n\(output())")
            try #require(tour.status == "0", "the tour failed (exit \(tour.status ?? "?")):\n\(output())")

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
            // In tenths of a second: before the prompt, the median of 0.1–0.8 s; under it, the
            // quietest half second (the median of five tenths) after the first second. The tour's
            // commands run on a busy machine too, so the prompt is found, not assumed at 1.8 s.
            let tenths = (0..<(heard.count / 4_800)).map { level(Double($0) / 10, Double($0 + 1) / 10) }
            let median = { (values: ArraySlice<Float>) in values.sorted()[values.count / 2] }
            let before = median(tenths[1..<8])
            let under = (10..<max(10, tenths.count - 4)).map { median(tenths[$0..<($0 + 5)]) }.min() ?? 0
            try #require(before > 0.05, "no music in heard.wav before the prompt (220 Hz level \(before))")
            let duck = SignalAnalysis.decibels(under / before)
            #expect(abs(duck + 12) < 0.5, "music under the prompt: \(duck) dB")
        }
    }
}
