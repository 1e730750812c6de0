import CIAASession

/// A program's audio session in an iaa engine: the Swift face of `iaa_session.h`.
///
/// ```swift
/// let session = try ProgramSession(app: "nav") { event in print(event) }
/// try session.setCategory("playback", mode: "voicePrompt", options: [.duckOthers])
/// try session.setActive(true)
/// ```
/// Events arrive on the library's own thread, never on the caller's or the audio thread.
public final class ProgramSession: @unchecked Sendable {
    /// Category options, as AVAudioSession.CategoryOptions names them.
    public struct Options: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let mixWithOthers = Options(rawValue: UInt32(IAA_SESSION_OPTION_MIX_WITH_OTHERS))
        public static let duckOthers = Options(rawValue: UInt32(IAA_SESSION_OPTION_DUCK_OTHERS))
        public static let interruptSpokenAudioAndMixWithOthers =
            Options(rawValue: UInt32(IAA_SESSION_OPTION_INTERRUPT_SPOKEN_AUDIO_AND_MIX_WITH_OTHERS))
        public static let defaultToSpeaker = Options(rawValue: UInt32(IAA_SESSION_OPTION_DEFAULT_TO_SPEAKER))
    }

    /// What the engine tells the program.
    public enum Event: Sendable, Equatable {
        case interruptionBegan(reason: String)
        case interruptionEnded(shouldResume: Bool)
        case routeChange(reason: String)
        case silenceSecondaryAudioHint(begin: Bool)
        case mediaServicesWereLost
        case mediaServicesWereReset
        case other(name: String)
    }

    /// A refused call: Apple's result code (`'!int'` as an integer, -50) or the library's own
    /// negative code, and the engine's message.
    public struct Failure: Error, CustomStringConvertible {
        public let status: Int32
        public let message: String
        public var description: String { message }
    }

    private let handle: OpaquePointer
    private let box: Unmanaged<EventBox>

    private final class EventBox {
        let handler: @Sendable (Event) -> Void
        init(_ handler: @escaping @Sendable (Event) -> Void) { self.handler = handler }
    }

    /// Attaches to `app` through the engine at `socketPath` (nil: `$IAA_SOCKET` or the default).
    public init(app: String, socketPath: String? = nil, onEvent: @escaping @Sendable (Event) -> Void = { _ in }) throws {
        box = Unmanaged.passRetained(EventBox(onEvent))
        var session: OpaquePointer?
        var error = [CChar](repeating: 0, count: 1024)
        let status = iaa_session_open(app, socketPath, { event, user in
            guard let event, let user else { return }
            let box = Unmanaged<EventBox>.fromOpaque(user).takeUnretainedValue()
            box.handler(ProgramSession.event(event.pointee))
        }, box.toOpaque(), &session, &error, error.count)
        guard status == 0, let session else {
            box.release()
            throw Failure(status: status, message: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        handle = session
    }

    deinit {
        iaa_session_close(handle)
        box.release()
    }

    public func setCategory(_ category: String, mode: String? = nil, options: Options = []) throws {
        try check(iaa_session_set_category(handle, category, mode, options.rawValue))
    }

    public func setActive(_ active: Bool, notifyOthersOnDeactivation: Bool = false) throws {
        try check(iaa_session_set_active(handle, active, notifyOthersOnDeactivation ? UInt32(IAA_SESSION_NOTIFY_OTHERS_ON_DEACTIVATION) : 0))
    }

    public var isOtherAudioPlaying: Bool {
        get throws {
            var value = false
            try check(iaa_session_is_other_audio_playing(handle, &value))
            return value
        }
    }

    public var secondaryAudioShouldBeSilencedHint: Bool {
        get throws {
            var value = false
            try check(iaa_session_secondary_audio_should_be_silenced_hint(handle, &value))
            return value
        }
    }

    private func check(_ status: Int32) throws {
        guard status != 0 else { return }
        throw Failure(status: status, message: String(cString: iaa_session_last_error(handle)))
    }

    private static func event(_ event: iaa_session_event) -> Event {
        let reason = event.reason.map { String(cString: $0) } ?? ""
        switch event.kind {
        case IAA_SESSION_EVENT_INTERRUPTION_BEGAN: return .interruptionBegan(reason: reason)
        case IAA_SESSION_EVENT_INTERRUPTION_ENDED: return .interruptionEnded(shouldResume: event.should_resume)
        case IAA_SESSION_EVENT_ROUTE_CHANGE: return .routeChange(reason: reason)
        case IAA_SESSION_EVENT_SILENCE_SECONDARY_AUDIO_HINT: return .silenceSecondaryAudioHint(begin: event.begin)
        case IAA_SESSION_EVENT_MEDIA_SERVICES_WERE_LOST: return .mediaServicesWereLost
        case IAA_SESSION_EVENT_MEDIA_SERVICES_WERE_RESET: return .mediaServicesWereReset
        default: return .other(name: event.name.map { String(cString: $0) } ?? "")
        }
    }
}
