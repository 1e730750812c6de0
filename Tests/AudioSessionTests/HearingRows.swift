import AudioSession

/// Rows for ducking, the silencing hints and route changes.
let hearingRows: [PolicyRow] = [
    PolicyRow(
        name: "duckOthers lowers the other audible apps to the duck level",
        apps: [app("d", .playback, options: [.duckOthers], fg: true), app("m", .playback, active: true, audio: true)],
        action: .activate(app: "d"),
        checks: [.gain("m", PolicyConfiguration().duckGain), .ducked("m", true), .gain("d", 1), .ducked("d", false)]),
    PolicyRow(
        name: "the duck level follows the configuration",
        apps: [app("d", .playback, options: [.duckOthers], fg: true), app("m", .playback, active: true, audio: true)],
        configuration: PolicyConfiguration(duckLevelDecibels: -20),
        action: .activate(app: "d"),
        checks: [.gain("m", PolicyConfiguration(duckLevelDecibels: -20).duckGain)]),
    PolicyRow(
        name: "ducked apps are restored when the ducking app stops",
        apps: [app("d", .playback, options: [.duckOthers], fg: true), app("m", .playback, active: true, audio: true)],
        given: [.activate(app: "d")],
        action: .stopAudio(app: "d"),
        checks: [.gain("m", 1), .ducked("m", false)]),
    PolicyRow(
        name: "ducked apps are restored when the ducking app deactivates",
        apps: [app("d", .playback, options: [.duckOthers], fg: true), app("m", .playback, active: true, audio: true)],
        given: [.activate(app: "d"), .stopAudio(app: "d")],
        action: .deactivate(app: "d", options: [.notifyOthersOnDeactivation]),
        checks: [.gain("m", 1), .active("d", false)]),
    PolicyRow(
        name: "duckOthers lowers mixable apps too",
        apps: [app("d", .playback, options: [.duckOthers], fg: true),
               app("m", .playback, options: [.mixWithOthers], active: true, audio: true)],
        action: .activate(app: "d"),
        checks: [.gain("m", PolicyConfiguration().duckGain), .ducked("m", true)]),
    PolicyRow(
        name: "otherAudioPlaying counts ambient apps; the secondary hint only non-mixable ones",
        apps: [app("g", .ambient, active: true, fg: true), app("m", .playback, audio: true)],
        action: .activate(app: "m"),
        events: [.resumed("m"), .hint("g", .began)],
        checks: [.otherAudioPlaying("g", true), .secondaryHint("g", true),
                 .otherAudioPlaying("m", true), .secondaryHint("m", false)]),
    PolicyRow(
        name: "otherAudioPlaying is false when the others are silenced",
        apps: [app("g", .ambient, active: true, fg: true), app("m", .playback, options: [.mixWithOthers], fg: false)],
        action: .device(silent: true, locked: nil),
        checks: [.otherAudioPlaying("m", false), .otherAudioPlaying("g", false), .gain("g", 0)]),
    PolicyRow(
        name: "silenceSecondaryAudioHint ends when the primary audio stops",
        apps: [app("g", .ambient, active: true, fg: true), app("m", .playback, active: true, audio: true)],
        action: .stopAudio(app: "m"),
        events: [.hint("g", .ended)],
        checks: [.secondaryHint("g", false)]),
    PolicyRow(
        name: "silenceSecondaryAudioHint goes only to a foreground app with an active session",
        apps: [app("g", .ambient, fg: true), app("r", .playback, options: [.mixWithOthers], active: true, audio: true),
               app("m", .playback, audio: true)],
        action: .activate(app: "m"),
        events: [.resumed("m")],
        checks: [.secondaryHint("g", true), .secondaryHint("r", true)]),
    PolicyRow(
        name: "a route that disappears is oldDeviceUnavailable for active output sessions",
        apps: [app("a", .playback, options: [.mixWithOthers], active: true, fg: true),
               app("r", .record, active: true, audio: true),
               app("b", .playback, options: [.mixWithOthers], audio: true)],
        action: .route(available: false),
        events: [.route("a", .oldDeviceUnavailable)],
        checks: [.active("a", true), .playing("a", true)]),
    PolicyRow(
        name: "a route that appears is newDeviceAvailable",
        apps: [app("a", .playback, active: true, fg: true)],
        given: [.route(available: false)],
        action: .route(available: true),
        events: [.route("a", .newDeviceAvailable)]),
    PolicyRow(
        name: "an unchanged route sends nothing",
        apps: [app("a", .playback, active: true, fg: true)],
        action: .route(available: true)),
]
