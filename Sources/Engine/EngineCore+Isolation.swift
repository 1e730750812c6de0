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
        var payload: [(String, ControlJSON)] = [("app", .string(event.app))]
        switch event.kind {
        case .started(let pid, let restart):
            payload += [("name", .string("isolatedStarted")), ("pid", .number(Double(pid))), ("restart", .number(Double(restart)))]
            if restart > 0 { StandardError.write("iaa: app \"\(event.app)\" plays again (child process \(pid), restart \(restart))") }
        case .faulted(let fault, let restartIn):
            let settings = isolation?.settings ?? IsolationSettings(executable: "")
            let reason = fault.reason(settings: settings)
            payload += [("name", .string("isolatedFault")), ("fault", .string(fault.kind)),
                        ("signal", fault.signalName.map(ControlJSON.string) ?? .null), ("reason", .string(reason)),
                        ("restartIn", restartIn.map { .number($0) } ?? .null)]
            let next = restartIn.map { "restarting in \(($0 * 1000).rounded() / 1000) s" }
                ?? "it stays off; `iaa enable \(event.app)` starts it again"
            StandardError.warning("app \"\(event.app)\" is silent: \(reason); \(next)")
        case .setupFailed(let message):
            payload += [("name", .string("isolatedFault")), ("fault", .string("setupFailed")), ("reason", .string(message)),
                        ("restartIn", .null)]
            StandardError.warning("app \"\(event.app)\" cannot run isolated: \(message)")
        }
        publisher.announce("event", .object(payload))
    }

    /// The app's isolated node, when it has one.
    func isolatedNode(_ app: String) -> IsolatedNode? {
        backend.currentPlan?.slot(for: app)?.anyNode as? IsolatedNode
    }

    /// `status`'s `isolation` entry of an app: null in process, else the child's state.
    func isolationJSON(_ app: String) -> ControlJSON {
        guard let node = isolatedNode(app) else { return .null }
        let status = node.status
        var pairs: [(String, ControlJSON)] = [
            ("state", .string(status.state.rawValue)), ("pid", status.pid.map { .number(Double($0)) } ?? .null),
            ("restarts", .number(Double(status.restarts))), ("lateCycles", .number(Double(status.lateCycles))),
            ("restrictions", .array(status.restrictionNames.map(ControlJSON.string))),
        ]
        if let fault = status.fault {
            pairs.append(("fault", .object([("kind", .string(fault.kind)), ("signal", fault.signalName.map(ControlJSON.string) ?? .null),
                                             ("reason", .string(fault.reason(settings: node.settings)))])))
        } else {
            pairs.append(("fault", .null))
        }
        if let note = status.note { pairs.append(("note", .string(note))) }
        return .object(pairs)
    }

    /// `iaa enable` for an isolated app left off after too many faults.
    func enableIsolated(_ app: String) -> Bool {
        isolatedNode(app)?.reenable() ?? false
    }
}
