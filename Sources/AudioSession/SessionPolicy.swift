/// The audio-session policy of docs/session-policy.md as a pure value: actions in, decisions and
/// events out.
///
/// It owns no clock and no threads: the engine passes the time with every action and asks
/// `nextDeadline` when to call again, so the same actions always give the same events (the
/// timeline tests and `iaa render` rely on that).
public struct SessionPolicy: Sendable, Equatable {
    public let configuration: PolicyConfiguration
    /// Session clock in seconds; starts at 0 and never goes back.
    public internal(set) var time: Double = 0
    public internal(set) var device = DeviceState()
    /// The app whose non-mixable session most recently played while it was foreground (rule 2's
    /// exception); it stays the Now Playing app until another takes its place, as on iOS.
    public internal(set) var nowPlayingApp: String?
    /// What the setups asked for and the rules refused while the policy started (they start as
    /// if each app, in order, set its category and then activated).
    public internal(set) var startupErrors: [SessionError] = []
    /// Warnings from starting, such as a mode the category does not support.
    public internal(set) var startupWarnings: [String] = []

    var apps: [AppRecord]
    /// A system interruption (`interrupt began`) is under way.
    var systemInterruption = false
    /// The app that was foreground when the screen locked; unlocking brings it back (ours).
    var foregroundBeforeLock: String?
    /// Events of the step being processed; always empty between two `apply` calls.
    var outbox: [SessionEvent] = []
    /// The app whose turn it is: consecutive actions of one app at one instant are one turn, and
    /// an app is not suspended in the middle of its own turn (its code runs to completion, as on
    /// iOS), so `stopAudio` then `deactivate` with `notifyOthersOnDeactivation` works from the
    /// background. Another app's action, a moving clock or `advanceTime` ends the turn.
    var turnApp: String?

    /// Starts every app with the default session, then replays each setup through the rules in
    /// `apps` order: its category, mode and options, then its activation when it says `active`.
    /// Only the first app marked foreground is foreground (at most one is).
    public init(apps setups: [AppSessionSetup], configuration: PolicyConfiguration = .init()) {
        self.configuration = configuration
        var foregroundTaken = false
        apps = setups.map { setup in
            var start = setup
            start.category = .default
            start.mode = .default
            start.options = []
            start.active = false
            start.foreground = setup.foreground && !foregroundTaken
            foregroundTaken = foregroundTaken || start.foreground
            return AppRecord(setup: start)
        }
        for setup in setups {
            if setup.category != .default || setup.mode != .default || !setup.options.isEmpty {
                record(apply(.setCategory(app: setup.id, category: setup.category, mode: setup.mode,
                                          options: setup.options), at: 0))
            }
            if setup.active { record(apply(.activate(app: setup.id), at: 0)) }
        }
        // Background apps that nothing started are suspended now, as on any later step.
        record(apply(.advanceTime(to: 0), at: 0))
    }

    private mutating func record(_ outcome: SessionOutcome) {
        if let error = outcome.error { startupErrors.append(error) }
        startupWarnings += outcome.warnings
    }

    /// Every app, in the order the policy was given them.
    public var states: [AppSessionState] { apps.indices.map(state(at:)) }

    public func state(of app: String) -> AppSessionState? { index(of: app).map(state(at:)) }

    /// What an app's session is set to and whether it is active now, without the derived hearing
    /// (gains, ducking, hints) that `state(of:)` computes over every app: what rules that read the
    /// live session, such as Inter-App Audio's, need per connection.
    public func setting(of app: String) -> SessionSetting? {
        index(of: app).map { i in
            SessionSetting(category: apps[i].category, options: apps[i].setup.options, active: apps[i].active,
                           interrupted: apps[i].interruptedBy != nil)
        }
    }

    /// The next time a background task warns or expires, for the engine's clock.
    public var nextDeadline: Double? { apps.compactMap(deadline(of:)).min() }

    /// Whether the app's I/O hears real input: without the `microphone` grant, or while the
    /// microphone is muted, it records silence.
    public func hearsInput(_ app: String) -> Bool {
        guard let i = index(of: app) else { return false }
        let record = apps[i]
        return record.category.hasInput && record.setup.entitlements.contains(.microphone) && record.active
            && record.recording && !record.suspended && record.interruptedBy == nil && !device.microphoneMuted
    }

    func index(of app: String) -> Int? { apps.firstIndex { $0.id == app } }

    /// When the app's running background task next needs attention: its warning, then its expiry.
    func deadline(of record: AppRecord) -> Double? {
        guard record.taskRunning, let expiry = record.taskExpiry else { return nil }
        return record.taskWarned ? expiry : expiry - configuration.backgroundTaskWarningSeconds
    }
}
