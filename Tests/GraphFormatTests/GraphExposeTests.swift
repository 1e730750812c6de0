import AudioGraph
import GraphFormat
import Nodes
import Testing

/// `jack.expose`: which app ports become JACK ports.
@Suite("Exposed ports")
struct GraphExposeTests {
    static func graph(expose: String?, jackConnections: String = "") -> String {
        """
        { "format": "iaa-graph/1", "name": "x",
          "apps": [
            { "id": "tone", "plugin": "builtin:oscillator" },
            { "id": "synth", "plugin": "builtin:poly-synth" },
            { "id": "mix", "plugin": "builtin:mixer", "params": { "inputs": 2 } } ],
          "connections": [ { "from": "tone:out", "to": "mix:in_1" }, { "from": "synth:out", "to": "mix:in_2" } ],
          "jack": { \(expose.map { "\"expose\": \($0), " } ?? "")"connections": [\(jackConnections)] } }
        """
    }

    static func load(_ text: String) -> GraphLoadResult {
        GraphFile.load(text: text, file: "x.json", registry: NodeRegistry(BuiltinNodes.types))
    }

    /// The exposed ports as the plan registers them: `app.port` names in plan order.
    static func exposedNames(_ text: String) throws -> [String] {
        let graph = try #require(load(text).graph, "\(load(text).diagnostics.map(\.formatted))")
        let plan = PlanCompiler.compile(graph, slots: try NodeInstances(sampleRate: 48_000, maximumFrames: 64).slots(for: graph),
                                        sampleRate: 48_000, maximumFrames: 64, generation: 1)
        return plan.externalPorts.map(\.shortName)
    }

    @Test("by default every app port is a JACK port")
    func allByDefault() throws {
        let all = try Self.exposedNames(Self.graph(expose: nil))
        #expect(all == ["mix.in_1", "mix.in_2", "tone.out", "synth.out", "mix.out", "synth.midi_in"])
        #expect(try Self.exposedNames(Self.graph(expose: #""all""#)) == all)
    }

    @Test("patterns (globs on either side) choose ports; jack.connections' ports are always exposed")
    func patterns() throws {
        #expect(try Self.exposedNames(Self.graph(expose: #"["mix:out", "synth:midi*"]"#)) == ["mix.out", "synth.midi_in"])
        #expect(try Self.exposedNames(Self.graph(expose: #"["*:out"]"#)) == ["tone.out", "synth.out", "mix.out"])
        #expect(try Self.exposedNames(Self.graph(expose: #""none""#)).isEmpty)
        let wired = Self.graph(expose: #""none""#, jackConnections: #"{ "from": "mix:out", "to": "@playback" }, { "from": "@midi-capture", "to": "synth:midi_in" }"#)
        #expect(try Self.exposedNames(wired) == ["mix.out", "synth.midi_in"])
        let graph = try #require(Self.load(Self.graph(expose: #"["mix:*"]"#)).graph)
        #expect(graph.exposure.patterns == ["mix:*"])
        #expect(graph.exposure.exposes(app: 2, .input, port: 1) && !graph.exposure.exposes(app: 0, .output, port: 0))
    }

    @Test("a bad expose is a located error with a hint", arguments: [
        (#"["mux:out"]"#, "unknownApp", "/jack/expose/0", "did you mean \"mix\"?"),
        (#"["mix:gain*"]"#, "emptyGlob", "/jack/expose/0", "ports: in_1, in_2, out"),
        (#"["nothing*:out"]"#, "emptyGlob", "/jack/expose/0", nil),
        (#"["mix"]"#, "invalidEndpoint", "/jack/expose/0", "expose every port of the app with \"mix:*\""),
        (#"[1]"#, "wrongType", "/jack/expose/0", nil),
        (#""some""#, "invalidValue", "/jack/expose", "for example \"expose\": [\"mix:*\"]"),
        (#"{}"#, "wrongType", "/jack/expose", nil),
    ] as [(String, String, String, String?)])
    func errors(expose: String, code: String, pointer: String, hint: String?) throws {
        let result = Self.load(Self.graph(expose: expose))
        #expect(result.graph == nil)
        let error = try #require(result.errors.first)
        #expect(error.code.rawValue == code, "\(error.formatted)")
        #expect(error.pointer == pointer)
        #expect(error.line == 7)
        if let hint { #expect(error.hint == hint, "\(error.formatted)") }
    }
}
