import AudioSession

/// A row of docs/session-policy.md's category table, written out here rather than read from the
/// source so that the rows check the code against the document.
struct CategoryFacts: Sendable {
    var category: SessionCategory
    var mixable: Bool
    var silencedBySilent: Bool
    var silencedByLock: Bool
    var output: Bool
    var input: Bool
    var background: Bool
}

let categoryTable: [CategoryFacts] = [
    .init(category: .ambient, mixable: true, silencedBySilent: true, silencedByLock: true, output: true, input: false,
          background: false),
    .init(category: .soloAmbient, mixable: false, silencedBySilent: true, silencedByLock: true, output: true,
          input: false, background: false),
    .init(category: .playback, mixable: false, silencedBySilent: false, silencedByLock: false, output: true,
          input: false, background: true),
    .init(category: .record, mixable: false, silencedBySilent: false, silencedByLock: false, output: false,
          input: true, background: true),
    .init(category: .playAndRecord, mixable: false, silencedBySilent: false, silencedByLock: false, output: true,
          input: true, background: true),
    .init(category: .multiRoute, mixable: false, silencedBySilent: false, silencedByLock: false, output: true,
          input: true, background: true),
]

/// Five rows per category: mixability, the silent switch, the lock, the background, input.
let categoryRows: [PolicyRow] = categoryTable.flatMap { facts -> [PolicyRow] in
    let c = facts.category
    let heard: Float = facts.output ? 1 : 0
    let x = app("x", c, active: true, fg: true, audio: true)
    return [
        PolicyRow(
            name: "\(c): mixable by default is \(facts.mixable)",
            apps: [x, app("y", .playback, audio: true)],
            action: .activate(app: "y"),
            error: facts.mixable ? nil : .cannotInterruptOthers,
            events: facts.mixable ? [.resumed("y"), .hint("x", .began)] : [],
            checks: [.active("x", true), .active("y", facts.mixable)]),
        PolicyRow(
            name: "\(c): silenced by the silent switch is \(facts.silencedBySilent)",
            apps: [x],
            action: .device(silent: true, locked: nil),
            checks: [.gain("x", facts.silencedBySilent ? 0 : heard), .active("x", true), .interrupted("x", false)]),
        PolicyRow(
            name: "\(c): silenced by the screen lock is \(facts.silencedByLock)",
            apps: [x],
            given: [.beginBackgroundTask(app: "x")],
            action: .device(silent: nil, locked: true),
            checks: [.gain("x", facts.silencedByLock ? 0 : heard), .active("x", true), .suspended("x", false),
                     .foreground("x", false)]),
        PolicyRow(
            name: "\(c): plays in the background with the audio mode is \(facts.background)",
            apps: [x],
            given: [.background(app: "x")],
            action: .advanceTime(to: 0),
            events: facts.background ? [] : ExpectedEvent.suspendedWhileActive("x"),
            checks: [.suspended("x", !facts.background), .gain("x", facts.background ? heard : 0)]),
        PolicyRow(
            name: "\(c): records is \(facts.input)",
            apps: [x],
            action: .startAudio(app: "x", recording: true),
            error: facts.input ? nil : .incompatibleCategory,
            checks: [.recording("x", facts.input)]),
    ]
}

/// docs/session-policy.md's option table, written out.
let optionTable: [(SessionOption, Set<SessionCategory>)] = [
    // Ambient sets mixWithOthers by itself; Apple: it may be set explicitly only in these three.
    (.mixWithOthers, [.playback, .playAndRecord, .multiRoute]),
    (.duckOthers, [.playback, .playAndRecord, .multiRoute]),
    (.interruptSpokenAudioAndMixWithOthers, [.playback, .playAndRecord, .multiRoute]),
    (.allowBluetooth, [.record, .playAndRecord]),
    (.allowBluetoothA2DP, [.playAndRecord]),
    (.allowAirPlay, [.playAndRecord]),
    (.defaultToSpeaker, [.playAndRecord]),
    // Apple: "a category that supports input and output, such as playAndRecord".
    (.overrideMutedMicrophoneInterruption, [.playAndRecord, .multiRoute]),
]

/// A row per option and category: accepted (with the options it implies) or badParam.
let optionRows: [PolicyRow] = optionTable.flatMap { option, accepting in
    SessionCategory.allCases.map { c in
        let accepted = accepting.contains(c)
        let implied: Set<SessionOption> = option == .duckOthers || option == .interruptSpokenAudioAndMixWithOthers
            ? [option, .mixWithOthers] : [option]
        return PolicyRow(
            name: "option \(option) is \(accepted ? "accepted" : "badParam") in \(c)",
            apps: [app("x", fg: true)],
            action: .setCategory(app: "x", category: c, mode: .default, options: [option]),
            error: accepted ? nil : .badParam,
            checks: accepted ? [.options("x", c == .ambient ? implied.union([.mixWithOthers]) : implied), .noWarnings]
                : [.message("option \(option.rawValue)"), .message("category \(c.rawValue)"),
                   .options("x", [])])
    }
}

/// docs/session-policy.md's mode list, written out.
let modeTable: [(SessionMode, Set<SessionCategory>)] = [
    (.default, Set(SessionCategory.allCases)),
    (.voiceChat, [.playAndRecord]), (.videoChat, [.playAndRecord]), (.gameChat, [.playAndRecord]),
    (.videoRecording, [.record, .playAndRecord]), (.measurement, [.record, .playAndRecord, .playback]),
    (.moviePlayback, [.playback]), (.spokenAudio, [.playback]), (.voicePrompt, [.playback, .playAndRecord]),
]

/// A row per mode and category: supported, or accepted with a warning and behaving as default.
let modeRows: [PolicyRow] = modeTable.flatMap { mode, supporting in
    SessionCategory.allCases.map { c in
        let supported = supporting.contains(c)
        return PolicyRow(
            name: "mode \(mode) in \(c) is \(supported ? "supported" : "a warning and behaves as default")",
            apps: [app("x", fg: true)],
            action: .setCategory(app: "x", category: c, mode: mode, options: []),
            checks: supported ? [.noWarnings, .effectiveMode("x", mode)]
                : [.warning("behaves as mode default"), .warning("mode \(mode.rawValue)"), .effectiveMode("x", .default)])
    }
}

/// Category changes and the messages that name the fix.
let categoryChangeRows: [PolicyRow] = [
    PolicyRow(
        name: "badParam lists the options the category accepts",
        apps: [app("x", fg: true)],
        action: .setCategory(app: "x", category: .playback, mode: .default, options: [.allowAirPlay]),
        error: .badParam,
        checks: [.message("accepted: mixWithOthers, duckOthers, interruptSpokenAudioAndMixWithOthers")]),
    PolicyRow(
        name: "mixWithOthers in soloAmbient is badParam and accepts nothing",
        apps: [app("x", fg: true)],
        action: .setCategory(app: "x", category: .soloAmbient, mode: .default, options: [.mixWithOthers]),
        error: .badParam,
        checks: [.message("accepted: none")]),
    PolicyRow(
        name: "ambient sets mixWithOthers by itself",
        apps: [app("x", fg: true)],
        action: .setCategory(app: "x", category: .ambient, mode: .default, options: []),
        checks: [.options("x", [.mixWithOthers])]),
    PolicyRow(
        name: "an unsupported mode warns naming the modes the category accepts",
        apps: [app("x", fg: true)],
        action: .setCategory(app: "x", category: .playback, mode: .voiceChat, options: []),
        checks: [.warning("accepted: default, measurement, moviePlayback, spokenAudio, voicePrompt")]),
    PolicyRow(
        name: "changing the category of an active session is a categoryChange route change",
        apps: [app("x", .playback, active: true, fg: true)],
        action: .setCategory(app: "x", category: .playAndRecord, mode: .default, options: []),
        events: [.route("x", .categoryChange)],
        checks: [.active("x", true), .gain("x", 1)]),
    PolicyRow(
        name: "changing the category of an inactive session sends nothing",
        apps: [app("x", .playback, fg: true)],
        action: .setCategory(app: "x", category: .playAndRecord, mode: .default, options: []),
        checks: [.active("x", false)]),
    PolicyRow(
        name: "an active session that stops mixing interrupts the other non-mixable session",
        apps: [app("x", .playback, options: [.mixWithOthers], active: true, fg: true),
               app("y", .playback, active: true, audio: true)],
        action: .setCategory(app: "x", category: .playback, mode: .default, options: []),
        events: [.began("y"), .suspended("y")],
        checks: [.gain("x", 1), .gain("y", 0), .nowPlaying("x")]),
    PolicyRow(
        name: "a background session may not stop mixing while another non-mixable session is active",
        apps: [app("x", .playback, active: true, fg: true),
               app("y", .playback, options: [.mixWithOthers], active: true, audio: true)],
        action: .setCategory(app: "y", category: .playback, mode: .default, options: []),
        error: .cannotInterruptOthers),
    PolicyRow(
        name: "a session may not stop mixing during a call",
        apps: [app("c", .playAndRecord, active: true, audio: true, grants: [.priorityAudio]),
               app("x", .playback, options: [.mixWithOthers], active: true, fg: true)],
        action: .setCategory(app: "x", category: .playback, mode: .default, options: []),
        error: .insufficientPriority),
]
