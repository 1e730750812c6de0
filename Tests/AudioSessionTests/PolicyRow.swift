import AudioSession

/// One row of the policy table: the apps, what happened before, the action, and what must hold.
struct PolicyRow: Sendable, CustomStringConvertible {
    var name: String
    /// The words of Apple's documentation the row checks, where a rule rests on a sentence.
    var quote: String?
    var apps: [AppSessionSetup]
    var configuration = PolicyConfiguration()
    /// Applied in order at the policy's current time; each must be accepted.
    var given: [SessionAction] = []
    var action: SessionAction
    /// When the action happens; nil for the policy's current time.
    var at: Double?
    /// The refusal expected, nil for ok.
    var error: SessionError.Code?
    /// Exactly the events expected, in delivery order; nil when a row does not look at them.
    var events: [ExpectedEvent]? = []
    var checks: [Check] = []

    var description: String { name }

    init(name: String, quote: String? = nil, apps: [AppSessionSetup], configuration: PolicyConfiguration = .init(),
         given: [SessionAction] = [], action: SessionAction, at: Double? = nil, error: SessionError.Code? = nil,
         events: [ExpectedEvent]? = [], checks: [Check] = []) {
        self.name = name
        self.quote = quote
        self.apps = apps
        self.configuration = configuration
        self.given = given
        self.action = action
        self.at = at
        self.error = error
        self.events = events
        self.checks = checks
    }

    /// The policy after `given`; with `advancing`, the clock is already at the action's time, so
    /// that what the action alone changes can be compared.
    func prepared(advancing: Bool) -> (SessionPolicy, [String]) {
        var policy = SessionPolicy(apps: apps, configuration: configuration)
        var failures = policy.startupErrors.map { "startup refused: \($0)" }
        for step in given {
            let outcome = policy.apply(step, at: policy.time)
            if let error = outcome.error { failures.append("given \(step) refused: \(error)") }
        }
        if advancing { _ = policy.apply(.advanceTime(to: at ?? policy.time), at: at ?? policy.time) }
        return (policy, failures)
    }

    /// Runs the row: the prepared policy, the outcome of the action, and the policy after it.
    func run(advancing: Bool = false)
        -> (before: SessionPolicy, outcome: SessionOutcome, after: SessionPolicy, failures: [String]) {
        var (policy, failures) = prepared(advancing: advancing)
        let before = policy
        let outcome = policy.apply(action, at: at ?? policy.time)
        return (before, outcome, policy, failures)
    }

    /// Everything that does not hold, as readable lines.
    func failures() -> [String] {
        let (_, outcome, policy, setupFailures) = run()
        var failures = setupFailures
        if outcome.error?.code != error {
            failures.append("error: expected \(error?.rawValue ?? "ok"), got \(outcome.error.map(String.init(describing:)) ?? "ok")")
        }
        if let events {
            let got = outcome.events.map { ExpectedEvent(app: $0.app, kind: $0.kind) }
            if got != events { failures.append("events: expected \(events), got \(got)") }
        }
        failures += checks.compactMap { $0.failure(policy, outcome) }
        return failures
    }
}

/// An event as a row expects it: who gets what (its time is checked with `Check.eventTimes`).
struct ExpectedEvent: Sendable, Equatable, CustomStringConvertible {
    var app: String
    var kind: SessionEvent.Kind

    var description: String { "\(app): \(kind)" }

    static func began(_ app: String, _ reason: InterruptionReason = .default) -> Self {
        .init(app: app, kind: .interruption(type: .began, reason: reason, shouldResume: false,
                                            wasSuspended: reason == .appWasSuspended))
    }
    static func ended(_ app: String, resume: Bool, _ reason: InterruptionReason = .default) -> Self {
        .init(app: app, kind: .interruption(type: .ended, reason: reason, shouldResume: resume, wasSuspended: false))
    }
    static func suspended(_ app: String) -> Self { .init(app: app, kind: .suspended) }
    static func resumed(_ app: String) -> Self { .init(app: app, kind: .resumed) }
    static func willExpire(_ app: String) -> Self { .init(app: app, kind: .backgroundTaskWillExpire) }
    static func route(_ app: String, _ reason: RouteChangeReason) -> Self {
        .init(app: app, kind: .routeChange(reason: reason))
    }
    static func hint(_ app: String, _ type: InterruptionType) -> Self {
        .init(app: app, kind: .silenceSecondaryAudioHint(type: type))
    }
    /// What suspension of an app with an active session delivers.
    static func suspendedWhileActive(_ app: String) -> [Self] { [.began(app, .appWasSuspended), .suspended(app)] }
}

/// A setup with short names for what the rows vary.
func app(_ id: String, _ category: SessionCategory = .soloAmbient, mode: SessionMode = .default,
         options: Set<SessionOption> = [], active: Bool = false, fg: Bool = false, audio: Bool = false,
         grants: Set<Entitlement> = [], requests: Set<Entitlement> = [], interAppAudio: Bool = false,
         resumes: Bool = true) -> AppSessionSetup {
    AppSessionSetup(id: id, category: category, mode: mode, options: options, active: active,
                    backgroundModes: audio ? [.audio] : [], entitlements: grants, foreground: fg,
                    isInterAppAudio: interAppAudio, requestedEntitlements: requests, resumesAfterInterruption: resumes)
}
