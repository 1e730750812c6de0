import Engine
import Foundation
import SignalAnalysis
import Testing
import TestKit

/// graphs/headunit.json with its timeline gives the events and levels docs/audio-sessions.md's story describes.
@Suite("The head-unit story")
struct HeadUnitScenarioTests {
    struct Story {
        let log: [String]
        let stems: [String: [Float]]

        /// Level of an app's stem between two times, in dB relative to its unity level.
        func level(_ app: String, _ from: Double, _ to: Double, unity: Float) -> Float? {
            let samples = stems[app]![Int(from * 48_000)..<Int(to * 48_000)]
            let rms = SignalAnalysis.rms(samples)
            return rms == 0 ? nil : SignalAnalysis.decibels(rms / unity)
        }

        func events(_ app: String, at t: String) -> [String] {
            log.filter { $0.hasPrefix("{\"t\":\(t),") && $0.contains("\"event\":{\"app\":\"\(app)\"") }
        }
    }

    static func render() throws -> Story {
        let directory = try TemporaryDirectory()
        var job = RenderJob(graphPath: Repository.path("graphs/headunit.json"),
                            outputPath: directory.file("headunit.wav"), seconds: 12)
        job.timelinePath = Repository.path("graphs/headunit.timeline.json")
        job.stemsDirectory = directory.file("stems")
        let summary = try job.run(progress: { _ in })
        var stems: [String: [Float]] = [:]
        for app in ["music", "nav", "phone", "game"] {
            stems[app] = try RenderedFile(path: directory.file("stems/\(app).wav")).channels[0]
        }
        return Story(log: summary.log, stems: stems)
    }

    @Test("music ducks under the prompt, falls silent for the call, resumes, and the game follows the rules")
    func levels() throws {
        let story = try Self.render()
        let music = Float(0.5 / 2.0.squareRoot()), game = Float(0.1 / 3.0.squareRoot())
        #expect(abs(story.level("music", 0.5, 1.9, unity: music)! - 0) < 0.1)
        #expect(abs(story.level("music", 2.1, 3.4, unity: music)! - -12) < 0.5)
        #expect(abs(story.level("game", 2.1, 3.4, unity: game)! - -12) < 0.5)
        #expect(abs(story.level("music", 3.6, 4.9, unity: music)! - 0) < 0.1)
        #expect(story.level("music", 5.1, 7.9, unity: music) == nil)
        #expect(story.level("game", 5.1, 7.9, unity: game) == nil)
        #expect(story.level("phone", 5.1, 7.9, unity: music) != nil)
        #expect(abs(story.level("music", 8.1, 11.9, unity: music)! - 0) < 0.1)
        #expect(abs(story.level("game", 8.1, 8.9, unity: game)! - 0) < 0.2)
        // Silent switch at 9 s: the ambient game is silenced, playback music is not.
        #expect(story.level("game", 9.1, 9.9, unity: game) == nil)
        // The game is suspended once music is brought to the foreground at 10 s.
        #expect(story.level("game", 10.1, 11.9, unity: game) == nil)
    }

    @Test("the log carries the interruptions, the refusal and the suspension at their times")
    func events() throws {
        let story = try Self.render()
        #expect(story.events("music", at: "5").contains { $0.contains("\"type\":\"began\"") })
        #expect(story.events("game", at: "5").contains { $0.contains("\"type\":\"began\"") })
        let refusal = story.log.first { $0.hasPrefix("{\"t\":6,") && $0.contains("\"action\"") }
        #expect(refusal?.contains("\"ok\":false") == true)
        #expect(refusal?.contains("\"fourcc\":\"!int\"") == true)
        #expect(story.events("music", at: "8").contains { $0.contains("\"type\":\"ended\"") && $0.contains("shouldResume") })
        #expect(story.events("game", at: "8").contains { $0.contains("silenceSecondaryAudioHint") && $0.contains("\"begin\"") })
        #expect(story.events("game", at: "10").contains { $0.contains("\"name\":\"suspended\"") })
    }
}
