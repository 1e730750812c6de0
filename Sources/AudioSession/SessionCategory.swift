/// AVAudioSession's categories, spelled as Apple spells them.
public enum SessionCategory: String, Sendable, Hashable, CaseIterable {
    case ambient, soloAmbient, playback, record, playAndRecord, multiRoute

    /// What an app that never configured its session has.
    public static let `default`: SessionCategory = .soloAmbient

    /// Mixable without `mixWithOthers` (docs/session-policy.md, Categories).
    public var isMixableByDefault: Bool { self == .ambient }
    /// Silenced by the Ring/Silent switch (`device silent`).
    public var isSilencedBySilentSwitch: Bool { self == .ambient || self == .soloAmbient }
    /// Silenced by the screen lock (`device locked`).
    public var isSilencedByLock: Bool { self == .ambient || self == .soloAmbient }
    public var hasOutput: Bool { self != .record }
    public var hasInput: Bool { self == .record || self == .playAndRecord || self == .multiRoute }
    /// May keep playing in the background when the app has the `audio` background mode.
    public var playsInBackground: Bool { self != .ambient && self != .soloAmbient }
}

/// AVAudioSession's modes.
public enum SessionMode: String, Sendable, Hashable, CaseIterable {
    case `default`, voiceChat, videoChat, gameChat, videoRecording, measurement, moviePlayback, spokenAudio, voicePrompt

    /// The categories that support this mode; elsewhere the session behaves as `default`.
    public var categories: Set<SessionCategory> {
        switch self {
        case .default: return Set(SessionCategory.allCases)
        case .voiceChat, .videoChat, .gameChat: return [.playAndRecord]
        case .videoRecording: return [.record, .playAndRecord]
        case .measurement: return [.record, .playAndRecord, .playback]
        case .moviePlayback, .spokenAudio: return [.playback]
        case .voicePrompt: return [.playback, .playAndRecord]
        }
    }
}

/// AVAudioSession's category options.
public enum SessionOption: String, Sendable, Hashable, CaseIterable {
    case mixWithOthers, duckOthers, interruptSpokenAudioAndMixWithOthers
    case allowBluetooth, allowBluetoothA2DP, allowAirPlay, defaultToSpeaker, overrideMutedMicrophoneInterruption

    /// The categories that accept this option; setting it elsewhere fails with `badParam`.
    public var categories: Set<SessionCategory> {
        switch self {
        case .mixWithOthers, .duckOthers, .interruptSpokenAudioAndMixWithOthers:
            return [.playback, .playAndRecord, .multiRoute]
        case .allowBluetooth: return [.playAndRecord, .record]
        case .allowBluetoothA2DP, .allowAirPlay, .defaultToSpeaker:
            return [.playAndRecord]
        // Apple: "a category that supports input and output, such as playAndRecord": multiRoute too.
        case .overrideMutedMicrophoneInterruption:
            return [.playAndRecord, .multiRoute]
        }
    }
}

/// Options of `deactivate`.
public enum DeactivationOption: String, Sendable, Hashable, CaseIterable {
    case notifyOthersOnDeactivation
}

/// The `audio` background mode and friends, as an app declares them.
public enum BackgroundMode: String, Sendable, Hashable, CaseIterable {
    case audio
}

/// Grants an app holds, given by the graph's author (the trust root).
public enum Entitlement: String, Sendable, Hashable, CaseIterable {
    case interAppAudio = "inter-app-audio"
    case priorityAudio = "priority-audio"
    case microphone
}
