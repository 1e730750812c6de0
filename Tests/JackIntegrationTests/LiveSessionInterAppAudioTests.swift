import ControlSocket
import Foundation
import Testing
import TestKit

extension JackIntegration {
    /// Inter-App Audio against the live session on a running engine (docs/session-policy.md, X4):
    /// a session change that breaks a connection's conditions ends it, and the event says why.
    @Suite("Inter-App Audio follows the live sessions", .serialized,
           .enabled(if: JackHarness.server != nil, "needs the private JACK server that tools/test starts"))
    struct LiveSessionInterAppAudioTests {
        @Test("live: a node that drops mixWithOthers is disconnected and the event says why")
        func nodeDroppingMixWithOthersLive() throws {
            let running = try ControlPlaneTests.Running(graph: "graphs/studio.json", client: "t-iaalive")
            defer { running.stop() }
            let lines = followEvents(socket: running.socket, limit: 50)
            _ = try running.result("session.setCategory", ["app": "synth", "category": "playback", "options": []])
            _ = waitUntil(seconds: 5) { lines.all.filter { $0.contains("\"name\":\"nodeDisconnected\"") }.count >= 2 }
            let seen = lines.all.filter { $0.contains("\"name\":\"nodeDisconnected\"") }
            #expect(seen.contains { $0.contains("\"app\":\"synth\"") && $0.contains("\"peer\":\"daw\"") && $0.contains("lacks mixWithOthers now") },
                    "\(lines.all)")
            #expect(seen.contains { $0.contains("\"app\":\"daw\"") && $0.contains("\"peer\":\"synth\"") }, "\(lines.all)")
            let connections = try running.result("dump")["graph"]?["connections"]?.arrayValue ?? []
            #expect(!connections.contains { $0["from"]?.stringValue == "synth:out" }, "\(connections)")
            let refused = try running.call("connect", ["from": "synth:out", "to": "daw:in_1"])
            guard case .failure(let error) = refused else {
                Issue.record("connecting a node without mixWithOthers was accepted")
                return
            }
            #expect(error.code == "incompatibleCategory", "\(error)")
        }
    }
}
