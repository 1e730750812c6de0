import Engine
import Foundation
import SignalAnalysis
import Testing
import TestKit

/// graphs/studio.json with its timeline: Inter-App Audio's node lifecycle, MIDI and transport,
/// rendered offline through the engine.
@Suite("The studio story")
struct StudioScenarioTests {
    struct Story {
        let log: [String]
        let stems: [String: [Float]]
        func stem(_ app: String) -> [Float] { stems[app] ?? [] }
        func rms(_ app: String, _ from: Double, _ to: Double) -> Float {
            SignalAnalysis.rms(stem(app)[Int(from * 48_000)..<Int(to * 48_000)])
        }
    }

    static let story: Story = {
        // One render shared by the tests: it is the same deterministic scenario each time.
        let directory = try! TemporaryDirectory()
        var job = RenderJob(graphPath: Repository.path("graphs/studio.json"),
                            outputPath: directory.file("studio.wav"), seconds: 8)
        job.timelinePath = Repository.path("graphs/studio.timeline.json")
        job.stemsDirectory = directory.file("stems")
        let summary = try! job.run(progress: { _ in })
        var stems: [String: [Float]] = [:]
        for app in ["synth", "seq", "filter", "echo", "daw"] {
            stems[app] = try! RenderedFile(path: directory.file("stems/\(app).wav")).channels[0]
        }
        return Story(log: summary.log, stems: stems)
    }()

    @Test("a MIDI note-on sounds from the exact frame of its timeline action, at the note's frequency")
    func midiNoteOnIsSampleAccurate() throws {
        let synth = Self.story.stem("synth")
        let onset = 24_000   // "at": 0.5
        #expect(SignalAnalysis.isExactlySilent(synth[..<onset]))
        #expect(synth[onset] != 0)
        // C major from 0.5 s: C4, E4, G4 at velocities 100, 90, 90.
        let held = Array(synth[(onset + 4_800)..<(onset + 43_200)])
        for frequency in [261.63, 329.63, 392.0] {
            #expect(SignalAnalysis.goertzelMagnitude(samples: held, frequency: frequency, sampleRate: 48_000) > 0.02,
                    "\(frequency) Hz missing")
        }
        #expect(SignalAnalysis.goertzelMagnitude(samples: held, frequency: 440, sampleRate: 48_000) < 0.002)
    }

    @Test("nodes connect at start and on connect, disconnect with events on both sides")
    func lifecycleEvents() {
        let log = Self.story.log
        func event(_ t: String, _ app: String, _ name: String, _ peer: String) -> Bool {
            log.contains { $0.hasPrefix("{\"t\":\(t),") && $0.contains("\"event\":{\"app\":\"\(app)\",\"name\":\"\(name)\",\"peer\":\"\(peer)\"") }
        }
        for node in ["synth", "seq", "filter", "echo"] {
            #expect(event("0", node, "nodeConnected", "daw"))
            #expect(event("0", "daw", "nodeConnected", node))
        }
        #expect(event("6", "seq", "nodeDisconnected", "daw"))
        #expect(event("6", "daw", "nodeDisconnected", "seq"))
        #expect(event("7", "seq", "nodeConnected", "daw"))
        // Effects and the MIDI-driven synth need their own session: the engine activates it.
        let states = log.filter { $0.hasPrefix("{\"t\":0,") && $0.contains("\"state\"") }
        #expect(states.last?.contains("\"echo\":{\"category\":\"playback\",\"active\":true") == true)
        #expect(states.last?.contains("\"seq\":{\"category\":\"playback\",\"active\":false") == true)
    }

    @Test("a disconnected node fades out linearly over the ramp time, then is stopped and silent")
    func disconnectFadesWithoutAStep() throws {
        // A sine node, so that output / ideal sine is exactly the fade's gain.
        let directory = try TemporaryDirectory()
        let graph = """
            {"format": "iaa-graph/1", "name": "fade",
             "apps": [
               {"id": "host", "role": "host", "plugin": "builtin:host-mixer", "params": {"inputs": 1},
                "session": {"category": "playback", "options": ["mixWithOthers"], "active": true},
                "entitlements": ["inter-app-audio"], "backgroundModes": ["audio"], "state": "foreground"},
               {"id": "tone", "role": "node", "plugin": "builtin:oscillator", "params": {"frequency": 440, "amplitude": 0.5},
                "component": {"type": "generator", "subtype": "tone", "manufacturer": "test"},
                "session": {"category": "playback", "options": ["mixWithOthers"]}, "entitlements": ["inter-app-audio"]}],
             "connections": [{"from": "tone:out", "to": "host:in_1"}],
             "jack": {"connections": [{"from": "host:out", "to": "@playback"}]}}
            """
        try graph.write(toFile: directory.file("fade.json"), atomically: true, encoding: .utf8)
        try "{\"timeline\": [{\"at\": 1.0, \"do\": \"disconnect\", \"from\": \"tone:out\", \"to\": \"host:in_1\"}]}"
            .write(toFile: directory.file("fade.timeline.json"), atomically: true, encoding: .utf8)
        var job = RenderJob(graphPath: directory.file("fade.json"), outputPath: directory.file("out.wav"), seconds: 1.5)
        job.timelinePath = directory.file("fade.timeline.json")
        job.stemsDirectory = directory.file("stems")
        let log = try job.run(progress: { _ in }).log
        let tone = try RenderedFile(path: directory.file("stems/tone.wav")).channels[0]
        let cut = 48_000, ramp = 480
        for frame in cut..<(cut + ramp) {
            let ideal = 0.5 * sin(2 * Double.pi * 440 * Double(frame) / 48_000)
            guard abs(ideal) > 0.05 else { continue }
            let gain = Double(tone[frame]) / ideal
            #expect(abs(gain - (1 - Double(frame - cut) / Double(ramp))) < 1e-3, "frame \(frame - cut): gain \(gain)")
        }
        #expect(SignalAnalysis.isExactlySilent(tone[(cut + ramp)...]))
        #expect(log.contains { $0.contains("\"name\":\"nodeDisconnected\",\"peer\":\"host\"") })
        // The host hears it fade too: no step larger than the sine's own.
        let host = try RenderedFile(path: directory.file("stems/host.wav")).channels[0]
        #expect(SignalAnalysis.maxAbsoluteStep(host[(cut - 100)..<(cut + ramp + 100)]) <= Float(2 * Double.pi * 440 / 48_000 * 0.5) + 1e-3)
    }

    @Test("the step sequencer follows the host transport: it plays while rolling and is silent while stopped")
    func sequencerFollowsTransport() {
        #expect(Self.story.rms("seq", 0.1, 2.9) > 0.05)
        #expect(SignalAnalysis.isExactlySilent(Self.story.stem("seq")[Int(3.01 * 48_000)..<(4 * 48_000)]))
        #expect(Self.story.rms("seq", 4.1, 5.9) > 0.05)
    }
}
