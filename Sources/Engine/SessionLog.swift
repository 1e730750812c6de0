import AudioSession
import ControlSocket

/// The scenario log: one JSON object per line, in time order, each with `t` and `frame`, and one
/// of `action` (with `ok` and, on failure, `error`), `event` (Apple's payload) or `state`.
public struct SessionLog {
    public let sampleRate: Double
    public private(set) var lines: [String] = []

    public init(sampleRate: Double) {
        self.sampleRate = sampleRate
    }

    /// An action and its result; `error` is (code, four-character code, message) when refused.
    public mutating func action(_ source: String, error: (code: String, fourCC: String, message: String)?,
                                warnings: [String] = [], frame: Int) {
        var pairs = stamp(frame) + [("action", ControlJSON.verbatim(source)), ("ok", .bool(error == nil))]
        if let error {
            pairs.append(("error", .object([("code", .string(error.code)), ("fourcc", .string(error.fourCC)),
                                            ("message", .string(error.message))])))
        }
        if !warnings.isEmpty { pairs.append(("warnings", .array(warnings.map(ControlJSON.string)))) }
        lines.append(ControlJSON.object(pairs).text)
    }

    public mutating func events(_ events: [SessionEvent], frame: Int) {
        for event in events {
            lines.append(ControlJSON.object(stamp(frame) + [("event", Self.message(event).json)]).text)
        }
    }

    public mutating func state(_ policy: SessionPolicy, frame: Int) {
        let apps = policy.states.map { state in (state.id, Self.state(state)) }
        lines.append(ControlJSON.object(stamp(frame) + [("state", .object(apps))]).text)
    }

    private func stamp(_ frame: Int) -> [(String, ControlJSON)] {
        [("t", .number(Double(frame) / sampleRate)), ("frame", .number(Double(frame)))]
    }

    /// The protocol's message for an event, as Apple would deliver it: `interruption {type,
    /// options, reason}` and so on.
    static func message(_ event: SessionEvent) -> SessionEventMessage {
        var message = SessionEventMessage(app: event.app, name: event.name)
        switch event.kind {
        case .interruption(let type, let reason, let shouldResume, let wasSuspended):
            message.type = type.rawValue
            message.options = shouldResume ? ["shouldResume"] : []
            message.reason = reason.rawValue
            if wasSuspended { message.wasSuspended = true }
        case .routeChange(let reason):
            message.reason = reason.rawValue
        case .silenceSecondaryAudioHint(let type):
            // Apple's AVAudioSessionSilenceSecondaryAudioHintType is begin/end.
            message.type = type == .began ? "begin" : "end"
        case .nodeConnected(let peer):
            message.peer = peer
        case .nodeDisconnected(let peer, let reason):
            message.peer = peer
            message.reason = reason
        case .backgroundTaskWillExpire, .suspended, .resumed, .mediaServicesWereLost, .mediaServicesWereReset:
            break
        }
        return message
    }

    /// An app's session as `status` and `dump` show it: its state with its mode and options.
    static func status(_ state: AppSessionState) -> SessionStatus {
        var status = SessionStatus(category: state.category.rawValue, mode: state.mode.rawValue,
                                   options: state.options.map(\.rawValue).sorted())
        status.active = state.active
        status.audible = state.audible
        status.gain = Double(state.gain)
        status.ducked = state.ducked
        status.interrupted = state.interrupted
        status.suspended = state.suspended
        status.foreground = state.foreground
        status.playing = state.playing
        status.otherAudioPlaying = state.otherAudioPlaying
        status.secondaryAudioShouldBeSilencedHint = state.secondaryAudioShouldBeSilencedHint
        status.backgroundTimeRemaining = state.backgroundTimeRemaining
        return status
    }

    /// An app's session in an outcome, an event and the session log: as `status` shows it, less
    /// the mode and options, which those lines have never carried (scripts and scenario logs
    /// compare them as written).
    static func state(_ state: AppSessionState) -> ControlJSON {
        guard case .object(let members) = status(state).json else { return .null }
        return .object(members.filter { $0.0 != "mode" && $0.0 != "options" })
    }
}
