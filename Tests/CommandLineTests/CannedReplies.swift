import ControlSocket

/// Protocol-shaped results (PROTOCOL.md, "Methods") for ``CannedEngine``.
enum CannedReplies {
    static func session(_ category: String, mode: String = "default", options: [ControlJSON] = [], active: Bool = true,
                        gain: Double = 1, ducked: Bool = false, foreground: Bool = false) -> ControlJSON {
        ["category": .string(category), "mode": .string(mode), "options": .array(options), "active": .bool(active),
         "audible": true, "gain": .number(gain), "ducked": .bool(ducked), "interrupted": false, "suspended": false,
         "foreground": .bool(foreground), "playing": .bool(active), "otherAudioPlaying": false,
         "secondaryAudioShouldBeSilencedHint": false]
    }

    static let apps: ControlJSON = [
        ["id": "daw", "role": "host", "plugin": "hostMixer", "component": nil, "hosts": [],
         "session": session("playAndRecord", options: ["mixWithOthers"], foreground: true)],
        ["id": "synth", "role": "node", "plugin": "polySynth", "component": "auri/poly/demo", "hosts": ["daw"], "session": nil,
         "fault": ["kind": "deadline", "action": "bypassed",
                   "reason": "its process took more than 50 % of the period in 3 consecutive cycles"]],
        ["id": "nav", "role": "app", "plugin": "oscillator", "component": nil, "hosts": [],
         "session": session("playback", mode: "voicePrompt", options: ["duckOthers"])],
        ["id": "music", "role": "app", "plugin": "oscillator", "component": nil, "hosts": [],
         "session": session("playback", options: ["mixWithOthers"], gain: 0.25, ducked: true)],
        ["id": "rear", "role": "app", "plugin": "builtin:program", "component": nil, "hosts": [], "session": nil,
         "link": ["direction": "receive", "address": "0.0.0.0:30100", "channels": 2, "bridge": "zita-n2j", "client": "rear-link",
                  "state": "running", "since": 12.5, "pid": 4242, "latency": 480, "lockedAfter": 0.75, "restarts": 1,
                  "dropouts": 1, "underruns": 0, "sender": ["address": "192.168.1.20", "channels": 2, "sampleRate": 48000],
                  "resampler": ["error": -0.3, "ratio": 1.00001, "fewestFrames": 251],
                  "lastExit": "zita-n2j was killed by signal 9", "lastMessage": nil]],
    ]

    static let status: ControlJSON = [
        "graph": "studio",
        "jack": ["server": "default", "client": "iaa", "sampleRate": 48000, "bufferSize": 256, "dspLoad": 3.14,
                 "xruns": 2, "ourXruns": 0],
        "transport": ["playing": true, "tempo": 120, "bar": 3, "beat": 2],
        "apps": apps,
        "interruption": false,
        "satellite": ["primary": "ssh://head-unit/run/user/1000/iaa/head.sock", "state": "joined", "since": 3.5,
                      "reason": "joined the primary at ssh://head-unit/run/user/1000/iaa/head.sock: it decides for 2 apps",
                      "joins": 1, "apps": ["nav", "music"]],
    ]

    /// Made from the protocol's type, as the engine makes it.
    static let ports = ControlJSON.array([
        PortListing(name: "iaa:synth.out_1", app: "synth", port: "out_1", type: "32 bit float mono audio", direction: .output,
                    connections: ["system:playback_1", "iaa:daw.in_1"], capture: 64...64, playback: 256...512),
        PortListing(name: "iaa:daw.in_1", app: "daw", port: "in_1", type: "32 bit float mono audio", direction: .input,
                    connections: ["iaa:synth.out_1"], capture: 64...64, playback: 320...576),
        PortListing(name: "iaa:synth.midi_in", app: "synth", port: "midi_in", type: "8 bit raw midi", direction: .input,
                    connections: [], capture: 0...0, playback: 0...0),
    ].map(\.json))

    static let dump: ControlJSON = [
        "graph": "studio", "apps": apps,
        "connections": [["from": "synth:out_1", "to": "daw:in_1", "gain": 1]],
        "jackConnections": [["from": "iaa:synth.out_1", "to": "system:playback_1"]],
        "policy": ["duckLevel": -12], "transport": ["tempo": 120],
        "device": ["silent": false, "locked": false, "routeAvailable": true],
    ]

    /// Made from the protocol's type, with the units as the engine names them.
    static func parameters(app: String, param: String?) -> ControlJSON {
        let all: [ParameterReading.Parameter] = [
            .init(name: "frequency", value: 440, min: 20, max: 20000, defaultValue: 440, unit: "hertz"),
            .init(name: "gain", value: 0.5, min: 0, max: 1, defaultValue: 0.8, unit: "generic"),
        ]
        return ParameterReading(app: app, parameters: all.filter { param == nil || $0.name == param }).json
    }

    /// An Outcome, made from the protocol's type: an interruption for `interrupt`, the secondary
    /// audio hint for `session.activate`, and a warning for `device`.
    static func outcome(for request: ControlRequest) -> ControlJSON {
        var events: [SessionEventMessage] = []
        if request.method == "interrupt" {
            events.append(SessionEventMessage(app: "music", name: "interruption", type: "began", options: [],
                                              reason: request["reason"]?.stringValue ?? "default"))
        } else if request.method == "session.activate" {
            events.append(SessionEventMessage(app: "music", name: "silenceSecondaryAudioHint", type: "begin"))
        }
        let warnings = request.method == "device" ? ["nav does not obey the Ring/Silent switch"] : []
        return ActionOutcome(events: events, warnings: warnings, sessions: [(app: "music", session: ["category": "playback", "active": true])]).json
    }

    static func apply(_ request: ControlRequest) -> ControlReply {
        if request["text"]?.stringValue?.contains("in_9") == true {
            let file = request["file"]?.stringValue ?? "?"
            return .error(code: "invalidGraph", message: """
                \(file):3:12: error[unknownPort]: /connections/0/to: app "daw" has no input "in_9" (inputs: in_1, in_2)
                  hint: did you mean "in_1"?
                """)
        }
        // Made from the protocol's type: connections as text, as the engine writes them.
        let diff = ApplyReply.Diff(appsAdded: ["echo"], appsRemoved: ["nav"], appsChanged: ["music"],
                                   connectionsAdded: ["echo:out -> daw:in_2 (gain 0.5)"], connectionsRemoved: ["nav:out -> daw:in_1"],
                                   jackConnectionsRemoved: ["nav:out -> @playback"])
        return .result(ApplyReply(applied: request["dryRun"] != .bool(true), diff: diff).json)
    }
}
