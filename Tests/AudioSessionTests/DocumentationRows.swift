import AudioSession

/// Rows for the rules a careful reading of Apple's documentation adds (docs/session-policy.md):
/// background audio, the record category, priority during a call, the muted microphone,
/// resumption after an interruption, and ducking. Each quotes the words it rests on.
let documentationRows: [PolicyRow] = backgroundAudioRows + recordCategoryRows + callPriorityRows
    + mutedMicrophoneRows + resumptionRows + duckingRows

let backgroundAudioRows: [PolicyRow] = [
    PolicyRow(
        name: "background: audio stops when an app without the audio mode leaves the foreground, even with a task",
        quote: "If the app does not select this mode, any audio being played or recorded by the app stops when the app moves to the background",
        apps: [app("a", .playback, active: true, fg: true)],
        given: [.beginBackgroundTask(app: "a")],
        action: .background(app: "a"),
        checks: [.playing("a", false), .gain("a", 0), .suspended("a", false), .active("a", true)]),
    PolicyRow(
        name: "background: a recording stops too when an app without the audio mode leaves the foreground",
        quote: "any audio being played or recorded by the app stops when the app moves to the background",
        apps: [app("a", .playAndRecord, active: true, fg: true, grants: [.microphone])],
        given: [.beginBackgroundTask(app: "a")],
        action: .background(app: "a"),
        checks: [.recording("a", false), .hearsInput("a", false), .gain("a", 0)]),
    PolicyRow(
        name: "background: the audio mode keeps a playback app's audio running in the background",
        quote: "With this capability enabled, your app's audio continues when people switch to another app or lock their iOS device",
        apps: [app("a", .playback, active: true, fg: true, audio: true)],
        action: .background(app: "a"),
        checks: [.playing("a", true), .gain("a", 1), .suspended("a", false)]),
    PolicyRow(
        name: "background: soloAmbient stops in the background even with the audio mode",
        quote: "Enabling this category [playback] means your app can play background audio if you're using the Audio, AirPlay, and Picture in Picture background mode",
        apps: [app("a", .soloAmbient, active: true, fg: true, audio: true)],
        given: [.beginBackgroundTask(app: "a")],
        action: .background(app: "a"),
        checks: [.playing("a", false), .gain("a", 0)]),
    PolicyRow(
        name: "background: locking the screen stops the foreground app's audio unless it has the audio mode",
        quote: "your app's audio continues when people switch to another app or lock their iOS device",
        apps: [app("a", .playback, active: true, fg: true), app("b", .playback, options: [.mixWithOthers], audio: true)],
        given: [.beginBackgroundTask(app: "a"), .activate(app: "b")],
        action: .device(silent: nil, locked: true),
        checks: [.playing("a", false), .gain("a", 0), .playing("b", true), .gain("b", 1)]),
    PolicyRow(
        name: "background: audio stopped in the background stays stopped back in the foreground until the app starts it",
        quote: "any audio being played or recorded by the app stops when the app moves to the background",
        apps: [app("a", .playback, active: true, fg: true), app("b", .playback, options: [.mixWithOthers])],
        given: [.beginBackgroundTask(app: "a"), .foreground(app: "b")],
        action: .foreground(app: "a"),
        events: [.suspended("b")],
        checks: [.foreground("a", true), .active("a", true), .playing("a", false), .gain("a", 0)]),
    PolicyRow(
        name: "background: an app whose task keeps it running still cannot start audio without the audio mode",
        quote: "any audio being played or recorded by the app stops when the app moves to the background",
        apps: [app("a", .playback, active: true, fg: true)],
        given: [.beginBackgroundTask(app: "a"), .background(app: "a")],
        action: .startAudio(app: "a", recording: false),
        error: .cannotStartPlaying),
]

let recordCategoryRows: [PolicyRow] = [
    PolicyRow(
        name: "record: an active record session silences the playback of mixable apps",
        quote: "This category has the effect of silencing virtually all output on the system, for as long as the session is active",
        apps: [app("g", .ambient, active: true, fg: true), app("m", .playback, options: [.mixWithOthers], active: true, audio: true),
               app("r", .record, audio: true)],
        action: .activate(app: "r"),
        events: nil,
        checks: [.gain("g", 0), .gain("m", 0), .active("m", true), .interrupted("m", false),
                 .otherAudioPlaying("r", false)]),
    PolicyRow(
        name: "record: output comes back when the record session deactivates",
        quote: "for as long as the session is active",
        apps: [app("m", .playback, options: [.mixWithOthers], active: true, audio: true), app("r", .record, fg: true)],
        given: [.activate(app: "r"), .stopAudio(app: "r")],
        action: .deactivate(app: "r", options: []),
        checks: [.gain("m", 1)]),
    PolicyRow(
        name: "record: a mixable app that activates during a recording is active but silent",
        quote: "silencing virtually all output on the system, for as long as the session is active",
        apps: [app("r", .record, active: true, fg: true), app("m", .playback, options: [.mixWithOthers], audio: true)],
        action: .activate(app: "m"),
        events: [.resumed("m")],
        checks: [.active("m", true), .gain("m", 0), .active("r", true)]),
    PolicyRow(
        name: "record: playAndRecord does not silence other output",
        quote: "Unless you need to prevent any unexpected sounds from being played, use playAndRecord instead",
        apps: [app("m", .playback, options: [.mixWithOthers], active: true, audio: true),
               app("p", .playAndRecord, options: [.mixWithOthers], fg: true)],
        action: .activate(app: "p"),
        checks: [.gain("m", 1), .gain("p", 1)]),
]

let callPriorityRows: [PolicyRow] = [
    PolicyRow(
        name: "rule 4: during a call a mixable playAndRecord session may not activate",
        quote: "Activating your audio session may fail if another audio session has higher priority than yours (for example, a phone call)",
        apps: [app("c", .playAndRecord, active: true, audio: true, grants: [.priorityAudio]),
               app("v", .playAndRecord, options: [.mixWithOthers], fg: true)],
        action: .activate(app: "v"),
        error: .insufficientPriority,
        checks: [.message("records"), .active("v", false)]),
    PolicyRow(
        name: "rule 4: during a call a record session may not activate",
        quote: "An error code that indicates the app isn't allowed to set the audio category because it's in use by another app",
        apps: [app("c", .playAndRecord, active: true, audio: true, grants: [.priorityAudio]),
               app("r", .record, fg: true)],
        action: .activate(app: "r"),
        error: .insufficientPriority),
    PolicyRow(
        name: "rule 4: during a call a mixable multiRoute session may not activate",
        quote: "Activating your audio session may fail if another audio session has higher priority than yours",
        apps: [app("c", .playAndRecord, active: true, audio: true, grants: [.priorityAudio]),
               app("x", .multiRoute, options: [.mixWithOthers], fg: true)],
        action: .activate(app: "x"),
        error: .insufficientPriority),
    PolicyRow(
        name: "rule 4: during a system interruption a mixable recording session may not activate",
        quote: "Activating your audio session may fail if another audio session has higher priority than yours (for example, a phone call)",
        apps: [app("v", .playAndRecord, options: [.mixWithOthers], fg: true)],
        given: [.interrupt(.began, reason: .default)],
        action: .activate(app: "v"),
        error: .insufficientPriority,
        checks: [.message("system interruption")]),
    PolicyRow(
        name: "rule 4: during a call a mixable playback session still activates and plays",
        quote: "and neither audio session allows mixing",
        apps: [app("c", .playAndRecord, active: true, audio: true, grants: [.priorityAudio]),
               app("b", .playback, options: [.duckOthers], fg: true)],
        action: .activate(app: "b"),
        checks: [.active("b", true), .gain("b", 1), .gain("c", 1), .ducked("c", false)]),
]

let mutedMicrophoneRows: [PolicyRow] = [
    PolicyRow(
        name: "microphone mute interrupts the sessions that record, not playback-only ones",
        quote: "When this occurs, the system interrupts the audio session that's capturing input from the microphone",
        apps: [app("v", .playAndRecord, options: [.mixWithOthers], active: true, fg: true),
               app("m", .playback, options: [.mixWithOthers], active: true, audio: true)],
        action: .interrupt(.began, reason: .builtInMicMuted),
        events: [.began("v", .builtInMicMuted)],
        checks: [.active("v", false), .interrupted("v", true), .active("m", true), .gain("m", 1)]),
    PolicyRow(
        name: "overrideMutedMicrophoneInterruption keeps a recording session active while the microphone is muted",
        quote: "An option that indicates whether the system interrupts the audio session when it mutes the built-in microphone",
        apps: [app("v", .playAndRecord, options: [.overrideMutedMicrophoneInterruption], active: true, fg: true,
                   grants: [.microphone])],
        action: .interrupt(.began, reason: .builtInMicMuted),
        checks: [.active("v", true), .interrupted("v", false), .gain("v", 1), .recording("v", true),
                 .hearsInput("v", false)]),
    PolicyRow(
        name: "activating a recording session while the microphone is muted is cannotStartRecording",
        quote: "Attempting to start audio input after the system mutes the microphone results in an error",
        apps: [app("v", .playAndRecord, fg: true)],
        given: [.interrupt(.began, reason: .builtInMicMuted)],
        action: .activate(app: "v"),
        error: .cannotStartRecording,
        checks: [.message("muted")]),
    PolicyRow(
        name: "starting input while the microphone is muted is cannotStartRecording",
        quote: "Attempting to start audio input after the system mutes the microphone results in an error",
        apps: [app("v", .playback, options: [.mixWithOthers], active: true, fg: true)],
        given: [.interrupt(.began, reason: .builtInMicMuted),
                .setCategory(app: "v", category: .playAndRecord, mode: .default, options: [.mixWithOthers])],
        action: .startAudio(app: "v", recording: true),
        error: .cannotStartRecording),
    PolicyRow(
        name: "a muted microphone is not a call: a non-mixable playback session still activates",
        quote: "The system interrupts the audio session when the device mutes the built-in microphone",
        apps: [app("p", .playback, fg: true)],
        given: [.interrupt(.began, reason: .builtInMicMuted)],
        action: .activate(app: "p"),
        checks: [.active("p", true), .gain("p", 1)]),
    PolicyRow(
        name: "unmuting the microphone ends its interruptions and the sessions resume",
        quote: "The system interrupts the audio session when the device mutes the built-in microphone",
        apps: [app("v", .playAndRecord, options: [.mixWithOthers], active: true, fg: true, grants: [.microphone])],
        given: [.interrupt(.began, reason: .builtInMicMuted)],
        action: .interrupt(.ended, reason: .builtInMicMuted),
        events: [.ended("v", resume: true, .builtInMicMuted)],
        checks: [.active("v", true), .hearsInput("v", true)]),
    PolicyRow(
        name: "a call's end does not end the microphone's interruption",
        quote: "The system interrupts the audio session when the device mutes the built-in microphone",
        apps: [app("v", .playAndRecord, options: [.mixWithOthers], active: true, fg: true)],
        given: [.interrupt(.began, reason: .builtInMicMuted), .interrupt(.began, reason: .default)],
        action: .interrupt(.ended, reason: .default),
        checks: [.active("v", false), .interrupted("v", true)]),
]

let resumptionRows: [PolicyRow] = [
    PolicyRow(
        name: "rule 5: an app that deactivated while interrupted is not told to resume",
        quote: "other audio sessions that had been interrupted by your session can return to their active state",
        apps: [app("a", .playback, active: true, audio: true), app("b", .playback, fg: true)],
        given: [.activate(app: "b"), .deactivate(app: "a", options: []), .stopAudio(app: "b")],
        action: .deactivate(app: "b", options: [.notifyOthersOnDeactivation]),
        events: [.ended("a", resume: false)],
        checks: [.active("a", false), .gain("a", 0)]),
    PolicyRow(
        name: "rule 5: an app that stopped its audio while interrupted is not told to resume",
        quote: "other audio sessions that had been interrupted by your session can return to their active state",
        apps: [app("a", .playback, active: true, fg: true), app("b", .playback, audio: true, grants: [.priorityAudio])],
        given: [.activate(app: "b"), .stopAudio(app: "a"), .stopAudio(app: "b")],
        action: .deactivate(app: "b", options: [.notifyOthersOnDeactivation]),
        events: [.ended("a", resume: false)],
        checks: [.active("a", false), .gain("a", 0)]),
    PolicyRow(
        name: "rule 5: an app that deactivated during a system interruption does not come back when it ends",
        quote: "other audio sessions that had been interrupted by your session can return to their active state",
        apps: [app("a", .playback, active: true, fg: true),
               app("b", .playback, options: [.mixWithOthers], active: true, audio: true)],
        given: [.interrupt(.began, reason: .default), .deactivate(app: "a", options: [])],
        action: .interrupt(.ended, reason: .default),
        events: [.ended("a", resume: false), .ended("b", resume: true), .resumed("b")],
        checks: [.active("a", false), .gain("a", 0), .active("b", true), .gain("b", 1)]),
    PolicyRow(
        name: "rule 5: an app interrupted while inactive is not interrupted and is not told anything",
        quote: "In steps 3 and 4, the system deactivates the Music app's audio session, stopping its audio playback",
        apps: [app("a", .playback, fg: true), app("b", .playback, audio: true, grants: [.priorityAudio])],
        given: [.activate(app: "b"), .stopAudio(app: "b")],
        action: .deactivate(app: "b", options: [.notifyOthersOnDeactivation]),
        checks: [.active("a", false), .interrupted("a", false)]),
]

let duckingRows: [PolicyRow] = [
    PolicyRow(
        name: "duckOthers lowers every other audible app but a call",
        quote: "When ducking takes place, all other audio on the device—apart from phone audio—lowers in volume",
        apps: [app("c", .playAndRecord, active: true, audio: true, grants: [.priorityAudio]),
               app("m", .playback, options: [.mixWithOthers], audio: true),
               app("n", .playback, options: [.duckOthers], fg: true)],
        given: [.activate(app: "m")],
        action: .activate(app: "n"),
        checks: [.ducked("c", false), .gain("c", 1), .ducked("m", true), .gain("n", 1)]),
]
