/// How an app's session starts: what the graph file says about it.
public struct AppSessionSetup: Sendable, Hashable {
    public var id: String
    public var category: SessionCategory
    public var mode: SessionMode
    public var options: Set<SessionOption>
    public var active: Bool
    public var backgroundModes: Set<BackgroundMode>
    public var entitlements: Set<Entitlement>
    public var foreground: Bool
    /// An Inter-App Audio host or node may record mixably in the background (rule 3).
    public var isInterAppAudio: Bool
    /// Entitlements the app asks for (its plugin's needs, or the graph's `requires`); activating
    /// without one of them granted fails with `missingEntitlement` (rule 8).
    public var requestedEntitlements: Set<Entitlement>
    /// Built-in nodes resume by themselves on `interruption ended` with `shouldResume`.
    public var resumesAfterInterruption: Bool

    public init(id: String, category: SessionCategory = .default, mode: SessionMode = .default,
                options: Set<SessionOption> = [], active: Bool = false, backgroundModes: Set<BackgroundMode> = [],
                entitlements: Set<Entitlement> = [], foreground: Bool = false, isInterAppAudio: Bool = false,
                requestedEntitlements: Set<Entitlement> = [], resumesAfterInterruption: Bool = true) {
        self.id = id
        self.category = category
        self.mode = mode
        self.options = options
        self.active = active
        self.backgroundModes = backgroundModes
        self.entitlements = entitlements
        self.foreground = foreground
        self.isInterAppAudio = isInterAppAudio
        self.requestedEntitlements = requestedEntitlements
        self.resumesAfterInterruption = resumesAfterInterruption
    }
}

/// Graph-wide policy settings (`policy` in the graph file).
public struct PolicyConfiguration: Sendable, Hashable {
    /// The level of ducked apps, in dB (default −12 dB, ours).
    public var duckLevelDecibels: Double
    /// How long gain changes ramp, in seconds (default 10 ms).
    public var rampSeconds: Double
    /// How long a background task delays suspension, in seconds (default 30 s, ours).
    public var backgroundTaskSeconds: Double
    /// How long before expiry `backgroundTaskWillExpire` is sent, in seconds (ours: 5 s).
    public var backgroundTaskWarningSeconds: Double

    public init(duckLevelDecibels: Double = -12, rampSeconds: Double = 0.010, backgroundTaskSeconds: Double = 30,
                backgroundTaskWarningSeconds: Double = 5) {
        self.duckLevelDecibels = duckLevelDecibels
        self.rampSeconds = rampSeconds
        self.backgroundTaskSeconds = backgroundTaskSeconds
        self.backgroundTaskWarningSeconds = backgroundTaskWarningSeconds
    }

    /// The duck level as a linear gain.
    public var duckGain: Float { Float(Self.power10(duckLevelDecibels / 20)) }

    /// 10^x with the standard library only (this target imports nothing): e^(x ln 10) by its
    /// Taylor series after reducing the exponent by powers of two.
    static func power10(_ x: Double) -> Double {
        let y = x * 2.302585092994046
        let n = (y / 0.6931471805599453).rounded()
        let r = y - n * 0.6931471805599453
        var term = 1.0, sum = 1.0
        for k in 1...20 {
            term *= r / Double(k)
            sum += term
        }
        return sum * Double(sign: .plus, exponent: Int(n), significand: 1)
    }
}

/// One app's session as the policy sees it after an action: what logs and `status` print.
public struct AppSessionState: Sendable, Hashable {
    public var id: String
    public var category: SessionCategory
    /// The mode asked for; `effectiveMode` is `default` when the category does not support it.
    public var mode: SessionMode
    public var options: Set<SessionOption>
    public var active: Bool
    /// The app's I/O runs (activation starts it; `stopAudio` stops it).
    public var playing: Bool
    /// Its I/O records (`startAudio` with recording).
    public var recording: Bool
    public var foreground: Bool
    public var suspended: Bool
    /// Interrupted and not yet reactivated.
    public var interrupted: Bool
    public var ducked: Bool
    /// Heard in the mix: gain above 0.
    public var audible: Bool
    /// The gain target the audio thread ramps to: 1, the duck level, or 0.
    public var gain: Float
    public var otherAudioPlaying: Bool
    public var secondaryAudioShouldBeSilencedHint: Bool
    /// Seconds left on a running background task, nil when none runs.
    public var backgroundTimeRemaining: Double?

    public var effectiveMode: SessionMode { mode.categories.contains(category) ? mode : .default }
}

/// An app's session as set now: category, options, activation (see `SessionPolicy.setting(of:)`).
public struct SessionSetting: Sendable, Hashable {
    public var category: SessionCategory
    public var options: Set<SessionOption>
    public var active: Bool
    public var interrupted: Bool
}
