import AudioGraph
import RenderCore
import AudioSession
import OfflineBackend

/// A render's engine: the sessions, plan builder and offline backend that ``EngineCore`` holds
/// live, performing the same commands (``CommandHost``) on the render's clock. A plan that must
/// wait for a fade waits for a time, which the ``Scenario`` reaches at its exact frame.
final class OfflineEngine: CommandHost {
    let backend: OfflineBackend
    let builder: PlanBuilder
    private(set) var sessions: AudioSessionController
    /// The first plan (whose nodes the render shuts down at the end).
    let firstPlan: RenderPlan
    /// The events starting the graph caused (node connections).
    let startEvents: [SessionEvent]
    /// A graph whose plan waits for a disconnected node to fade out, and when it may be installed.
    private(set) var pendingGraph: (time: Double, graph: Graph)?

    /// Installs `graph`'s first plan on `backend`.
    init(graph: Graph, backend: OfflineBackend, builder: PlanBuilder) throws {
        self.backend = backend
        self.builder = builder
        let first = try PlanInstall(graph, builder: builder, sessions: AudioSessionController(graph: graph), binding: .first,
                                    on: backend, at: 0)
        sessions = first.sessions
        firstPlan = first.plan
        startEvents = first.events
    }

    var controlBackend: any ControlBackend { backend }

    func install(_ graph: Graph, sameSessions: Bool, at time: Double) throws -> [SessionEvent] {
        let installed = try PlanInstall(graph, builder: builder, sessions: sessions, binding: sameSessions ? .adopt : .replace,
                                        on: backend, at: time)
        sessions = installed.sessions
        return installed.events
    }

    func installAfterFade(_ graph: Graph, at time: Double) {
        pendingGraph = (time + graph.policy.rampSeconds, graph)
    }

    /// Installs the graph waiting for a fade when its time has come by `time`.
    func installPendingGraph(by time: Double) throws {
        guard let pending = pendingGraph, pending.time <= time else { return }
        pendingGraph = nil
        _ = try PlanInstall(pending.graph, builder: builder, sessions: sessions, binding: .rebind, on: backend, at: time)
    }

    /// Replaces the plan by one aligned for the nodes' latencies when one reported another (as
    /// the live engine does on its tick; here between cycles, so a render is repeatable).
    func followLatency(at time: Double) throws {
        guard let plan = backend.currentPlan, plan.latencyChanged else { return }
        _ = try PlanInstall(sessions.graph, builder: builder, sessions: sessions,
                            binding: .rebind, on: backend, at: time)
    }

    // Offline there are no outside ports, so no connection to remember: the backend refuses them.
    func willConnectPorts(_ pair: PortPair) {}
    func willDisconnectPorts(_ pair: PortPair) {}

    // Nor programs: no app is admitted, and an applied graph's rules have nothing to connect.
    func carryingAdmitted(into graph: Graph) -> (graph: Graph, dropped: [String]) { (graph, []) }
    func willApply(_ graph: Graph) {}
    func didApply(_ graph: Graph, diff: GraphDiff, events: [SessionEvent], droppedAdmitted: [String]) -> [String] { [] }
}
