import AudioGraph
import RenderCore
import AudioSession
import NodeKit

/// Where commands are performed: a running engine's sessions and backend, live (``EngineCore``
/// on JACK) or offline (``OfflineEngine`` under a timeline). What differs between the two is
/// only what this protocol asks: how a changed graph is installed (live, the node factory follows
/// the graph), how the engine waits for a fade (a timer live, a frame offline), and what only a
/// JACK client with programs keeps around an applied graph.
protocol CommandHost: AnyObject {
    var sessions: AudioSessionController { get }
    var controlBackend: any ControlBackend { get }
    /// Installs a changed graph (``PlanInstall`` with `.adopt`, or `.replace` without
    /// `sameSessions`) and returns the session events the change caused.
    func install(_ graph: Graph, sameSessions: Bool, at time: Double) throws -> [SessionEvent]
    /// Installs `graph` once the nodes it no longer renders have faded out: the graph's gain ramp
    /// after `time`.
    func installAfterFade(_ graph: Graph, at time: Double)
    /// Outside ports are about to be connected or disconnected at the command's request (live,
    /// the engine attributes the connection notification to itself and holds rule connections).
    func willConnectPorts(_ pair: PortPair)
    func willDisconnectPorts(_ pair: PortPair)
    /// The graph an `apply` of `graph` installs, and the apps it drops: live, apps admitted under
    /// `programs.admit` are in no file, so they carry over while the new graph still admits them.
    func carryingAdmitted(into graph: Graph) -> (graph: Graph, dropped: [String])
    /// `graph` is about to replace the running one: live, the outside connections it no longer
    /// names are broken, resolved against the running graph and the ports present now.
    func willApply(_ graph: Graph)
    /// `graph` replaced the running one, causing `events`: live, the events are published first
    /// (what follows is reported after them), then programs, library watching and the graph's
    /// connection rules follow it. Returns the warnings about its rules.
    func didApply(_ graph: Graph, diff: GraphDiff, events: [SessionEvent], droppedAdmitted: [String]) -> [String]
}

extension CommandHost {
    /// Performs `command` at `time` (seconds on the engine's clock): the one way a change reaches
    /// a running engine, from a request, a timeline or a test. A refusal is in the outcome; only a
    /// plan that cannot be built or installed throws.
    func perform(_ command: EngineCommand, at time: Double) throws -> CommandOutcome {
        switch command {
        case .session(let action):
            let outcome = applySession(action, at: time)
            return CommandOutcome(refusal: outcome.error.map(CommandRefusal.session), events: outcome.events,
                                  warnings: outcome.warnings)
        case .midi(let app, let bytes):
            // A message to an app whose input no plan reads is dropped, as on a MIDI cable to nothing.
            controlBackend.injectMIDI(MIDIEvent(frame: 0, status: bytes.first ?? 0, data1: bytes.count > 1 ? bytes[1] : 0,
                                                data2: bytes.count > 2 ? bytes[2] : 0, size: UInt8(bytes.count)), app: app)
        case .transport(let playing):
            controlBackend.setPlaying(playing)
        case .setParameter(let app, let index, let value):
            controlBackend.currentPlan?.slot(for: app)?.setParameter(index, to: value)
            sessions.parameterSet(index, ofApp: app, to: value)
        case .connect(let connections):
            let edited: Graph
            switch sessions.graph.connecting(connections, live: sessions.policy) {
            case .success(let next): edited = next
            case .failure(let error): return .refused(.connect(error))
            }
            let events = try install(edited, sameSessions: true, at: time)
            installAwaitingGraph(at: time)
            return CommandOutcome(events: events)
        case .disconnect(let connections):
            let edited: Graph
            switch sessions.graph.disconnecting(connections) {
            case .success(let next): edited = next
            case .failure(let error): return .refused(.disconnect(error))
            }
            // A node losing its last host fades out first; the plan without the connection follows.
            let events = sessions.graphChanged(to: edited, at: time)
            _ = sessions.takeGraphAwaitingInstall()
            installAfterFade(sessions.graph, at: time)
            return CommandOutcome(events: events)
        case .connectPorts(let pairs):
            var already: [Bool] = []
            for pair in pairs {
                willConnectPorts(pair)
                switch controlBackend.connectPorts(pair) {
                case .connected: already.append(false)
                case .alreadyConnected: already.append(true)
                case .failed(let why): return .refused(.portsRefused(pair, reason: why))
                }
            }
            return CommandOutcome(alreadyConnected: already)
        case .disconnectPorts(let pairs):
            for pair in pairs {
                willDisconnectPorts(pair)
                guard controlBackend.disconnectPorts(pair) else { return .refused(.portsNotConnected(pair)) }
            }
        case .apply(let applied):
            return try apply(applied.graph, at: time)
        }
        return CommandOutcome()
    }

    /// Swaps `fileGraph` in for the running graph, keeping every unchanged app's node (its phase
    /// and state). Sessions are kept when the graph's own apps keep theirs; admitted apps come and
    /// go with their sessions either way (`AudioSessionController.adopt`).
    private func apply(_ fileGraph: Graph, at time: Double) throws -> CommandOutcome {
        let old = sessions.graph
        let (graph, droppedAdmitted) = carryingAdmitted(into: fileGraph)
        let diff = GraphDiff(old: old, new: graph)
        willApply(graph)
        let named = { (graph: Graph) in graph.apps.filter { $0.program?.admitted != true } }
        let sameSessions = named(old).map(\.id) == named(graph).map(\.id) && named(old).map(\.session) == named(graph).map(\.session)
        let events = try install(graph, sameSessions: sameSessions, at: time)
        let warnings = didApply(graph, diff: diff, events: events, droppedAdmitted: droppedAdmitted)
        return CommandOutcome(events: events, warnings: warnings, diff: diff)
    }

    /// Applies a session action (from a command, the clock or a route change), then ends what
    /// Inter-App Audio no longer allows: the nodes fade out and the plan without them follows.
    func applySession(_ action: SessionAction, at time: Double) -> SessionOutcome {
        let outcome = sessions.apply(action, at: time)
        installAwaitingGraph(at: time)
        return outcome
    }

    /// Installs the graph the session controller left waiting, once its nodes have faded out.
    func installAwaitingGraph(at time: Double) {
        guard let graph = sessions.takeGraphAwaitingInstall() else { return }
        installAfterFade(graph, at: time)
    }
}
