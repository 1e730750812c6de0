/// Why an app's session became inactive without the app asking: whose `ended` it waits for.
enum Interrupter: Sendable, Hashable {
    /// Another app's activation (rule 1, a call, or `interruptSpokenAudioAndMixWithOthers`).
    case app(String)
    /// An interruption raised from outside (`iaa interrupt begin`): a call, an alarm.
    case system
    /// The built-in microphone was muted (`interrupt begin` with reason `builtInMicMuted`): it
    /// interrupts only sessions that record, and ends when the microphone is unmuted.
    case microphoneMuted
    /// The app was suspended in the background; no `ended` follows.
    case suspension
}

/// One app as the policy tracks it: its setup, kept current by `setCategory`, and what the
/// actions made of it. Everything heard (gain, ducking, hints) is derived, never stored, so it
/// cannot drift from the flags it depends on.
struct AppRecord: Sendable, Hashable {
    /// Category, mode, options and `foreground` are the current values, not the initial ones.
    var setup: AppSessionSetup
    var active = false
    var playing = false
    var recording = false
    var suspended = false
    var interruptedBy: Interrupter?
    /// Interrupted while active and, since, neither stopped its audio nor deactivated: only such
    /// an app is told it may resume (`shouldResume`) when its interruption ends.
    var mayResume = false
    /// A background task was begun and not yet ended or expired.
    var taskRunning = false
    /// When the running task expires; nil while the app is foreground (the countdown only runs
    /// in the background, as `backgroundTimeRemaining` does on iOS).
    var taskExpiry: Double?
    var taskWarned = false

    init(setup: AppSessionSetup) { self.setup = setup }

    var id: String { setup.id }
    var category: SessionCategory { setup.category }
    var effectiveMode: SessionMode { setup.mode.categories.contains(category) ? setup.mode : .default }

    /// Ambient, or one of the options that imply `mixWithOthers`.
    var isMixable: Bool { Self.isMixable(category, setup.options) }

    /// A `priority-audio` app's activation is a call (ours): it interrupts everything.
    var isCall: Bool { setup.entitlements.contains(.priorityAudio) }

    /// The condition under which a background app is not suspended (Background execution).
    var keepsRunningInBackground: Bool {
        active && category.playsInBackground && setup.backgroundModes.contains(.audio) && (playing || recording)
    }

    static func isMixable(_ category: SessionCategory, _ options: Set<SessionOption>) -> Bool {
        category.isMixableByDefault
            || !options.isDisjoint(with: [.mixWithOthers, .duckOthers, .interruptSpokenAudioAndMixWithOthers])
    }
}
