import AudioGraph
import GraphFormat
import Testing
import TestKit

@Suite("Timeline actions the engine applies: MIDI, transport, parameters, connections")
struct TimelineEngineActionTests {
    /// A host, an instrument (`keys`, the only MIDI input), a generator, an effect and two plain apps.
    static let graphPath = "Tests/Fixtures/graphs/valid/inter-app-audio.json"

    static func graph() throws -> Graph {
        try #require(TestSupport.load(graphPath).graph)
    }

    static func load(entry: String) throws -> TimelineLoadResult {
        TimelineFile.load(text: "{ \"timeline\": [\n\(entry)\n] }", file: "t.json", graph: try graph())
    }

    static func port(_ app: Int, _ port: Int) -> PortAddress { PortAddress(app: app, port: port) }

    @Test("every engine action parses, against apps with or without a session")
    func everyAction() throws {
        let path = "Tests/Fixtures/timelines/valid/engine-actions.json"
        let text = try #require(Repository.read(path))
        let result = TimelineFile.load(text: text, file: path, graph: try Self.graph())
        #expect(result.diagnostics.map(\.formatted) == [])
        let entries = try #require(result.entries)
        // Apps: daw 0, keys 1, seq 2, echo 3, tone 4, bus 5.
        #expect(entries.map(\.action) == [
            .transport(playing: true),
            .midi(app: "keys", bytes: [144, 60, 100]),
            .midi(app: "keys", bytes: [128, 60, 0]),
            .midi(app: "keys", bytes: [192, 5]),
            .midi(app: "keys", bytes: [248]),
            .setParameter(app: "echo", index: 0, value: 500),
            .setParameter(app: "tone", index: 1, value: ParameterValue.parse("-6dB") ?? 0),
            .setParameter(app: "bus", index: 0, value: 0.5),
            // Into a host from a plain app: Inter-App Audio refuses it, but at run time, not here.
            .connect([Connection(from: Self.port(4, 0), to: Self.port(0, 1), gain: 0.5)]),
            .connect([Connection(from: Self.port(2, 0), to: Self.port(5, 1))]),
            .disconnect([Connection(from: Self.port(1, 0), to: Self.port(0, 0))]),
            // Not a connection of the graph file; an earlier `connect` could have made it.
            .disconnect([Connection(from: Self.port(4, 0), to: Self.port(3, 0))]),
            .transport(playing: false),
            .session(.activate(app: "keys")),
        ])
    }

    @Test("decibels on a parameter that is not a gain warn, as in the graph file")
    func decibelWarning() throws {
        let result = try Self.load(entry: #"{ "at": 1, "do": "setParam", "app": "echo", "param": "cutoff", "value": "66dB" }"#)
        #expect(result.errors.isEmpty)
        #expect(result.warnings.map(\.pointer) == ["/timeline/0/value"])
        #expect(result.entries?.count == 1)
    }

    @Test("a connect error reads as the graph file's would")
    func connectMessage() throws {
        let result = try Self.load(entry: #"{ "at": 1, "do": "connect", "from": "tone:out", "to": "daw:in_9" }"#)
        #expect(result.errors.first?.formatted == """
            t.json:2:55: error[unknownPort]: /timeline/0/to: app "daw" has no input "in_9" (inputs: in_1, in_2)
              hint: use one of the inputs listed, or configure the app to have more (a mixer's "inputs")
            """)
    }

    @Test("MIDI to an app without a MIDI input names the apps that have one")
    func midiWithoutInput() throws {
        let result = try Self.load(entry: #"{ "at": 1, "do": "midi", "app": "tone", "bytes": [144, 60, 100] }"#)
        #expect(result.errors.map(\.message) == [#"app "tone" has no MIDI input (node type "builtin:oscillator")"#])
        #expect(result.errors.map(\.hint) == ["apps with a MIDI input: keys"])
    }

    /// An entry, the error it gives, where, and its hint.
    static let mistakes: [(entry: String, code: GraphErrorCode, pointer: String, hint: String?)] = [
        (#"{ "at": 1, "do": "midi", "app": "kyes", "bytes": [144, 60, 100] }"#, .unknownApp, "/timeline/0/app", "did you mean \"keys\"?"),
        (#"{ "at": 1, "do": "midi", "app": "seq", "bytes": [144, 60, 100] }"#, .unknownPort, "/timeline/0/app", "apps with a MIDI input: keys"),
        (#"{ "at": 1, "do": "midi", "app": "keys" }"#, .missingKey, "/timeline/0/bytes", nil),
        (#"{ "at": 1, "do": "midi", "app": "keys", "bytes": "90 3C 64" }"#, .wrongType, "/timeline/0/bytes", nil),
        (#"{ "at": 1, "do": "midi", "app": "keys", "bytes": [] }"#, .invalidValue, "/timeline/0/bytes", "for example [144, 60, 100]: note on, middle C, velocity 100"),
        (#"{ "at": 1, "do": "midi", "app": "keys", "bytes": [144, 60, 100, 0] }"#, .invalidValue, "/timeline/0/bytes", "for example [144, 60, 100]: note on, middle C, velocity 100"),
        (#"{ "at": 1, "do": "midi", "app": "keys", "bytes": [144, "C4", 100] }"#, .wrongType, "/timeline/0/bytes/1", nil),
        (#"{ "at": 1, "do": "midi", "app": "keys", "bytes": [144, 60, 256] }"#, .outOfRange, "/timeline/0/bytes/2", "MIDI bytes are 0...255: a status byte 128...255, then data bytes 0...127"),
        (#"{ "at": 1, "do": "midi", "app": "keys", "bytes": [144, 60.5, 100] }"#, .outOfRange, "/timeline/0/bytes/1", "MIDI bytes are 0...255: a status byte 128...255, then data bytes 0...127"),
        (#"{ "at": 1, "do": "midi", "app": "keys", "bytes": [60, 100] }"#, .invalidValue, "/timeline/0/bytes/0", "start with the status byte, such as 144 (note on, channel 1)"),
        (#"{ "at": 1, "do": "midi", "app": "keys", "bytes": [144, 200, 100] }"#, .invalidValue, "/timeline/0/bytes/1", "send each message in its own entry"),
        (#"{ "at": 1, "do": "midi", "app": "keys", "bytes": [144, 60] }"#, .invalidValue, "/timeline/0/bytes", "for example [144, 60, 100]"),
        (#"{ "at": 1, "do": "midi", "app": "keys", "bytes": [192, 5, 0] }"#, .invalidValue, "/timeline/0/bytes", "for example [192, 0]"),
        (#"{ "at": 1, "do": "midi", "app": "keys", "bytes": [240, 1, 2] }"#, .invalidValue, "/timeline/0/bytes/0", "send channel or system common messages"),
        (#"{ "at": 1, "do": "play", "app": "keys" }"#, .unknownKey, "/timeline/0/app", "allowed keys: at, do"),
        (#"{ "at": 1, "do": "stopp" }"#, .unknownAction, "/timeline/0/do", "did you mean \"stop\"?"),
        (#"{ "at": 1, "do": "setParam", "app": "zzz", "param": "gain", "value": 1 }"#, .unknownApp, "/timeline/0/app", "apps: daw, keys, seq, echo, tone, bus"),
        (#"{ "at": 1, "do": "setParam", "app": "echo", "param": "cutof", "value": 1 }"#, .unknownParameter, "/timeline/0/param", "did you mean \"cutoff\"?"),
        (#"{ "at": 1, "do": "setParam", "app": "keys", "param": "voices", "value": 2 }"#, .unknownParameter, "/timeline/0/param", "change it in the graph file"),
        (#"{ "at": 1, "do": "setParam", "app": "echo", "value": 1 }"#, .missingKey, "/timeline/0/param", nil),
        (#"{ "at": 1, "do": "setParam", "app": "echo", "param": "cutoff" }"#, .missingKey, "/timeline/0/value", nil),
        (#"{ "at": 1, "do": "setParam", "app": "echo", "param": "cutoff", "value": 30000 }"#, .parameterOutOfRange, "/timeline/0/value", "use a value from 20 to 20000"),
        (#"{ "at": 1, "do": "setParam", "app": "echo", "param": "cutoff", "value": "loud" }"#, .invalidValue, "/timeline/0/value", "write a number, a percentage such as \"50%\" or decibels such as \"-6dB\""),
        (#"{ "at": 1, "do": "setParam", "app": "echo", "param": "cutoff", "value": true }"#, .wrongType, "/timeline/0/value", nil),
        (#"{ "at": 1, "do": "connect", "from": "echo:in", "to": "bus:in_1" }"#, .wrongDirection, "/timeline/0/from", "connections go from an output to an input; swap \"from\" and \"to\"?"),
        (#"{ "at": 1, "do": "connect", "from": "tnoe:out", "to": "bus:in_1" }"#, .unknownApp, "/timeline/0/from", "did you mean \"tone\"?"),
        (#"{ "at": 1, "do": "connect", "from": "tone", "to": "bus:in_1" }"#, .invalidEndpoint, "/timeline/0/from", "name one of its ports, such as \"tone:out\""),
        (#"{ "at": 1, "do": "connect", "from": "tone:out", "to": "bus:input" }"#, .unknownPort, "/timeline/0/to", "use one of the inputs listed, or configure the app to have more (a mixer's \"inputs\")"),
        (#"{ "at": 1, "do": "connect", "from": "tone:out" }"#, .missingKey, "/timeline/0/to", nil),
        (#"{ "at": 1, "do": "connect", "from": "tone:out", "to": "bus:in_1", "gain": -1 }"#, .invalidGain, "/timeline/0/gain", "write a linear gain such as 0.5, or decibels such as \"-6dB\""),
        (#"{ "at": 1, "do": "connect", "from": "tone:out", "to": "bus:in_1", "gain": [1] }"#, .wrongType, "/timeline/0/gain", nil),
        (#"{ "at": 1, "do": "disconnect", "from": "tone:out", "to": "bus:in_1", "gain": 1 }"#, .unknownKey, "/timeline/0/gain", "allowed keys: at, do, from, to"),
        (#"{ "at": 1, "do": "disconnect", "from": "bus:out", "to": "@playback" }"#, .invalidEndpoint, "/timeline/0/to", nil),
    ]

    @Test("each kind of mistake is a located error with its fix", arguments: mistakes)
    func errors(entry: String, code: GraphErrorCode, pointer: String, hint: String?) throws {
        try TestSupport.expectOnlyError(of: try Self.load(entry: entry), code: code, pointer: pointer, hint: hint, line: 2)
    }

    @Test("every error of an entry is reported, not just the first")
    func collectsErrors() throws {
        let result = try Self.load(entry: #"{ "at": 1, "do": "connect", "from": "nobody:out", "to": "tone:in", "gain": "loud" }"#)
        #expect(result.errors.map(\.code) == [.unknownApp, .unknownPort, .invalidGain])
        let midi = try Self.load(entry: #"{ "at": 1, "do": "midi", "app": "tone", "bytes": [1000] }"#)
        #expect(midi.errors.map(\.code) == [.unknownPort, .outOfRange])
    }
}
