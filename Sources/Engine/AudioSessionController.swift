import AudioGraph
import RenderCore
import AudioSession

/// Links the session policy to the running nodes: applies actions to the policy and turns each
/// decision into per-app gain targets, suspension and microphone flags that the audio thread
/// follows (ramped, so no decision clicks), and runs Inter-App Audio's node lifecycle.
/// Control side only; one caller at a time.
public final class AudioSessionController {
    public private(set) var policy: SessionPolicy
    public private(set) var graph: Graph
    private var slots: [String: NodeSlot] = [:]
    /// Each node app's hosts, as the current graph connects them.
    private var hostsOfNode: [String: [String]] = [:]
    /// The gains a primary engine decided for this satellite's apps (``followPrimary``).
    private var primaryGains: [String: Float] = [:]
    /// A graph without the Inter-App Audio connections the live sessions no longer allow: the
    /// nodes are already fading out; the caller installs its plan once the ramp is over.
    public private(set) var graphAwaitingInstall: Graph?

    /// A controller for the graph's managed apps (those with a `session` block).
    public init(graph: Graph) {
        self.graph = graph
        policy = SessionPolicy(apps: graph.apps.compactMap(\.session), configuration: graph.policy)
    }

    /// Binds the controller to a plan's slots. The first time, gains start at their values with
    /// no ramp (the slots have not rendered yet) and the graph's node connections are made,
    /// returning their events; later, gains ramp.
    @discardableResult
    public func attach(_ plan: RenderPlan, initial: Bool, at time: Double = 0) -> [SessionEvent] {
        slots = Dictionary(uniqueKeysWithValues: graph.apps.compactMap { app in plan.slot(for: app.id).map { (app.id, $0) } })
        let events = initial ? interAppAudioChanges(to: graph, at: time) : []
        push(startingAt: initial)
        return events
    }

    /// Applies one action at `time` (seconds on the engine's clock) and pushes the result. Inter-App
    /// Audio's conditions are then checked again against the sessions as they are now: a
    /// connection they no longer allow is ended (its events follow the action's), and the graph
    /// without it waits in `graphAwaitingInstall`.
    @discardableResult
    public func apply(_ action: SessionAction, at time: Double) -> SessionOutcome {
        let outcome = policy.apply(action, at: time)
        let ended = endDisallowedConnections(at: time)
        push()
        guard !ended.isEmpty else { return outcome }
        return SessionOutcome(error: outcome.error, events: outcome.events + ended, warnings: outcome.warnings)
    }

    /// `set` changed a parameter of app `app`: the graph (and the one waiting for its plan) holds
    /// the new value, so a later plan of it starts there.
    public func parameterSet(_ index: Int, ofApp app: String, to value: Float) {
        guard let appIndex = graph.appIndex(app) else { return }
        graph = graph.settingParameter(index, ofApp: appIndex, to: value)
        if let waiting = graphAwaitingInstall, let waitingIndex = waiting.appIndex(app) {
            graphAwaitingInstall = waiting.settingParameter(index, ofApp: waitingIndex, to: value)
        }
    }

    /// Hands over the graph waiting for its plan (see `graphAwaitingInstall`), once.
    public func takeGraphAwaitingInstall() -> Graph? {
        defer { graphAwaitingInstall = nil }
        return graphAwaitingInstall
    }

    /// Removes every host connection whose conditions stopped holding, telling both sides why.
    private func endDisallowedConnections(at time: Double) -> [SessionEvent] {
        var reasons: [String: String] = [:]
        var ended: [Connection] = []
        for connection in graph.connections {
            guard let violation = InterAppAudioRules.liveViolation(connection, in: graph, policy: policy) else { continue }
            ended.append(connection)
            let node = graph.apps[connection.from.app].role == .host ? connection.to.app : connection.from.app
            let host = node == connection.from.app ? connection.to.app : connection.from.app
            reasons["\(graph.apps[node].id) \(graph.apps[host].id)"] = violation.message
        }
        guard !ended.isEmpty else { return [] }
        let newGraph = graph.removing(ended)
        let events = interAppAudioChanges(to: newGraph, at: time, reasons: reasons)
        graph = newGraph
        graphAwaitingInstall = newGraph
        return events
    }

    /// Takes a changed graph (same apps, other connections): nodes that gained their first host
    /// connect (their session activates when they need one), nodes that lost their last host
    /// are stopped and their session deactivated; both sides get the events.
    public func graphChanged(to newGraph: Graph, at time: Double) -> [SessionEvent] {
        var events = interAppAudioChanges(to: newGraph, at: time)
        graph = newGraph
        // A node whose activation on connecting was refused cannot stay connected.
        events += endDisallowedConnections(at: time)
        push()
        return events
    }

    /// Takes a graph that may also have gained or lost apps (admitted programs) and its plan,
    /// before `install` publishes the plan: sessions of apps that left are removed (terminated
    /// first, so the apps they ducked or interrupted hear it), apps that arrived get their setup's
    /// session, every other session stays as it is, and each slot has its gain before the audio
    /// thread renders it (a new one starts there, without a ramp). When `install` throws,
    /// everything is as before. Returns the events, and the refusals and warnings of the new
    /// apps' setups by app.
    public func adopt(_ newGraph: Graph, plan: RenderPlan, at time: Double,
                      install: () throws -> Void) throws -> (events: [SessionEvent], setups: [String: SessionOutcome]) {
        let saved = (policy, graph, slots, hostsOfNode, graphAwaitingInstall)
        let staying = Set(newGraph.apps.map(\.id))
        var events: [SessionEvent] = []
        for state in policy.states where !staying.contains(state.id) {
            events += policy.remove(state.id, at: time)
        }
        var setups: [String: SessionOutcome] = [:]
        for app in newGraph.apps {
            guard let setup = app.session, policy.state(of: app.id) == nil else { continue }
            let outcome = policy.admit(setup, at: time)
            setups[app.id] = outcome
            events += outcome.events
        }
        let fresh = Set(newGraph.apps.map(\.id)).subtracting(graph.apps.map(\.id))
        slots = Dictionary(uniqueKeysWithValues: newGraph.apps.compactMap { app in plan.slot(for: app.id).map { (app.id, $0) } })
        events += interAppAudioChanges(to: newGraph, at: time)
        graph = newGraph
        events += endDisallowedConnections(at: time)
        push(starting: fresh)
        do {
            try install()
        } catch {
            (policy, graph, slots, hostsOfNode, graphAwaitingInstall) = saved
            push()
            throw error
        }
        return (events, setups)
    }

    /// The next time the policy needs the clock (a background task's warning or expiry).
    public var nextDeadline: Double? { policy.nextDeadline }

    /// Whether node `app` is connected to a host now.
    public func isInterAppConnected(_ app: String) -> Bool { !(hostsOfNode[app] ?? []).isEmpty }

    /// `reasons` ("NODE HOST" → why) explains disconnections the engine made itself.
    private func interAppAudioChanges(to newGraph: Graph, at time: Double, reasons: [String: String] = [:]) -> [SessionEvent] {
        var events: [SessionEvent] = []
        for (index, app) in newGraph.apps.enumerated() where app.role == .node {
            let before = hostsOfNode[app.id] ?? []
            let after = InterAppAudioRules.hosts(of: index, in: newGraph).map { newGraph.apps[$0].id }
            for host in after where !before.contains(host) {
                events += [SessionEvent(app: app.id, kind: .nodeConnected(peer: host), time: time),
                           SessionEvent(app: host, kind: .nodeConnected(peer: app.id), time: time)]
            }
            for host in before where !after.contains(host) {
                let reason = reasons["\(app.id) \(host)"]
                events += [SessionEvent(app: app.id, kind: .nodeDisconnected(peer: host, reason: reason), time: time),
                           SessionEvent(app: host, kind: .nodeDisconnected(peer: app.id, reason: reason), time: time)]
            }
            let needsSession = app.session != nil && InterAppAudioRules.nodeNeedsSession(index, in: newGraph)
            if before.isEmpty && !after.isEmpty && needsSession {
                events += policy.apply(.activate(app: app.id), at: time).events
            } else if !before.isEmpty && after.isEmpty && app.session != nil {
                events += policy.apply(.deactivate(app: app.id, options: []), at: time).events
            }
            hostsOfNode[app.id] = after
        }
        return events
    }

    /// A satellite's mirrored app whose gain the primary decides (docs/links.md): it replaces
    /// this engine's own decision for that app until ``leavePrimary()``.
    func followPrimary(_ app: String, gain: Float) {
        guard primaryGains[app] != gain else { return }
        primaryGains[app] = gain
        push()
    }

    /// The gain the primary decided for `app`, while it decides for it.
    func primaryGain(of app: String) -> Float? { primaryGains[app] }

    /// The primary is gone: this engine's own decisions apply again.
    func leavePrimary() {
        guard !primaryGains.isEmpty else { return }
        primaryGains = [:]
        push()
    }

    /// Hands the current decision to the audio thread. A connected node that needs no session
    /// of its own is rendered by its host (unity, running); a node without a host is stopped.
    private func push(startingAt start: Bool = false, starting fresh: Set<String> = []) {
        var gains: [String: (gain: Float, suspended: Bool, hears: Bool)] = [:]
        for state in policy.states {
            gains[state.id] = (primaryGains[state.id] ?? state.gain, state.suspended, policy.hearsInput(state.id))
        }
        for (index, app) in graph.apps.enumerated() where app.role == .node {
            if !isInterAppConnected(app.id) {
                gains[app.id] = (0, true, false)
            } else if !InterAppAudioRules.nodeNeedsSession(index, in: graph) {
                gains[app.id] = (1, false, gains[app.id]?.hears ?? true)
            }
        }
        for (id, decision) in gains {
            guard let slot = slots[id] else { continue }
            if start || fresh.contains(id) { slot.startPolicyGain(at: decision.gain) } else { slot.setPolicyGain(decision.gain) }
            slot.setSuspended(decision.suspended)
            slot.setHearsOutsideInput(decision.hears)
        }
    }
}
