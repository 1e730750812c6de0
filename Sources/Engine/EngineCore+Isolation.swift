import AudioGraph
import ControlSocket
import Isolation

/// Isolated apps (docs/isolation.md): the node factory, their events, status and re-enabling.
extension EngineCore {
    /// Points the plan builder at the isolation policy, with `graph`'s crash limits. Before any
    /// plan for `graph` is built.
    func installNodeFactory(for graph: Graph) {
        guard let isolation else { return }
        builder.instances.nodeFactory = isolation.nodeFactory(graph: graph.isolation) { [weak self] event in
            guard let self else { return }
            queue.async { self.isolationEvent(event) }
        }
    }

    /// One event line and one log line for a child that started or faulted.
    func isolationEvent(_ event: IsolationEvent) {
        let line: EngineEvent
        switch event.kind {
        case .started(let pid, let restart):
            line = .isolatedStarted(app: event.app, pid: Int(pid), restart: restart)
            if restart > 0 { StandardError.write("iaa: app \"\(event.app)\" plays again (child process \(pid), restart \(restart))") }
        case .faulted(let fault, let restartIn):
            let settings = isolation?.settings ?? IsolationSettings(executable: "")
            let reason = fault.reason(settings: settings)
            line = .isolatedFault(app: event.app, fault: fault.kind, signal: fault.signalName, reason: reason, restartIn: restartIn)
            let next = restartIn.map { "restarting in \(($0 * 1000).rounded() / 1000) s" }
                ?? "it stays off; `iaa enable \(event.app)` starts it again"
            StandardError.warning("app \"\(event.app)\" is silent: \(reason); \(next)")
        case .setupFailed(let message):
            line = .isolatedFault(app: event.app, fault: "setupFailed", signal: nil, reason: message, restartIn: nil)
            StandardError.warning("app \"\(event.app)\" cannot run isolated: \(message)")
        }
        publisher.announce(.event(line))
    }

    /// The app's isolated node, when it has one.
    func isolatedNode(_ app: String) -> IsolatedNode? {
        backend.currentPlan?.slot(for: app)?.anyNode as? IsolatedNode
    }

    /// `status`'s `isolation` entry of an app: nil in process, else the child's state.
    func isolationStatus(_ app: String) -> AppStatus.Isolation? {
        guard let node = isolatedNode(app) else { return nil }
        let status = node.status
        return AppStatus.Isolation(
            state: Self.protocolState(status.state), pid: status.pid.map(Int.init), restarts: status.restarts, lateCycles: Int(status.lateCycles),
            restrictions: status.restrictionNames,
            fault: status.fault.map { AppStatus.Isolation.Fault(kind: $0.kind, signal: $0.signalName, reason: $0.reason(settings: node.settings)) },
            note: status.note)
    }

    /// The supervisor's state in `status`'s words (the isolation layer does not speak the protocol).
    static func protocolState(_ state: IsolationStatus.State) -> AppStatus.Isolation.State {
        switch state {
        case .starting: .starting
        case .running: .running
        case .restarting: .restarting
        case .off: .off
        }
    }

    /// `iaa enable` for an isolated app left off after too many faults.
    func enableIsolated(_ app: String) -> Bool {
        isolatedNode(app)?.reenable() ?? false
    }
}
