import AudioSession
import ControlSocket
@testable import Engine
import Links
import Synchronization
import Testing
import TestKit
import Foundation

/// A satellite's side of one policy across machines, its link to the primary stood in for: the
/// states it moves through and says, what it does to this engine's sessions, what it forwards,
/// and why it says it fell back.
@Suite("A satellite's link to its primary")
struct SatelliteLinkTests {
    /// The primary's end: records what is forwarded and answers with `answer`.
    final class Primary: PrimaryChannel, @unchecked Sendable {
        let apps = ["nav", "music"]
        var forwarded: [String] = []
        var answer: Result<ControlJSON, ControlError>? = .success(.object([]))
        var stopped = false
        func forward(_ method: String, _ params: ControlJSON) -> Result<ControlJSON, ControlError>? {
            forwarded.append("\(method) \(params.text)")
            return answer
        }
        func stop() { stopped = true }
    }

    /// What the link did to the engine's sessions, and what the engine published.
    final class Engine: @unchecked Sendable {
        var followed: [String: Float] = [:]
        var left = 0
        var active: Set<String> = []
        var events: [EngineEvent] = []
    }

    static func link(_ address: PrimaryAddress = .socket("/run/head.sock")) -> (SatelliteLink, Primary, Engine) {
        let primary = Primary(), engine = Engine()
        let publisher = EventPublisher(clock: EngineClock())
        publisher.tap = { _, line in
            if case .event(let event)? = EventsLine(json: line)?.content { engine.events.append(event) }
        }
        let sessions = SatelliteLink.Sessions(follow: { engine.followed[$0] = $1 }, leave: { engine.left += 1 },
                                              isActive: { engine.active.contains($0) })
        return (SatelliteLink(primary: address, channel: primary, tunnel: nil, clock: EngineClock(), publisher: publisher, sessions: sessions),
                primary, engine)
    }

    static func session(active: Bool, gain: Double) -> SessionStatus {
        var session = SessionStatus(category: "playback", mode: "default", options: [])
        session.active = active
        session.gain = gain
        return session
    }

    @Test("joined: each mirrored app follows the primary's gain, the primary hears which apps are active here, and decisions follow")
    func joins() {
        let (link, primary, engine) = Self.link()
        engine.active = ["music"]
        link.handle(.joined(["nav": Self.session(active: true, gain: 1), "music": Self.session(active: false, gain: 0.25)]))
        #expect(link.state == .joined && link.joins == 1)
        #expect(engine.followed == ["nav": 1, "music": 0.25])
        #expect(primary.forwarded == [#"session.activate {"app":"music"}"#, #"session.deactivate {"app":"nav"}"#])
        link.handle(.decision(app: "music", gain: 0.5))
        #expect(engine.followed["music"] == 0.5)
        #expect(engine.events == [.satellite(state: .joined, primary: "/run/head.sock", reason: "joined the primary at /run/head.sock: it decides for 2 apps")])
    }

    @Test("a session action for a mirrored app goes to the primary while joined: its refusal is the reply, isBusy and acceptance let it go on here")
    func forwards() {
        let (link, primary, _) = Self.link()
        let request = ControlRequest(id: 1, method: "session.activate", params: ["app": "nav"], peer: ControlPeer(uid: 0, pid: 1), connection: 1)
        #expect(link.forward(.activate, request) == nil, "forwarded before joining")
        link.handle(.joined([:]))
        primary.answer = .failure(ControlError(code: "cannotInterruptOthers", message: "('!int') no"))
        guard case .error(let refusal)? = link.forward(.activate, request) else {
            Issue.record("the primary's refusal is not the reply")
            return
        }
        #expect(refusal.message == "the primary refused: ('!int') no")
        primary.answer = .failure(ControlError(code: SessionError.Code.isBusy.rawValue, message: "busy"))
        #expect(link.forward(.activate, request) == nil)
        #expect(link.forward(.device, request) == nil && primary.forwarded.count == 2, "device is this engine's alone")
    }

    @Test("before ssh has made its end of the tunnel, the reason says the tunnel is coming up, not that no engine runs there")
    func tunnelComingUp() throws {
        let folder = try makeTemporaryDirectory("tunnel")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let end = folder + "/rear-primary.sock"
        let engine = Engine()
        let sessions = SatelliteLink.Sessions(follow: { engine.followed[$0] = $1 }, leave: { engine.left += 1 }, isActive: { _ in false })
        let link = SatelliteLink(primary: try PrimaryAddress("ssh://head/run/iaa/head.sock"), channel: Primary(), tunnel: nil, tunnelEnd: end,
                                 clock: EngineClock(), publisher: EventPublisher(clock: EngineClock()), sessions: sessions)
        link.tunnelReported(.started(pid: 4242))
        link.handle(.lost("no iaa engine is running on socket \(end) (start one with `iaa run GRAPH`)"))
        #expect(link.reason == "the ssh tunnel to head is coming up (its end \(end) is not there yet); deciding with this engine's own policy until the primary is back")
        // Once the end is there, what the link says stands.
        FileManager.default.createFile(atPath: end, contents: nil)
        link.handle(.lost("the primary's socket is gone"))
        #expect(link.reason == "the primary's socket is gone; deciding with this engine's own policy until the primary is back")
    }

    @Test("lost: every app is this engine's again, decisions are ignored, and the reason is ssh's words when its tunnel ended")
    func fallsBack() throws {
        let (link, primary, engine) = Self.link(try PrimaryAddress("ssh://head/run/iaa/head.sock"))
        link.handle(.joined([:]))
        link.tunnelReported(.line(.other("Permission denied (publickey).")))
        link.tunnelReported(.exited("ssh exited with status 255"))
        link.handle(.lost("the primary's socket is gone"))
        #expect(link.state == .fallback && engine.left == 1)
        #expect(link.reason == "ssh to head failed: Permission denied (publickey).; deciding with this engine's own policy until the primary is back")
        link.handle(.decision(app: "nav", gain: 0.1))
        #expect(engine.followed["nav"] == nil)
        #expect(link.status.state == .fallback && link.status.apps == ["nav", "music"])
        link.leave()
        #expect(primary.stopped && engine.left == 2)
    }
}
