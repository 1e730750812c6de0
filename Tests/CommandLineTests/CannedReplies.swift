import ControlSocket

/// Protocol-shaped results (PROTOCOL.md, "Methods") for ``CannedEngine``.
enum CannedReplies {
    static func session(_ category: String, mode: String = "default", options: [String] = [], active: Bool = true,
                        gain: Double = 1, ducked: Bool = false, foreground: Bool = false) -> SessionStatus {
        var session = SessionStatus(category: category, mode: mode, options: options)
        session.active = active
        session.audible = true
        session.gain = gain
        session.ducked = ducked
        session.foreground = foreground
        session.playing = active
        return session
    }

    /// An app as the engine writes it, with its plugin named as the engine names it.
    static func app(_ id: String, role: String, plugin: String, component: String? = nil, hosts: [String] = [], gain: Double = 1,
                    session: SessionStatus? = nil) -> AppStatus {
        var app = AppStatus(id: id, role: role, plugin: plugin)
        app.component = component
        app.hosts = hosts
        app.gain = gain
        app.session = session
        return app
    }

    /// Made from the protocol's types, as the engine makes them.
    static let apps: [AppStatus] = {
        var synth = app("synth", role: "node", plugin: "builtin:poly-synth", component: "auri/poly/demo", hosts: ["daw"])
        synth.muted = true
        synth.fault = .init(kind: "deadline", action: "bypassed", reason: "its process took more than 50 % of the period in 3 consecutive cycles")
        var rear = app("rear", role: "app", plugin: "builtin:program")
        var link = AppStatus.Link(direction: "receive", address: "0.0.0.0:30100", channels: 2, bridge: "zita-n2j", client: "rear-link")
        link.state = .running
        link.since = 12.5
        link.pid = 4242
        link.latency = 480
        link.lockedAfter = 0.75
        link.restarts = 1
        link.dropouts = 1
        link.sender = .init(address: "192.168.1.20", channels: 2, sampleRate: 48_000)
        link.resampler = .init(error: -0.3, ratio: 1.00001, fewestFrames: 251)
        link.lastExit = "zita-n2j was killed by signal 9"
        rear.link = link
        return [
            app("daw", role: "host", plugin: "builtin:host-mixer", session: session("playAndRecord", options: ["mixWithOthers"], foreground: true)),
            synth,
            app("nav", role: "app", plugin: "builtin:oscillator", session: session("playback", mode: "voicePrompt", options: ["duckOthers"])),
            app("music", role: "app", plugin: "builtin:oscillator", gain: 0.25,
                session: session("playback", options: ["mixWithOthers"], gain: 0.25, ducked: true)),
            rear,
        ]
    }()

    /// Made from the protocol's type, as the engine makes it.
    static let status: ControlJSON = {
        var jack = JackStatus(server: "default", client: "iaa")
        jack.sampleRate = 48_000
        jack.bufferSize = 256
        jack.dspLoad = 3.14
        jack.xruns = 2
        return StatusReply(
            graph: "studio", jack: jack, transport: .init(playing: true, tempo: 120, bar: 3, beat: 2), apps: apps,
            jackConnections: [.init(from: "iaa:daw.out_1", to: "system:playback_1", rule: "daw:out_1 -> @playback"),
                              .init(from: "iaa:synth.out_1", to: "jack_meter:in")],
            rules: [.init(rule: "daw:out_1 -> @playback", state: .made,
                          connections: [.init(from: "iaa:daw.out_1", to: "system:playback_1", made: true)]),
                    .init(rule: "nav:out -> mpv:in_0", state: .pending, waitingFor: "mpv:in_0"),
                    .init(rule: "music:out -> @playback", state: .removed, connections: []),
                    .init(rule: "music:out -> mpv:in_1", state: .removed, connections: [])],
            satellite: .init(primary: "ssh://head-unit/run/user/1000/iaa/head.sock", state: .joined, since: 3.5,
                             reason: "joined the primary at ssh://head-unit/run/user/1000/iaa/head.sock: it decides for 2 apps",
                             joins: 1, apps: ["nav", "music"])).json
    }()

    /// Made from the protocol's type, as the engine makes it.
    static let ports = ControlJSON.array([
        PortListing(name: "iaa:synth.out_1", app: "synth", port: "out_1", type: "32 bit float mono audio", direction: .output,
                    connections: ["system:playback_1", "iaa:daw.in_1"], capture: 64...64, playback: 256...512),
        PortListing(name: "iaa:daw.in_1", app: "daw", port: "in_1", type: "32 bit float mono audio", direction: .input,
                    connections: ["iaa:synth.out_1"], capture: 64...64, playback: 320...576),
        PortListing(name: "iaa:synth.midi_in", app: "synth", port: "midi_in", type: "8 bit raw midi", direction: .input,
                    connections: [], capture: 0...0, playback: 0...0),
    ].map(\.json))

    /// Made from the protocol's type, as the engine makes it.
    static let dump = DumpReply(
        graph: "studio", apps: apps, connections: [.init(from: "synth:out_1", to: "daw:in_1", gain: 1)],
        jackConnections: [ConnectionEnds(from: "iaa:synth.out_1", to: "system:playback_1")],
        policy: .init(duckLevel: -12, rampTime: 0.05, backgroundTaskTime: 180), tempo: 120, beatsPerBar: 4,
        device: .init(silent: false, locked: false, routeAvailable: true)).json

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
    static func outcome(for call: ControlCall) -> ControlJSON {
        var events: [SessionEventMessage] = []
        if case .interrupt(_, let reason) = call {
            events.append(SessionEventMessage(app: "music", name: "interruption", type: "began", options: [], reason: reason ?? "default"))
        } else if case .activate = call {
            events.append(SessionEventMessage(app: "music", name: "silenceSecondaryAudioHint", type: "begin"))
        }
        let warnings = call.method == .device ? ["nav does not obey the Ring/Silent switch"] : []
        return ActionOutcome(events: events, warnings: warnings, sessions: [(app: "music", session: session("playback").json)]).json
    }

    static func apply(text: String, file: String, dryRun: Bool) -> ControlReply {
        if text.contains("in_9") {
            return .error(code: "invalidGraph", message: """
                \(file):3:12: error[unknownPort]: /connections/0/to: app "daw" has no input "in_9" (inputs: in_1, in_2)
                  hint: did you mean "in_1"?
                """)
        }
        // Made from the protocol's type: connections as text, as the engine writes them.
        let diff = ApplyReply.Diff(appsAdded: ["echo"], appsRemoved: ["nav"], appsChanged: ["music"],
                                   connectionsAdded: ["echo:out -> daw:in_2 (gain 0.5)"], connectionsRemoved: ["nav:out -> daw:in_1"],
                                   jackConnectionsRemoved: ["nav:out -> @playback"])
        return .result(ApplyReply(applied: !dryRun, diff: diff).json)
    }
}
