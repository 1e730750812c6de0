import AudioSession

/// Rows for docs/session-policy.md's Interruptions: system interruptions, calls, spoken audio.
let interruptionRows: [PolicyRow] = [
    PolicyRow(
        name: "a system interruption interrupts every active session, mixable ones too",
        apps: [app("g", .ambient, active: true, fg: true), app("m", .playback, active: true, audio: true),
               app("i", .playback, fg: false, audio: true)],
        action: .interrupt(.began, reason: .default),
        events: [.began("g"), .began("m"), .suspended("m")],
        checks: [.gain("g", 0), .gain("m", 0), .interrupted("g", true), .interrupted("m", true)]),
    PolicyRow(
        name: "a system interruption passes its reason",
        apps: [app("g", .playAndRecord, active: true, fg: true)],
        action: .interrupt(.began, reason: .builtInMicMuted),
        events: [.began("g", .builtInMicMuted)]),
    PolicyRow(
        name: "during a system interruption a non-mixable activation is insufficientPriority",
        apps: [app("g", .playback, active: true, fg: true)],
        given: [.interrupt(.began, reason: .default)],
        action: .activate(app: "g"),
        error: .insufficientPriority,
        checks: [.message("system interruption")]),
    PolicyRow(
        name: "during a system interruption a mixable activation is ok",
        apps: [app("g", .ambient, active: true, fg: true)],
        given: [.interrupt(.began, reason: .default)],
        action: .activate(app: "g"),
        checks: [.active("g", true), .gain("g", 1)]),
    PolicyRow(
        name: "the end of a system interruption lets the apps interrupted while active resume",
        apps: [app("g", .ambient, active: true, fg: true), app("m", .playback, active: true, audio: true)],
        given: [.interrupt(.began, reason: .default)],
        action: .interrupt(.ended, reason: .default),
        events: [.ended("g", resume: true), .hint("g", .began), .ended("m", resume: true), .resumed("m")],
        checks: [.gain("g", 1), .gain("m", 1), .interrupted("m", false), .suspended("m", false)]),
    PolicyRow(
        name: "the end of a system interruption that did not begin is ok and says nothing",
        apps: [app("g", .playback, active: true, fg: true)],
        action: .interrupt(.ended, reason: .default),
        checks: [.gain("g", 1)]),
    PolicyRow(
        name: "a call (priority-audio activation) interrupts every active session, mixable ones too",
        apps: [app("c", .playAndRecord, fg: true, grants: [.priorityAudio]),
               app("a", .playback, active: true, audio: true),
               app("m", .playback, options: [.mixWithOthers], active: true, audio: true)],
        action: .activate(app: "c"),
        events: [.began("a"), .suspended("a"), .began("m"), .suspended("m")],
        checks: [.gain("c", 1), .gain("a", 0), .gain("m", 0)]),
    PolicyRow(
        name: "a call may ring from the background over a foreground app",
        apps: [app("c", .playAndRecord, audio: true, grants: [.priorityAudio]),
               app("a", .playback, active: true, fg: true)],
        action: .activate(app: "c"),
        events: [.resumed("c"), .began("a")],
        checks: [.gain("c", 1), .gain("a", 0), .interrupted("a", true)]),
    PolicyRow(
        name: "a call that hangs up with notifyOthersOnDeactivation lets the apps it interrupted resume",
        apps: [app("c", .playAndRecord, fg: true, grants: [.priorityAudio]),
               app("a", .playback, active: true, audio: true),
               app("m", .playback, options: [.mixWithOthers], active: true, audio: true)],
        given: [.activate(app: "c"), .stopAudio(app: "c")],
        action: .deactivate(app: "c", options: [.notifyOthersOnDeactivation]),
        events: [.ended("a", resume: true), .resumed("a"), .ended("m", resume: true), .resumed("m")],
        checks: [.gain("a", 1), .gain("m", 1), .active("c", false)]),
    PolicyRow(
        name: "a call that hangs up without notifyOthersOnDeactivation does not tell the others to resume",
        quote: "shouldResume: the interrupting app deactivated its session with notifyOthersOnDeactivation",
        apps: [app("c", .playAndRecord, fg: true, grants: [.priorityAudio]),
               app("a", .playback, active: true, audio: true)],
        given: [.activate(app: "c"), .stopAudio(app: "c")],
        action: .deactivate(app: "c", options: []),
        events: [.ended("a", resume: false)],
        checks: [.gain("a", 0), .active("a", false), .interrupted("a", false)]),
    PolicyRow(
        name: "interruptSpokenAudioAndMixWithOthers interrupts a spokenAudio session",
        apps: [app("s", .playback, mode: .spokenAudio, active: true, audio: true),
               app("n", .playback, options: [.interruptSpokenAudioAndMixWithOthers], fg: true)],
        action: .activate(app: "n"),
        events: [.hint("n", .ended), .began("s"), .suspended("s")],
        checks: [.gain("s", 0), .gain("n", 1)]),
    PolicyRow(
        name: "interruptSpokenAudioAndMixWithOthers mixes with sessions not in spokenAudio",
        apps: [app("s", .playback, mode: .moviePlayback, active: true, audio: true),
               app("n", .playback, options: [.interruptSpokenAudioAndMixWithOthers], fg: true)],
        action: .activate(app: "n"),
        checks: [.gain("s", 1), .gain("n", 1)]),
    PolicyRow(
        name: "spokenAudio in a category that does not support it behaves as default and is not interrupted",
        apps: [app("s", .playAndRecord, mode: .spokenAudio, active: true, audio: true),
               app("n", .playback, options: [.interruptSpokenAudioAndMixWithOthers], fg: true)],
        action: .activate(app: "n"),
        checks: [.gain("s", 1), .effectiveMode("s", .default)]),
]
