import AudioGraph
import AudioSession
import ControlSocket
import Links

/// A satellite engine (docs/links.md, "One policy across machines"): its apps with a session
/// are mirrored on a primary engine, whose policy decides for them. While joined, a session
/// action for a mirrored app goes to the primary first (a refusal there is the reply here), and
/// each mirrored app's gain is the primary's decision; the local policy keeps following the
/// same actions, so that when the primary is unreachable the satellite falls back to its own
/// decisions at once, says so, and joins again when it can.
extension EngineCore {
    /// The satellite's side of the link, while `--join` is given.
    struct Satellite {
        typealias State = SatelliteStatus.State

        let primary: PrimaryAddress
        let link: PrimaryLink
        /// The `ssh -N -L` that carries the link from another machine, kept running like a bridge.
        let tunnel: (any Bridge)?
        /// What ssh said last (`Permission denied (publickey).`), and whether it has ended since.
        var tunnelWords: String?
        var tunnelDown = false
        var state = State.joining
        var since: Double
        var reason: String?
        /// Times it joined, the first included.
        var joins = 0
    }

    /// Starts joining the primary at `primary`, through an ssh tunnel to `localSocket` for one
    /// on another machine (`sshConfig`: an ssh_config file for it, as `ssh -F`). Called once,
    /// once the engine is live.
    func join(primary: PrimaryAddress, localSocket: String, sshConfig: String?) {
        checkOnQueue()
        var tunnel: (any Bridge)?
        if let arguments = primary.sshArguments(localSocket: localSocket, config: sshConfig) {
            tunnel = bridgeStarter(JackServerLauncher.executable("ssh") ?? "ssh", arguments) { [weak self] event in
                self?.queue.async { [weak self] in self?.tunnelEvent(event) }
            }
        }
        let path: String
        if case .socket(let local) = primary { path = local } else { path = localSocket }
        let mirrored = graph.apps.filter { $0.session != nil }.map(\.id)
        let link = PrimaryLink(path: path, apps: mirrored) { [weak self] event in
            self?.queue.async { [weak self] in self?.primaryEvent(event) }
        }
        satellite = Satellite(primary: primary, link: link, tunnel: tunnel, since: now)
    }

    /// The ssh tunnel's words and ends: the reason a satellite gives while it cannot join.
    private func tunnelEvent(_ event: BridgeEvent) {
        checkOnQueue()
        switch event {
        case .started: satellite?.tunnelDown = false
        case .line(.other(let text)) where !text.isEmpty: satellite?.tunnelWords = text
        case .exited: satellite?.tunnelDown = true
        default: break
        }
    }

    func leavePrimary() {
        checkOnQueue()
        satellite?.link.stop()
        satellite?.tunnel?.stop()
        satellite = nil
        sessions.leavePrimary()
    }

    func primaryEvent(_ event: PrimaryEvent) {
        checkOnQueue()
        guard satellite != nil else { return }
        switch event {
        case .joined(let primarySessions):
            satellite?.joins += 1
            move(to: .joined, "joined the primary at \(satellite?.primary.description ?? "?"): it decides for \(satellite?.link.apps.count ?? 0) apps")
            // The primary learns which mirrored apps are active here; its decisions follow.
            for (app, session) in primarySessions.sorted(by: { $0.key < $1.key }) {
                let here = sessions.policy.state(of: app)?.active ?? false
                sessions.followPrimary(app, gain: Float(session.gain))
                guard session.active != here else { continue }
                _ = satellite?.link.forward(here ? "session.activate" : "session.deactivate", .object([("app", .string(app))]))
            }
        case .decision(let app, let gain):
            if satellite?.state == .joined { sessions.followPrimary(app, gain: gain) }
        case .event(let event):
            publisher.announce(.event(.session(event, fromPrimary: true)))
        case .lost(let reason):
            sessions.leavePrimary()
            var why = reason
            if let satellite, satellite.tunnelDown, let words = satellite.tunnelWords, case .ssh(let destination, _, _) = satellite.primary {
                why = "ssh to \(destination) failed: \(words)"
            }
            move(to: .fallback, "\(why); deciding with this engine's own policy until the primary is back")
        }
    }

    private func move(to state: Satellite.State, _ reason: String) {
        guard var current = satellite else { return }
        guard current.state != state || current.reason != reason else { return }
        current.state = state
        current.since = now
        current.reason = reason
        satellite = current
        publisher.announce(.event(.satellite(state: state, primary: current.primary.description, reason: reason)))
    }

    /// A session action for a mirrored app, while joined, asks the primary first: its refusal
    /// is the reply (nothing changes here), its acceptance lets the action go on here too.
    /// Nil when the action is this engine's alone.
    func forwardToPrimary(_ method: ControlMethod, _ request: ControlRequest) -> ControlReply? {
        guard let satellite, satellite.state == .joined, method.isOneAppSessionAction,
              let app = request["app"]?.stringValue, satellite.link.apps.contains(app) else { return nil }
        switch satellite.link.forward(request.method, request.params) {
        // `isBusy` is refused after the change is made (the session deactivated, its audio
        // stopped): made here too, it is refused here the same way.
        case .failure(let error)? where error.code != SessionError.Code.isBusy.rawValue:
            return .error(code: error.code, message: "the primary refused: \(error.message)", field: error.field)
        case .failure?, .success?, nil: return nil
        }
    }

    /// `status`'s `satellite` member: nil unless the engine joins a primary.
    func satelliteStatus() -> SatelliteStatus? {
        guard let satellite else { return nil }
        return SatelliteStatus(primary: satellite.primary.description, state: satellite.state, since: satellite.since,
                               reason: satellite.reason, joins: satellite.joins, apps: satellite.link.apps)
    }

    /// The primary's side: each attached app whose decided gain changed gets a line on its
    /// program stream (`{"t", "decision": {"app", "gain", …}}`), so a satellite can apply it.
    func announceDecisions() {
        for app in programs.attached.keys.sorted() {
            guard let state = sessions.policy.state(of: app), programs.attached[app]?.decided != state.gain else { continue }
            programs.attached[app]?.decided = state.gain
            let decision = ProgramDecision(app: app, gain: Double(state.gain), active: state.active, ducked: state.ducked,
                                           interrupted: state.interrupted)
            publisher.publish(ProgramStreamLine.decision(decision, at: now).json, topic: EventPublisher.programTopic(app))
        }
    }
}
