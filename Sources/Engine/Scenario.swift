import GraphFormat
import AudioSession

/// Applies a timeline's commands, and the engine's own deadlines (background tasks, the end of a
/// disconnection's fade), at exact frames while an offline render runs, and logs every command,
/// event and resulting state.
struct Scenario {
    let entries: [TimelineEntry]
    let engine: OfflineEngine
    var log: SessionLog
    private var next = 0

    init(entries: [TimelineEntry], engine: OfflineEngine, log: SessionLog) {
        self.entries = entries
        self.engine = engine
        self.log = log
    }

    private var sessions: AudioSessionController { engine.sessions }

    private var sampleRate: Double { log.sampleRate }

    private func frame(of time: Double) -> Int { Int((time * sampleRate).rounded()) }

    /// The state at frame 0, after the events starting the graph caused (node connections).
    mutating func logStart() {
        log.events(engine.startEvents, frame: 0)
        log.state(sessions.policy, frame: 0)
    }

    /// The next moment the engine itself must act.
    private var nextDeadline: Double? {
        [sessions.nextDeadline, engine.pendingGraph?.time].compactMap { $0 }.min()
    }

    /// Applies every command and deadline due at `frame`, in time order.
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
        try engine.installPendingGraph(by: time)
        guard let deadline = sessions.nextDeadline, deadline <= time else { return }
        let outcome = engine.applySession(.advanceTime(to: deadline), at: deadline)
        if !outcome.events.isEmpty {
            log.events(outcome.events, frame: frame)
            log.state(sessions.policy, frame: frame)
        }
        // A deadline the policy did not consume would repeat forever.
        precondition(sessions.nextDeadline != deadline, "the session policy kept a deadline it had reached")
    }

    private mutating func apply(_ entry: TimelineEntry, frame: Int) throws {
        let outcome = try engine.perform(entry.action, at: entry.time)
        log.action(entry.sourceJSON, error: outcome.refusal?.logEntry, warnings: outcome.warnings, frame: frame)
        log.events(outcome.events, frame: frame)
        log.state(sessions.policy, frame: frame)
    }

    /// The commands at this instant are done: what they leave stranded is suspended now.
    private mutating func endTurn(at time: Double, frame: Int) {
        let outcome = engine.applySession(.advanceTime(to: time), at: time)
        guard !outcome.events.isEmpty else { return }
        log.events(outcome.events, frame: frame)
        log.state(sessions.policy, frame: frame)
    }

    /// Frames from `frame` to the next command or deadline (Int.max when none), so a cycle ends
    /// exactly where the next change must apply.
    func framesUntilNext(from frame: Int) -> Int {
        var nextFrame = Int.max
        if next < entries.count { nextFrame = self.frame(of: entries[next].time) }
        if let deadline = nextDeadline { nextFrame = min(nextFrame, self.frame(of: deadline)) }
        return nextFrame > frame ? nextFrame - frame : Int.max
    }
}
