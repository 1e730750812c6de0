import AudioGraph
import RenderCore
import AudioSession

/// How the sessions take a newly compiled plan.
enum SessionBinding {
    /// The engine's first plan: gains start at their values (nothing has rendered yet) and the
    /// graph's node connections are made.
    case first
    /// The same sessions bind to the new plan's slots (a new backend, a plan that waited for a fade).
    case rebind
    /// A changed graph under the same sessions (see `AudioSessionController.adopt`): apps admitted or
    /// removed gain or lose theirs, every other session stays as it is.
    case adopt
    /// A changed graph whose sessions all start afresh.
    case replace
}

/// Compile → attach → install: the one way a graph's plan goes live, for the JACK engine and
/// offline renders alike. Every running node whose app, type and configuration did not change is
/// reused; an app whose plugin library was rebuilt gets a node running the new code, swapped in
/// with a fade (``CodeSwap``). When the backend refuses the plan, everything is as before.
struct PlanInstall {
    /// The sessions now bound to the plan (a new controller for `.replace`).
    let sessions: AudioSessionController
    /// The session events the change caused (node connections made or ended, sessions removed).
    let events: [SessionEvent]
    /// How the sessions of apps new to the graph started (`.adopt`), by app.
    let setups: [String: SessionOutcome]
    let plan: RenderPlan

    /// Installs `graph`'s plan on `backend` at `time` (seconds on the engine's clock).
    init(_ graph: Graph, builder: PlanBuilder, sessions: AudioSessionController, binding: SessionBinding,
         on backend: some ControlBackend, at time: Double) throws {
        let rebuilt = builder.instances.appsWithNewCode(in: graph)
        // A rebind is the graph already playing, on a new plan: running nodes keep their values.
        var plan = try builder.plan(for: graph, keepingParameters: binding == .rebind)
        if binding == .first {
            PlanBuilder.warmUp(plan)
            // The warm-up cycle told the nodes' latencies: the plan that plays is aligned from
            // its first frame, offline and live alike.
            if plan.latencyChanged { plan = try builder.plan(for: graph, fresh: true) }
        }
        let swap = CodeSwap(apps: rebuilt, running: backend.currentPlan, plan: plan)
        swap.fadeOut(rampSeconds: builder.instances.gainRampSeconds, on: backend)
        var bound = sessions
        var events: [SessionEvent] = []
        var setups: [String: SessionOutcome] = [:]
        do {
            switch binding {
            case .first, .rebind:
                events = sessions.attach(plan, initial: binding == .first, at: time)
                try backend.install(plan)
            case .adopt:
                (events, setups) = try sessions.adopt(graph, plan: plan, at: time) { try backend.install(plan) }
            case .replace:
                bound = AudioSessionController(graph: graph)
                events = bound.attach(plan, initial: false, at: time)
                try backend.install(plan)
            }
        } catch {
            swap.restore()
            throw error
        }
        swap.continueCounts()
        swap.fadeIn { [bound] id in
            bound.policy.state(of: id) != nil || graph.appIndex(id).map { graph.apps[$0].role == .node } == true
        }
        self.sessions = bound
        self.events = events
        self.setups = setups
        self.plan = plan
    }
}
