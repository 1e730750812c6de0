import Engine
import Foundation
import SignalAnalysis
import Testing
import TestKit

/// Session decisions heard in the mix: timelines rendered offline, levels measured on the stems.
@Suite("Session scenarios rendered offline")
struct ScenarioRenderTests {
    /// Music at 220 Hz, a ducking navigation prompt, a call, and `ref`: an unmanaged copy of the
    /// music oscillator, so music/ref is exactly the session gain the policy applied.
    static func graph(rampTime: String = "10ms") -> String {
        """
        {
          "format": "iaa-graph/1", "name": "scenario",
          "policy": { "duckLevel": "-12dB", "rampTime": "\(rampTime)" },
          "apps": [
            { "id": "music", "plugin": "builtin:oscillator", "params": { "frequency": 220, "amplitude": 0.5 },
              "session": { "category": "playback", "active": true }, "backgroundModes": ["audio"], "state": "foreground" },
            { "id": "ref", "plugin": "builtin:oscillator", "params": { "frequency": 220, "amplitude": 0.5 } },
            { "id": "nav", "plugin": "builtin:oscillator", "params": { "frequency": 880, "amplitude": 0.4 },
              "session": { "category": "playback", "mode": "voicePrompt", "options": ["duckOthers"] },
              "backgroundModes": ["audio"] },
            { "id": "phone", "plugin": "builtin:oscillator", "params": { "frequency": 440, "amplitude": 0.4 },
              "session": { "category": "playAndRecord", "mode": "voiceChat" },
              "entitlements": ["priority-audio"], "backgroundModes": ["audio"] },
            { "id": "mix", "plugin": "builtin:mixer", "params": { "inputs": 3 } }
          ],
          "connections": [
            { "from": "music:out", "to": "mix:in_1" }, { "from": "nav:out", "to": "mix:in_2" },
            { "from": "phone:out", "to": "mix:in_3" }
          ],
          "jack": { "connections": [ { "from": "mix:out", "to": "@playback" } ] }
        }
        """
    }

    struct Rendered {
        let stems: [String: [Float]]
        let log: [String]
        func stem(_ app: String) -> [Float] { stems[app] ?? [] }
    }

    func render(_ timeline: String, seconds: Double, rampTime: String = "10ms") throws -> Rendered {
        let directory = try TemporaryDirectory()
        let graphPath = directory.file("scenario.json"), timelinePath = directory.file("scenario.timeline.json")
        try Self.graph(rampTime: rampTime).write(toFile: graphPath, atomically: true, encoding: .utf8)
        try "{\"timeline\": [\(timeline)]}".write(toFile: timelinePath, atomically: true, encoding: .utf8)
        var job = RenderJob(graphPath: graphPath, outputPath: directory.file("mix.wav"), seconds: seconds)
        job.timelinePath = timelinePath
        job.stemsDirectory = directory.file("stems")
        let summary = try job.run(progress: { _ in })
        var stems: [String: [Float]] = [:]
        for app in ["music", "ref", "nav", "phone"] {
            stems[app] = try RenderedFile(path: directory.file("stems/\(app).wav")).channels[0]
        }
        return Rendered(stems: stems, log: summary.log)
    }

    /// RMS of `samples` between two times, in seconds at 48 kHz.
    func rms(_ samples: [Float], from start: Double, to end: Double) -> Float {
        SignalAnalysis.rms(samples[Int(start * 48_000)..<Int(end * 48_000)])
    }

    @Test("duckOthers lowers a playing app to the duck level and restores it when the ducker deactivates")
    func duckingAndRestore() throws {
        let result = try render("""
            {"at": 1.0, "do": "activate", "app": "nav"},
            {"at": 2.0, "do": "stopAudio", "app": "nav"},
            {"at": 2.0, "do": "deactivate", "app": "nav", "options": ["notifyOthersOnDeactivation"]}
            """, seconds: 3)
        let music = result.stem("music"), unity = rms(result.stem("ref"), from: 0.2, to: 0.9)
        #expect(abs(SignalAnalysis.decibels(rms(music, from: 0.2, to: 0.9) / unity)) < 0.05)
        let ducked = SignalAnalysis.decibels(rms(music, from: 1.1, to: 1.9) / unity)
        #expect(abs(ducked - -12) < 0.5, "ducked at \(ducked) dB")
        #expect(abs(SignalAnalysis.decibels(rms(music, from: 2.1, to: 2.9) / unity)) < 0.5)
        // The prompt itself plays at unity while active and is silent after.
        #expect(rms(result.stem("nav"), from: 1.1, to: 1.9) > 0.25)
        #expect(SignalAnalysis.isExactlySilent(result.stem("nav")[Int(2.1 * 48_000)...]))
    }

    @Test("a call interrupts a playing app and it is exactly silent until the call ends and it resumes")
    func callInterruptsAndResumes() throws {
        let result = try render("""
            {"at": 1.0, "do": "activate", "app": "phone"},
            {"at": 2.0, "do": "stopAudio", "app": "phone"},
            {"at": 2.0, "do": "deactivate", "app": "phone", "options": ["notifyOthersOnDeactivation"]}
            """, seconds: 3)
        let music = result.stem("music")
        #expect(SignalAnalysis.isExactlySilent(music[Int(1.02 * 48_000)..<Int(2.0 * 48_000)]))
        #expect(rms(music, from: 2.1, to: 2.9) > 0.3)
        let events = result.log.filter { $0.contains("\"event\"") && $0.contains("\"app\":\"music\"") }
        #expect(events.contains { $0.contains("\"name\":\"interruption\"") && $0.contains("\"type\":\"began\"") })
        #expect(events.contains { $0.contains("\"type\":\"ended\"") && $0.contains("shouldResume") })
    }

    @Test("a session gain change ramps linearly over exactly the configured time with no larger step", arguments: ["10ms", "25ms"])
    func rampShape(rampTime: String) throws {
        let result = try render("{\"at\": 1.0, \"do\": \"activate\", \"app\": \"nav\"}", seconds: 1.5, rampTime: rampTime)
        let rampFrames = rampTime == "10ms" ? 480 : 1_200
        let duck = Float(EngineTestSupport.linear(decibels: -12))
        let music = result.stem("music"), ref = result.stem("ref"), start = 48_000
        var previous: Float = 1
        for frame in start..<(start + rampFrames + 200) where abs(ref[frame]) > 0.05 {
            let gain = music[frame] / ref[frame]
            let k = frame - start
            let expected = k < rampFrames ? 1 - (1 - duck) * Float(k) / Float(rampFrames) : duck
            #expect(abs(gain - expected) < 1e-4, "frame \(k): gain \(gain), expected \(expected)")
            #expect(previous - gain <= (1 - duck) / Float(rampFrames) * Float(frame - start + 1) + 1e-4)
            previous = gain
        }
        #expect(abs(music[start - 1] / ref[start - 1] - 1) < 1e-4 || abs(ref[start - 1]) <= 0.05)
    }

    @Test("the log holds every action with ok or its error, the events, and a state after each action")
    func logShape() throws {
        let result = try render("""
            {"at": 0.5, "do": "activate", "app": "phone"},
            {"at": 1.0, "do": "activate", "app": "music"}
            """, seconds: 1.5)
        let log = result.log
        #expect(log.first?.contains("\"state\"") == true)
        let actions = log.filter { $0.contains("\"action\"") }
        #expect(actions.count == 2)
        #expect(actions[0].contains("\"ok\":true") && actions[0].contains("\"frame\":24000"))
        // While the call is active, a non-mixable session may not activate (rule 4).
        #expect(actions[1].contains("\"ok\":false"))
        #expect(actions[1].contains("\"code\":\"insufficientPriority\""))
        #expect(actions[1].contains("\"fourcc\":\"!pri\""))
        for (index, line) in log.enumerated() where line.contains("\"action\"") {
            let rest = log[(index + 1)...]
            #expect(rest.first { !$0.contains("\"event\"") }?.contains("\"state\"") == true)
        }
        let times = log.compactMap { line -> Double? in
            guard let range = line.range(of: "\"t\":") else { return nil }
            return Double(line[range.upperBound...].prefix { "0123456789.e-".contains($0) })
        }
        #expect(times == times.sorted())
    }
}
