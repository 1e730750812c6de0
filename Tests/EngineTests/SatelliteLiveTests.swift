import ControlSocket
@testable import Engine
import Foundation
import Testing

/// The primary's side of one policy across machines, on the in-memory server: a satellite's app
/// attached to its session-only program app hears every change of the gain the policy decides.
@Suite("A primary's decisions for a satellite's apps")
struct SatelliteLiveTests {
    static let graph = """
        { "format": "iaa-graph/1", "name": "head",
          "apps": [
            { "id": "nav", "plugin": "builtin:oscillator",
              "session": { "category": "playback", "mode": "voicePrompt", "options": ["duckOthers"] },
              "backgroundModes": ["audio"], "state": "background" },
            { "id": "rearMusic", "program": { "outputs": 0 },
              "session": { "category": "playback", "options": ["mixWithOthers"] }, "backgroundModes": ["audio"], "state": "background" } ] }
        """

    @Test("each change of an attached app's gain is a decision line on its stream: silent, active at 1, ducked under the primary's prompt, back at 1")
    func decisionLines() throws {
        let live = try LiveCore(Self.graph, client: "head")
        guard case .stream(let topic, _) = live.reply("program.attach", ["app": "rearMusic"], pid: getpid(), connection: 7) else {
            Issue.record("program.attach did not start a stream")
            return
        }
        #expect(topic == "program:rearMusic")
        _ = try live.result("session.activate", ["app": "rearMusic"], connection: 2)
        _ = try live.result("session.activate", ["app": "nav"], connection: 2)
        _ = try live.result("session.stopAudio", ["app": "nav"], connection: 2)
        _ = try live.result("session.deactivate", ["app": "nav"], connection: 2)
        let decisions = live.lines(topic).compactMap { $0["decision"] }
        let gains = decisions.compactMap { $0["gain"]?.doubleValue }
        // Silent while inactive (said once attached), 1 once active, the duck level, 1 again.
        #expect(gains.count == 4, "\(decisions)")
        #expect(gains.first == 0 && gains.dropFirst().first == 1 && gains.last == 1, "\(gains)")
        #expect(abs((gains.dropFirst(2).first ?? 0) - 0.2512) < 0.001, "ducked to -12 dB: \(gains)")
        #expect(decisions.dropFirst(2).first?["ducked"]?.boolValue == true)
        #expect(decisions.allSatisfy { $0["app"]?.stringValue == "rearMusic" })
        // Nothing is said while the gain stays: a request that changes nothing adds no line.
        _ = try live.result("status")
        #expect(live.lines(topic).compactMap { $0["decision"] }.count == 4)
    }

    @Test("a satellite's app ducked by its primary's decision shows it in its session: the gain the primary decided, ducked, as its own gain does")
    func satelliteShowsThePrimarysDecision() throws {
        let live = try LiveCore(Self.graph, client: "rear")
        _ = try live.result("session.activate", ["app": "rearMusic"])
        live.core.queue.sync { live.core.sessions.followPrimary("rearMusic", gain: 0.2512) }
        let app = try #require(try live.result("status")["apps"]?.arrayValue?.first { $0["id"]?.stringValue == "rearMusic" })
        #expect(abs((app["gain"]?.doubleValue ?? 0) - 0.2512) < 0.0001, "\(app.text)")
        #expect(abs((app["session"]?["gain"]?.doubleValue ?? 0) - 0.2512) < 0.0001, "\(app.text)")
        #expect(app["session"]?["ducked"]?.boolValue == true, "\(app.text)")
        // The primary gone, the app's own policy decides again: active at full gain.
        live.core.queue.sync { live.core.sessions.leavePrimary() }
        let after = try #require(try live.result("status")["apps"]?.arrayValue?.first { $0["id"]?.stringValue == "rearMusic" })
        #expect(after["session"]?["gain"]?.doubleValue == 1 && after["session"]?["ducked"]?.boolValue == false, "\(after.text)")
    }
}
