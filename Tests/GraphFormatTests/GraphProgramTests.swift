import AudioGraph
import GraphFormat
import Nodes
import Testing

/// The `program` block: an app whose sound comes from an outside process (docs/programs.md).
@Suite("Program apps in the graph file")
struct GraphProgramTests {
    static func graph(music: String, extraConnections: String = "", expose: String = #"["mix:*"]"#) -> String {
        """
        { "format": "iaa-graph/1", "name": "x",
          "apps": [
            \(music),
            { "id": "mix", "plugin": "builtin:mixer", "params": { "inputs": 2 } } ],
          "connections": [ { "from": "music:out_1", "to": "mix:in_1" }\(extraConnections) ],
          "jack": { "expose": \(expose) } }
        """
    }

    static func load(_ text: String) -> GraphLoadResult {
        GraphFile.load(text: text, file: "x.json", registry: NodeRegistry(BuiltinNodes.types))
    }

    @Test("a program app has play/out and in/capture ports, its binding, and its program ends are always JACK ports")
    func validProgramApp() throws {
        let text = Self.graph(music: #"""
            { "id": "music", "program": { "jackClient": "mpv*", "uid": 1000, "executable": "/usr/bin/mpv", "outputs": 2, "inputs": 1,
                                         "directConnections": "allow" },
              "session": { "category": "playback" } }
            """#)
        let graph = try #require(Self.load(text).graph, "\(Self.load(text).diagnostics.map(\.formatted))")
        let music = graph.apps[0]
        #expect(music.type.id == "builtin:program")
        #expect(music.layout.inputs.map(\.name) == ["play_1", "play_2", "in_1"])
        #expect(music.layout.outputs.map(\.name) == ["out_1", "out_2", "capture_1"])
        #expect(music.layout.inputs.map(\.programEnd) == [true, true, false])
        #expect(music.program == ProgramBinding(jackClient: "mpv*", uid: 1000, executable: "/usr/bin/mpv", outputs: 2, inputs: 1,
                                                directConnections: .allow))
        #expect(music.program?.matches(client: "mpv-01") == true)
        #expect(music.program?.matches(client: "vlc") == false)
        #expect(music.program?.refusal(uid: 1000, executable: "/usr/bin/mpv") == nil)
        #expect(music.program?.refusal(uid: 1001, executable: "/usr/bin/mpv")?.contains("uid 1001") == true)
        let plan = PlanCompiler.compile(graph, slots: try NodeInstances(sampleRate: 48_000, maximumFrames: 64).slots(for: graph),
                                        sampleRate: 48_000, maximumFrames: 64, generation: 1)
        let exposed = plan.externalPorts.map(\.shortName)
        for port in ["music.play_1", "music.play_2", "music.capture_1", "mix.out"] {
            #expect(exposed.contains(port), "\(port) is not a JACK port: \(exposed)")
        }
        #expect(!exposed.contains("music.out_1"), "jack.expose left music:out_1 out")
    }

    @Test("mistakes in a program block, and connections to a program's end, are located errors with a fix")
    func mistakes() {
        let text = Self.graph(music: #"""
            { "id": "music", "plugin": "builtin:gain", "role": "node",
              "program": { "jackClient": "a:b", "outputs": 0, "executable": "mpv", "directConnections": "und", "colour": 1 } }
            """#, extraConnections: #", { "from": "mix:out", "to": "music:play_1" }"#)
        let found = Self.load(text).diagnostics.map { "\($0.code.rawValue) \($0.pointer)" }
        for expected in ["programConflict /apps/0/plugin", "programConflict /apps/0/role", "invalidValue /apps/0/program/jackClient",
                         "outOfRange /apps/0/program/outputs", "invalidValue /apps/0/program/executable",
                         "invalidValue /apps/0/program/directConnections", "unknownKey /apps/0/program/colour"] {
            #expect(found.contains(expected), "\(expected) missing from \(found)")
        }
        let ends = Self.load(Self.graph(music: #"{ "id": "music", "program": { "jackClient": "mpv" } }"#,
                                        extraConnections: #", { "from": "mix:out", "to": "music:play_1" }"#)).diagnostics
        #expect(ends.map(\.code) == [.programPort])
        #expect(ends.first?.hint == "use \"music:out_1\", the app's side of the route")
        let written = Self.load(Self.graph(music: #"{ "id": "music", "plugin": "builtin:program" }"#)).diagnostics
        #expect(written.map(\.code) == [.programConflict])
    }

    @Test("a program that only speaks for its session may have no outputs (a satellite's app); one routed from a JACK client may not")
    func sessionOnly() throws {
        let text = """
            { "format": "iaa-graph/1", "name": "x",
              "apps": [ { "id": "rearNav", "program": { "outputs": 0 },
                          "session": { "category": "playback", "mode": "voicePrompt", "options": ["duckOthers"] } } ] }
            """
        let graph = try #require(Self.load(text).graph, "\(Self.load(text).diagnostics.map(\.formatted))")
        #expect(graph.apps[0].layout.inputs.isEmpty && graph.apps[0].layout.outputs.isEmpty)
        #expect(graph.apps[0].program == ProgramBinding(jackClient: nil, outputs: 0))
        let routed = Self.load(Self.graph(music: #"{ "id": "music", "program": { "jackClient": "mpv", "outputs": 0 } }"#)).diagnostics
        #expect(routed.map { "\($0.code.rawValue) \($0.pointer)" } == ["outOfRange /apps/0/program/outputs"])
        #expect(routed.first?.hint?.contains("no \"jackClient\"") == true)
    }
}
