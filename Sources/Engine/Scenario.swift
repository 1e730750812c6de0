import AudioGraph
import AudioSession

/// Applies a timeline's session actions, and the policy's own deadlines, at exact frames while an
/// offline render runs, and logs every action, event and resulting state.
struct Scenario {
    let entries: [TimelineEntry]
    let sessions: SessionController
    var log: SessionLog
    private var next = 0

    init(entries: [TimelineEntry], sessions: SessionController, log: SessionLog) {
        self.entries = entries
        self.sessions = sessions
        self.log = log
    }

    private var sampleRate: Double { log.sampleRate }

    private func frame(of time: Double) -> Int { Int((time * sampleRate).rounded()) }

    mutating func logInitialState() {
        log.state(sessions.policy, frame: 0)
    }

    /// Applies every action and deadline due at `frame`, in time order.
    mutating func applyDue(atFrame frame: Int) {
        while true {
            let deadline = sessions.nextDeadline.map { self.frame(of: $0) }
            let entryFrame = next < entries.count ? self.frame(of: entries[next].time) : nil
            if let deadline, deadline <= frame, entryFrame.map({ deadline <= $0 }) ?? true,
               let time = sessions.nextDeadline {
                let outcome = sessions.apply(.advanceTime(to: time), at: time)
                if !outcome.events.isEmpty {
                    log.events(outcome.events, frame: frame)
                    log.state(sessions.policy, frame: frame)
                }
                // A deadline the policy did not consume would repeat forever; the clock moved past it.
                if sessions.nextDeadline == time { break }
                continue
            }
            guard let entryFrame, entryFrame <= frame else { return }
            let entry = entries[next]
            next += 1
            switch entry.action {
            case .session(let action):
                let outcome = sessions.apply(action, at: entry.time)
                log.action(entry.sourceJSON, outcome: outcome, frame: frame)
                log.events(outcome.events, frame: frame)
                log.state(sessions.policy, frame: frame)
            }
            if next == entries.count || self.frame(of: entries[next].time) > frame {
                endTurn(at: entry.time, frame: frame)
            }
        }
    }

    /// The actions at this instant are done: what they leave stranded is suspended now.
    private mutating func endTurn(at time: Double, frame: Int) {
        let outcome = sessions.apply(.advanceTime(to: time), at: time)
        guard !outcome.events.isEmpty else { return }
        log.events(outcome.events, frame: frame)
        log.state(sessions.policy, frame: frame)
    }

    /// Frames from `frame` to the next action or deadline (Int.max when none), so a cycle ends
    /// exactly where the next change must apply.
    func framesUntilNext(from frame: Int) -> Int {
        var nextFrame = Int.max
        if next < entries.count { nextFrame = self.frame(of: entries[next].time) }
        if let deadline = sessions.nextDeadline { nextFrame = min(nextFrame, self.frame(of: deadline)) }
        return nextFrame > frame ? nextFrame - frame : Int.max
    }
}
