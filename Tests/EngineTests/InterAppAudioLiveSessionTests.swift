import Engine
import Foundation
import SignalAnalysis
import Testing
import TestKit

/// Inter-App Audio against the live session (docs/session-policy.md, X3 and X4): whether a node
/// may connect to a host, and stay connected, follows both apps' current category, options and
/// activation, rendered offline through timelines.
@Suite("Inter-App Audio against the live session")
struct InterAppAudioLiveSessionTests {
    /// A host (`daw`, inactive unless `hostActive`) and a generator node (`osc`, a 440 Hz tone),
    /// connected at start when `connected`.
    static func graph(hostActive: Bool, connected: Bool) -> String {
        """
        { "format": "iaa-graph/1", "name": "iaa-live",
          "apps": [
            { "id": "daw", "role": "host", "plugin": "builtin:host-mixer", "params": { "inputs": 1, "sends": 0 },
              "session": { "category": "playAndRecord", "options": ["mixWithOthers"], "active": \(hostActive) },
              "entitlements": ["inter-app-audio"], "backgroundModes": ["audio"], "state": "foreground" },
            { "id": "osc", "role": "node", "plugin": "builtin:oscillator", "params": { "frequency": 440, "amplitude": 0.5 },
              "component": { "type": "generator", "subtype": "osci", "manufacturer": "test" },
              "session": { "category": "playback", "options": ["mixWithOthers"] },
              "entitlements": ["inter-app-audio"], "backgroundModes": ["audio"] }
          ],
          "connections": [\(connected ? #"{ "from": "osc:out", "to": "daw:in_1" }"# : "")],
          "jack": { "connections": [{ "from": "daw:out", "to": "@playback" }] }
        }
        """
    }

    struct Story {
        let log: [String]
        let host: [Float]

        /// The host's output between two times, in seconds.
        func rms(_ from: Double, _ to: Double) -> Float {
            SignalAnalysis.rms(host[Int(from * 48_000)..<Int(to * 48_000)])
        }

        /// The log line of the action at `t` that contains `text`.
        func action(at t: String, _ text: String) -> String? {
            log.first { $0.hasPrefix("{\"t\":\(t),") && $0.contains("\"action\"") && $0.contains(text) }
        }

        /// The `nodeDisconnected` events, as logged.
        var disconnections: [String] { log.filter { $0.contains("\"name\":\"nodeDisconnected\"") } }
    }

    static func render(graph: String, timeline: String, seconds: Double) -> Story {
        let directory = try! TemporaryDirectory()
        try! graph.write(toFile: directory.file("graph.json"), atomically: true, encoding: .utf8)
        try! timeline.write(toFile: directory.file("timeline.json"), atomically: true, encoding: .utf8)
        var job = RenderJob(graphPath: directory.file("graph.json"), outputPath: directory.file("out.wav"), seconds: seconds)
        job.timelinePath = directory.file("timeline.json")
        job.stemsDirectory = directory.file("stems")
        let summary = try! job.run(progress: { _ in })
        let host = try! RenderedFile(path: directory.file("stems/daw.wav")).channels[0]
        return Story(log: summary.log, host: host)
    }

    /// The host starts inactive; it activates, a node connects, it deactivates, and activates again.
    static let hostStory = render(graph: graph(hostActive: false, connected: false), timeline: """
        { "timeline": [
          { "at": 0.5, "do": "connect", "from": "osc:out", "to": "daw:in_1" },
          { "at": 1.0, "do": "activate", "app": "daw" },
          { "at": 1.5, "do": "connect", "from": "osc:out", "to": "daw:in_1" },
          { "at": 2.0, "do": "stopAudio", "app": "daw" },
          { "at": 2.0, "do": "deactivate", "app": "daw" },
          { "at": 2.5, "do": "connect", "from": "osc:out", "to": "daw:in_1" },
          { "at": 3.0, "do": "activate", "app": "daw" }
        ] }
        """, seconds: 3.5)

    /// The node is connected at start, then its setCategory drops mixWithOthers.
    static let nodeStory = render(graph: graph(hostActive: true, connected: true), timeline: """
        { "timeline": [
          { "at": 1.0, "do": "setCategory", "app": "osc", "category": "playback", "options": [] },
          { "at": 1.5, "do": "connect", "from": "osc:out", "to": "daw:in_1" }
        ] }
        """, seconds: 2)

    @Test("a host that activates at runtime may connect")
    func hostActivatingAtRuntimeMayConnect() throws {
        let story = Self.hostStory
        let refused = try #require(story.action(at: "0.5", "connect"))
        #expect(refused.contains("\"ok\":false") && refused.contains("\"code\":\"incompatibleCategory\""), "\(refused)")
        #expect(refused.contains("no active session now"), "\(refused)")
        let accepted = try #require(story.action(at: "1.5", "connect"))
        #expect(accepted.contains("\"ok\":true"), "\(accepted)")
        #expect(story.log.contains { $0.hasPrefix("{\"t\":1.5,") && $0.contains("\"app\":\"osc\",\"name\":\"nodeConnected\",\"peer\":\"daw\"") })
        #expect(SignalAnalysis.isExactlySilent(story.host[..<Int(1.5 * 48_000)]))
        #expect(story.rms(1.6, 1.95) > 0.2, "the node is not heard through the host once connected")
    }

    @Test("a host that deactivated is refused a connection")
    func deactivatedHostIsRefused() throws {
        let refused = try #require(Self.hostStory.action(at: "2.5", "connect"))
        #expect(refused.contains("\"ok\":false") && refused.contains("\"code\":\"incompatibleCategory\""), "\(refused)")
        #expect(refused.contains("\"fourcc\":\"!cat\""), "\(refused)")
    }

    @Test("a host that deactivates disconnects its nodes, and they stay disconnected")
    func deactivatingHostDisconnects() throws {
        let story = Self.hostStory
        let ended = story.disconnections.filter { $0.hasPrefix("{\"t\":2,") }
        #expect(ended.count == 2, "\(story.disconnections)")
        #expect(ended.allSatisfy { $0.contains("\"reason\":\"host \\\"daw\\\" has no active session now") }, "\(ended)")
        // Reactivated at 3 s, the host hears nothing: the connection does not come back by itself.
        #expect(SignalAnalysis.isExactlySilent(story.host[Int(3.0 * 48_000)...]))
    }

    @Test("a node whose setCategory dropped mixWithOthers is disconnected with an event and refused")
    func nodeDroppingMixWithOthers() throws {
        let story = Self.nodeStory
        #expect(story.rms(0.1, 0.95) > 0.2)
        let ended = story.disconnections
        #expect(ended.count == 2, "\(ended)")
        #expect(ended.allSatisfy { $0.hasPrefix("{\"t\":1,") && $0.contains("lacks mixWithOthers now") }, "\(ended)")
        #expect(ended.contains { $0.contains("\"app\":\"osc\",\"name\":\"nodeDisconnected\",\"peer\":\"daw\"") })
        #expect(ended.contains { $0.contains("\"app\":\"daw\",\"name\":\"nodeDisconnected\",\"peer\":\"osc\"") })
        // Faded out over the 10 ms ramp, then gone.
        #expect(SignalAnalysis.isExactlySilent(story.host[Int(1.011 * 48_000)...]))
        let refused = try #require(story.action(at: "1.5", "connect"))
        #expect(refused.contains("\"ok\":false") && refused.contains("lacks mixWithOthers now"), "\(refused)")
    }
}
