/// Apps joining and leaving a running policy: the programs a graph admits without naming them
/// (docs/programs.md, "Admitting programs the graph does not name"). Every other app keeps its
/// session exactly as it is; only what the newcomer's own rules cause reaches the others.
extension SessionPolicy {
    /// Adds an app at `time` as `init` starts every app: with the default session, in the
    /// background (the foreground is one app, and an app that arrives at any moment must not take
    /// it), then its category, then its activation when the setup says `active`. The outcome's
    /// error is a refusal of that category or activation (the app is added all the same, with
    /// its session inactive, as a graph's app whose activation was refused at start).
    public mutating func admit(_ setup: AppSessionSetup, at time: Double) -> SessionOutcome {
        precondition(index(of: setup.id) == nil, "app \(setup.id) has a session already")
        var events = advanceClock(to: time)
        var start = setup
        start.category = .default
        start.mode = .default
        start.options = []
        start.active = false
        start.foreground = false
        apps.append(AppRecord(setup: start))
        var error: SessionError?
        var warnings: [String] = []
        func take(_ outcome: SessionOutcome) {
            events += outcome.events
            warnings += outcome.warnings
            error = error ?? outcome.error
        }
        if setup.category != .default || setup.mode != .default || !setup.options.isEmpty {
            take(apply(.setCategory(app: setup.id, category: setup.category, mode: setup.mode, options: setup.options), at: time))
        }
        if setup.active, error == nil { take(apply(.activate(app: setup.id), at: time)) }
        // Ends the newcomer's turn: a background app nothing started is suspended now, as after
        // any step.
        take(apply(.advanceTime(to: time), at: time))
        return SessionOutcome(error: error, events: events, warnings: warnings)
    }

    /// Removes an app whose process is gone: first `terminate` (its audio stops, its session
    /// ends and the apps it interrupted are told, with `shouldResume`), then interruptions it
    /// still holds are ended as well, since nobody is left to end them, and it is forgotten.
    /// The events are the others' (the app itself is gone; its own are dropped).
    public mutating func remove(_ app: String, at time: Double) -> [SessionEvent] {
        guard index(of: app) != nil else { return [] }
        var events = apply(.terminate(app: app), at: time).events
        guard let i = index(of: app) else { return events }
        let heard = audibleNonMixable()
        endInterruptions(by: .app(app), shouldResume: true, reason: .default)
        apps.remove(at: i)
        if nowPlayingApp == app { nowPlayingApp = nil }
        if foregroundBeforeLock == app { foregroundBeforeLock = nil }
        if turnApp == app { turnApp = nil }
        settle()
        emitSilenceHints(before: heard.subtracting([app]))
        events += drain(actor: nil)
        return events.filter { $0.app != app }
    }
}
