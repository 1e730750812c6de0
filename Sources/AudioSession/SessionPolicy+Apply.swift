/// Applying actions: the clock first, then the action on a copy that is kept only when the
/// action is accepted (or is `isBusy`, which changes state by design, rule 6).
extension SessionPolicy {
    /// Advances the clock to `time` (an earlier time counts as now; `advanceTime` goes to the
    /// later of the two), delivering what the clock caused, then applies the action. A refused action leaves everything but the clock as it was.
    public mutating func apply(_ action: SessionAction, at time: Double) -> SessionOutcome {
        var target = time
        if case .advanceTime(let to) = action, to > target { target = to }
        var events = advanceClock(to: target)
        var next = self
        let (error, warnings) = next.perform(action)
        if let error, error.code != .isBusy {
            return SessionOutcome(error: error, events: events, warnings: warnings)
        }
        events += next.drain(actor: action.app)
        self = next
        return SessionOutcome(error: error, events: events, warnings: warnings)
    }

    /// Fires every background-task deadline up to `target`, each batch at its own time.
    mutating func advanceClock(to target: Double) -> [SessionEvent] {
        let target = target > time ? target : time
        var events: [SessionEvent] = []
        if target > time, turnApp != nil {
            // Time passes: the app whose turn it was is now subject to suspension, at its own time.
            turnApp = nil
            let heard = audibleNonMixable()
            settle()
            emitSilenceHints(before: heard)
            events += drain(actor: nil)
        }
        while let deadline = nextDeadline, deadline <= target {
            if deadline > time { time = deadline }
            let heard = audibleNonMixable()
            settle()
            emitSilenceHints(before: heard)
            events += drain(actor: nil)
        }
        time = target
        return events
    }

    /// The action itself, followed by what every step re-establishes (`settle`) and the hints.
    mutating func perform(_ action: SessionAction) -> (SessionError?, [String]) {
        if let app = action.app, index(of: app) == nil {
            return (SessionError(.unknownApp, app: app,
                                 "no app \"\(app)\" has a session (apps: \(apps.map(\.id).joined(separator: ", ")))"), [])
        }
        if case .advanceTime = action { turnApp = nil } else { turnApp = action.app }
        let heard = audibleNonMixable()
        let (error, warnings) = dispatch(action)
        if let error, error.code != .isBusy { return (error, warnings) }
        settle()
        emitSilenceHints(before: heard)
        return (error, warnings)
    }

    /// `perform` has checked the app exists, so `i` is its index for every action about an app.
    private mutating func dispatch(_ action: SessionAction) -> (SessionError?, [String]) {
        let i = action.app.flatMap(index(of:)) ?? 0
        switch action {
        case .setCategory(_, let category, let mode, let options):
            return setCategory(i, category, mode, options)
        case .activate:
            return (activate(i), [])
        case .deactivate(_, let options):
            return (deactivate(i, options), [])
        case .foreground:
            return (nil, bringToForeground(i))
        case .background:
            sendToBackground(i)
        case .beginBackgroundTask:
            return (nil, beginBackgroundTask(i))
        case .endBackgroundTask:
            endBackgroundTask(i)
        case .startAudio(_, let recording):
            return (startAudio(i, recording: recording), [])
        case .stopAudio:
            stopAudio(i)
        case .terminate:
            // Apple ends a terminated app's session; that the apps it interrupted may resume is
            // our choice where Apple is silent (nobody is left to deactivate without notifying).
            stopAudio(i)
            _ = deactivate(i, [.notifyOthersOnDeactivation])
        case .interrupt(let type, let reason):
            systemInterrupt(type, reason)
        case .device(let silent, let locked):
            setDevice(silent: silent, locked: locked)
        case .route(let available):
            setRoute(available: available)
        case .advanceTime:
            break
        }
        return (nil, [])
    }

    /// What holds after every step: due deadlines fired, stranded background apps suspended,
    /// the Now Playing app noted.
    mutating func settle() {
        fireDueDeadlines()
        suspendStrandedApps()
        if let i = apps.indices.first(where: { apps[$0].setup.foreground }) {
            let record = apps[i]
            if record.active && record.playing && !record.isMixable && record.category.hasOutput {
                nowPlayingApp = record.id
            }
        }
    }

    /// Hands out the step's events: the acting app's first, then the others in `apps` order;
    /// each app's own events keep the order they happened in.
    mutating func drain(actor: String?) -> [SessionEvent] {
        func rank(_ app: String) -> Int {
            if app == actor { return -1 }
            return index(of: app) ?? apps.count
        }
        let ordered = outbox.enumerated()
            .sorted { (rank($0.element.app), $0.offset) < (rank($1.element.app), $1.offset) }
            .map(\.element)
        outbox = []
        return ordered
    }
}
