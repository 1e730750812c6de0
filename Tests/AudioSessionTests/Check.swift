import AudioSession

/// Something a row expects of the policy after its action.
enum Check: Sendable {
    case gain(String, Float)
    case active(String, Bool)
    case playing(String, Bool)
    case recording(String, Bool)
    case suspended(String, Bool)
    case interrupted(String, Bool)
    case foreground(String, Bool)
    case ducked(String, Bool)
    case otherAudioPlaying(String, Bool)
    case secondaryHint(String, Bool)
    case remaining(String, Double?)
    case hearsInput(String, Bool)
    case options(String, Set<SessionOption>)
    case effectiveMode(String, SessionMode)
    case nowPlaying(String?)
    case deadline(Double?)
    case time(Double)
    case eventTimes([Double])
    /// Some warning contains this text.
    case warning(String)
    case noWarnings
    /// The error's message contains this text.
    case message(String)

    func failure(_ policy: SessionPolicy, _ outcome: SessionOutcome) -> String? {
        switch self {
        case .gain(let app, let want): return field(policy, app, "gain", want) { $0.gain }
        case .active(let app, let want): return field(policy, app, "active", want) { $0.active }
        case .playing(let app, let want): return field(policy, app, "playing", want) { $0.playing }
        case .recording(let app, let want): return field(policy, app, "recording", want) { $0.recording }
        case .suspended(let app, let want): return field(policy, app, "suspended", want) { $0.suspended }
        case .interrupted(let app, let want): return field(policy, app, "interrupted", want) { $0.interrupted }
        case .foreground(let app, let want): return field(policy, app, "foreground", want) { $0.foreground }
        case .ducked(let app, let want): return field(policy, app, "ducked", want) { $0.ducked }
        case .otherAudioPlaying(let app, let want):
            return field(policy, app, "otherAudioPlaying", want) { $0.otherAudioPlaying }
        case .secondaryHint(let app, let want):
            return field(policy, app, "secondaryAudioShouldBeSilencedHint", want) { $0.secondaryAudioShouldBeSilencedHint }
        case .remaining(let app, let want):
            return field(policy, app, "backgroundTimeRemaining", want) { $0.backgroundTimeRemaining }
        case .options(let app, let want): return field(policy, app, "options", want) { $0.options }
        case .effectiveMode(let app, let want): return field(policy, app, "effectiveMode", want) { $0.effectiveMode }
        case .hearsInput(let app, let want):
            return policy.hearsInput(app) == want ? nil : "hearsInput(\(app)): expected \(want)"
        case .nowPlaying(let want):
            return policy.nowPlayingApp == want ? nil : "nowPlayingApp: expected \(want ?? "nil"), got \(policy.nowPlayingApp ?? "nil")"
        case .deadline(let want):
            return policy.nextDeadline == want ? nil : "nextDeadline: expected \(String(describing: want)), got \(String(describing: policy.nextDeadline))"
        case .time(let want): return policy.time == want ? nil : "time: expected \(want), got \(policy.time)"
        case .eventTimes(let want):
            let got = outcome.events.map(\.time)
            return got == want ? nil : "event times: expected \(want), got \(got)"
        case .warning(let text):
            return outcome.warnings.contains { $0.contains(text) } ? nil : "no warning contains \"\(text)\": \(outcome.warnings)"
        case .noWarnings: return outcome.warnings.isEmpty ? nil : "unexpected warnings: \(outcome.warnings)"
        case .message(let text):
            return outcome.error?.message.contains(text) == true ? nil
                : "error message lacks \"\(text)\": \(outcome.error?.message ?? "no error")"
        }
    }

    private func field<Value: Equatable>(_ policy: SessionPolicy, _ app: String, _ name: String, _ want: Value,
                                         _ read: (AppSessionState) -> Value) -> String? {
        guard let state = policy.state(of: app) else { return "no app \(app)" }
        let got = read(state)
        return got == want ? nil : "\(app).\(name): expected \(want), got \(got)"
    }
}
