import AudioGraph
import GraphFormat
import AudioSession
import NodeKit
import OfflineBackend

/// Applies a timeline's actions, and the engine's own deadlines (background tasks, the end of a
/// disconnection's fade), at exact frames while an offline render runs, and logs every action,
/// event and resulting state.
struct Scenario {
    let entries: [TimelineEntry]
    let sessions: SessionController
    let backend: OfflineBackend
    let builder: PlanBuilder
    var log: SessionLog
    private var next = 0
    /// A graph whose plan waits for a disconnected node to fade out, and when it may be installed.
    private var pendingGraph: (time: Double, graph: Graph)?

    init(entries: [TimelineEntry], sessions: SessionController, backend: OfflineBackend, builder: PlanBuilder,
         log: SessionLog) {
        self.entries = entries
        self.sessions = sessions
        self.backend = backend
        self.builder = builder
        self.log = log
    }

    private var sampleRate: Double { log.sampleRate }

    private func frame(of time: Double) -> Int { Int((time * sampleRate).rounded()) }

    /// The state at frame 0, after the events starting the graph caused (node connections).
    mutating func logStart(_ events: [SessionEvent]) {
        log.events(events, frame: 0)
        log.state(sessions.policy, frame: 0)
    }

    /// The next moment the engine itself must act.
    private var nextDeadline: Double? {
        [sessions.nextDeadline, pendingGraph?.time].compactMap { $0 }.min()
    }

    /// Applies every action and deadline due at `frame`, in time order.
    mutating func applyDue(atFrame frame: Int) throws {
        while true {
            let entryFrame = next < entries.count ? self.frame(of: entries[next].time) : nil
            if let deadline = nextDeadline, self.frame(of: deadline) <= frame,
               entryFrame.map({ self.frame(of: deadline) <= $0 }) ?? true {
                try reachDeadline(deadline, frame: frame)
                continue
            }
            guard let entryFrame, entryFrame <= frame else { return }
            let entry = entries[next]
            next += 1
            try apply(entry, frame: frame)
            if next == entries.count || self.frame(of: entries[next].time) > frame {
                endTurn(at: entry.time, frame: frame)
            }
        }
    }

    private mutating func reachDeadline(_ time: Double, frame: Int) throws {
        if let pending = pendingGraph, pending.time <= time {
            pendingGraph = nil
            try install(pending.graph)
        }
        guard let deadline = sessions.nextDeadline, deadline <= time else { return }
        let outcome = sessions.apply(.advanceTime(to: deadline), at: deadline)
        awaitInstall(at: deadline)
        if !outcome.events.isEmpty {
            log.events(outcome.events, frame: frame)
            log.state(sessions.policy, frame: frame)
        }
        // A deadline the policy did not consume would repeat forever.
        precondition(sessions.nextDeadline != deadline, "the session policy kept a deadline it had reached")
    }

    private mutating func apply(_ entry: TimelineEntry, frame: Int) throws {
        switch entry.action {
        case .session(let action):
            let outcome = sessions.apply(action, at: entry.time)
            awaitInstall(at: entry.time)
            log.action(entry.sourceJSON, outcome: outcome, frame: frame)
            log.events(outcome.events, frame: frame)
        case .midi(let app, let bytes):
            let event = MIDIEvent(frame: 0, status: bytes.first ?? 0, data1: bytes.count > 1 ? bytes[1] : 0,
                                  data2: bytes.count > 2 ? bytes[2] : 0, size: UInt8(bytes.count))
            backend.injectMIDI(event, app: app)
            log.action(entry.sourceJSON, error: nil, frame: frame)
        case .transport(let playing):
            backend.setPlaying(playing)
            log.action(entry.sourceJSON, error: nil, frame: frame)
        case .setParameter(let app, let index, let value):
            backend.exchange.currentPlan?.slot(for: app)?.setParameter(index, to: value)
            log.action(entry.sourceJSON, error: nil, frame: frame)
        case .connect(let connection):
            switch sessions.graph.connecting(connection, live: sessions.policy) {
            case .success(let graph):
                try install(graph)
                log.action(entry.sourceJSON, error: nil, frame: frame)
                log.events(sessions.graphChanged(to: graph, at: entry.time), frame: frame)
                awaitInstall(at: entry.time)
            case .failure(let error):
                log.action(entry.sourceJSON, error: Self.refusal(error), frame: frame)
            }
        case .disconnect(let from, let to):
            switch sessions.graph.disconnecting(from: from, to: to) {
            case .success(let graph):
                log.action(entry.sourceJSON, error: nil, frame: frame)
                // The node fades out over the ramp first; the plan without it follows.
                log.events(sessions.graphChanged(to: graph, at: entry.time), frame: frame)
                _ = sessions.takeGraphAwaitingInstall()
                pendingGraph = (entry.time + graph.policy.rampSeconds, sessions.graph)
            case .failure(let error):
                log.action(entry.sourceJSON, error: Self.refusal(error), frame: frame)
            }
        }
        log.state(sessions.policy, frame: frame)
    }

    /// Compiles `graph` (reusing every running node) and installs it.
    private func install(_ graph: Graph) throws {
        let plan = try builder.plan(for: graph)
        sessions.attach(plan, initial: false)
        backend.install(plan)
    }

    /// A refused graph change in the log's terms, with AVAudioSession's codes for Inter-App Audio.
    static func refusal(_ error: GraphEditError) -> (code: String, fourCC: String, message: String) {
        let fourCC: String
        switch error.code {
        case .missingEntitlement: fourCC = SessionError.Code.missingEntitlement.fourCC
        case .incompatibleCategory: fourCC = SessionError.Code.incompatibleCategory.fourCC
        default: fourCC = ""
        }
        return (error.code.rawValue, fourCC, error.hint.map { "\(error.message); \($0)" } ?? error.message)
    }

    /// Inter-App Audio connections the sessions no longer allow were ended: their nodes fade out
    /// over the ramp, then the plan without them is installed (as for a disconnection).
    private mutating func awaitInstall(at time: Double) {
        guard let graph = sessions.takeGraphAwaitingInstall() else { return }
        pendingGraph = (time + graph.policy.rampSeconds, graph)
    }

    /// The actions at this instant are done: what they leave stranded is suspended now.
    private mutating func endTurn(at time: Double, frame: Int) {
        let outcome = sessions.apply(.advanceTime(to: time), at: time)
        awaitInstall(at: time)
        guard !outcome.events.isEmpty else { return }
        log.events(outcome.events, frame: frame)
        log.state(sessions.policy, frame: frame)
    }

    /// Frames from `frame` to the next action or deadline (Int.max when none), so a cycle ends
    /// exactly where the next change must apply.
    func framesUntilNext(from frame: Int) -> Int {
        var nextFrame = Int.max
        if next < entries.count { nextFrame = self.frame(of: entries[next].time) }
        if let deadline = nextDeadline { nextFrame = min(nextFrame, self.frame(of: deadline)) }
        return nextFrame > frame ? nextFrame - frame : Int.max
    }
}
