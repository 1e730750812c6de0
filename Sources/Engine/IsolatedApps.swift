import AudioGraph
import ControlSocket
import Dispatch
import Isolation
import NodeKit

/// Apps whose nodes run in child processes (docs/isolation.md): the node factory that makes
/// them, what their children's events say (an events line and a log line each), their state in
/// `status`, and `iaa enable` for one left off after too many faults.
///
/// This component owns the isolation policy (`--isolation`, trusted folders, the child binary,
/// where children run); the children themselves are the plan's ``IsolatedNode``s. Confined to
/// the control queue; the children's events arrive on their supervisors' threads and are
/// taken there.
final class IsolatedApps: @unchecked Sendable {
    let policy: IsolationPolicy
    private let queue: DispatchQueue
    private unowned let host: EngineHost

    init(_ policy: IsolationPolicy, host: EngineHost, queue: DispatchQueue) {
        self.policy = policy
        self.host = host
        self.queue = queue
    }

    /// The factory the plan builder makes `graph`'s nodes with, with its crash limits.
    func nodeFactory(for graph: Graph) -> (App) throws -> any AudioNode {
        policy.nodeFactory(graph: graph.isolation) { [weak self] event in
            guard let self else { return }
            queue.async { self.tell(event) }
        }
    }

    /// Children run on the audio thread's CPU, below it (``CPUPlacement``): told which thread
    /// that is whenever a backend goes live.
    func adopt(audioThread: UInt) {
        policy.settings.placement?.adopt(audioThread: audioThread)
    }

    /// One event line and one log line for a child that started or faulted. On the queue.
    func tell(_ event: IsolationEvent) {
        let line: EngineEvent
        switch event.kind {
        case .started(let pid, let restart):
            line = .isolatedStarted(app: event.app, pid: Int(pid), restart: restart)
            if restart > 0 { StandardError.write("iaa: app \"\(event.app)\" plays again (child process \(pid), restart \(restart))") }
        case .faulted(let fault, let restartIn):
            let reason = fault.reason(settings: policy.settings)
            line = .isolatedFault(app: event.app, fault: fault.kind, signal: fault.signalName, reason: reason, restartIn: restartIn)
            let next = restartIn.map { "restarting in \(($0 * 1000).rounded() / 1000) s" }
                ?? "it stays off; `iaa enable \(event.app)` starts it again"
            StandardError.warning("app \"\(event.app)\" is silent: \(reason); \(next)")
        case .setupFailed(let message):
            line = .isolatedFault(app: event.app, fault: "setupFailed", signal: nil, reason: message, restartIn: nil)
            StandardError.warning("app \"\(event.app)\" cannot run isolated: \(message)")
        }
        host.publisher.announce(.event(line))
    }

    /// The app's isolated node in the running plan, when it has one.
    func node(_ app: String) -> IsolatedNode? {
        host.backend.currentPlan?.slot(for: app)?.anyNode as? IsolatedNode
    }

    /// `status`'s `isolation` entry of an app: nil in process, else the child's state.
    func status(_ app: String) -> AppStatus.Isolation? {
        guard let node = node(app) else { return nil }
        let status = node.status
        return AppStatus.Isolation(
            state: Self.protocolState(status.state), pid: status.pid.map(Int.init), restarts: status.restarts, lateCycles: Int(status.lateCycles),
            restrictions: status.restrictionNames,
            fault: status.fault.map { AppStatus.Isolation.Fault(kind: $0.kind, signal: $0.signalName, reason: $0.reason(settings: node.settings)) },
            note: status.note)
    }

    /// The supervisor's state in `status`'s words (the isolation layer does not speak the protocol).
    private static func protocolState(_ state: IsolationStatus.State) -> AppStatus.Isolation.State {
        switch state {
        case .starting: .starting
        case .running: .running
        case .restarting: .restarting
        case .off: .off
        }
    }

    /// `iaa enable` for an isolated app left off after too many faults.
    func enable(_ app: String) -> Bool {
        node(app)?.reenable() ?? false
    }
}
