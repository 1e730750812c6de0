import LocatedJSON
import AudioGraph
import NodeKit
import Testing

@Suite("Graph validation")
struct GraphValidationTests {
    @Test("every error in a file is reported, in document order")
    func collectsEveryError() {
        let result = TestSupport.load(json: """
            {
              "format": "iaa-graph/1",
              "name": "many",
              "colour": "red",
              "apps": [
                { "id": "tone", "plugin": "builtin:oscilator" },
                { "id": "mix", "plugin": "builtin:mixer", "params": { "inputs": 0, "gian": 1 } },
                { "id": "level", "plugin": "builtin:gain", "params": { "gain": "loud" } },
                { "id": "bad id", "plugin": "builtin:gain" }
              ],
              "connections": [
                { "from": "tone:out", "to": "mix:in_1" },
                { "from": "nobody:out", "to": "mix:in_1" },
                { "from": "level:out", "to": "level:in", "gain": -1 }
              ],
              "jack": { "connections": [ { "from": "level:out", "to": "@speakers" } ] }
            }
            """)
        #expect(result.graph == nil)
        #expect(result.errors.map(\.code) == [
            .unknownKey, .unknownPlugin, .parameterOutOfRange, .unknownParameter, .invalidValue, .invalidId,
            .unknownApp, .cycle, .invalidGain, .invalidEndpoint,
        ])
        #expect(result.errors.map(\.line) == [4, 6, 7, 7, 8, 9, 13, 14, 14, 16])
    }

    @Test("an app whose plugin is unknown does not cascade into port errors")
    func noCascade() {
        let result = TestSupport.load(json: """
            { "format": "iaa-graph/1", "name": "x",
              "apps": [ { "id": "a", "plugin": "nope" }, { "id": "b", "plugin": "builtin:gain" } ],
              "connections": [ { "from": "a:out", "to": "b:in" } ] }
            """)
        #expect(result.errors.map(\.code) == [.unknownPlugin])
    }

    @Test("apps are ordered after the apps that feed them, in file order otherwise")
    func topologicalOrder() throws {
        let graph = try #require(TestSupport.load("Tests/Fixtures/graphs/valid/declared-out-of-order.json").graph)
        #expect(graph.order.map { graph.apps[$0].id } == ["source", "left", "right", "out"])
        let independent = try #require(TestSupport.load(json: """
            { "format": "iaa-graph/1", "name": "x", "apps": [
              { "id": "c", "plugin": "builtin:gain" }, { "id": "a", "plugin": "builtin:gain" },
              { "id": "b", "plugin": "builtin:gain" } ],
              "connections": [ { "from": "b:out", "to": "c:in" } ] }
            """).graph)
        #expect(independent.order.map { independent.apps[$0].id } == ["a", "b", "c"])
    }

    @Test("each cycle is reported at the connection that closes it")
    func cycles() {
        let result = TestSupport.load(json: """
            { "format": "iaa-graph/1", "name": "x", "apps": [
              { "id": "a", "plugin": "builtin:gain" }, { "id": "b", "plugin": "builtin:mixer" },
              { "id": "c", "plugin": "builtin:gain" } ],
              "connections": [
                { "from": "a:out", "to": "b:in_1" },
                { "from": "b:out", "to": "a:in" },
                { "from": "c:out", "to": "c:in" },
                { "from": "b:out", "to": "c:in" }
              ] }
            """)
        #expect(result.errors.map(\.message) == [
            #"apps "a" → "b" → "a" form a cycle"#,
            #"apps "c" → "c" form a cycle"#,
        ])
        #expect(result.errors.map(\.pointer) == ["/connections/1", "/connections/2"])
    }

    @Test("a connection refused as a cycle or a duplicate leaves no trace; a wide app's ports resolve by name")
    func refusedConnectionsAndWideApps() throws {
        // A 16-input mixer's ports are found through its name table, the gain's through a search.
        let result = TestSupport.load(json: """
            { "format": "iaa-graph/1", "name": "x", "apps": [
              { "id": "g", "plugin": "builtin:gain" },
              { "id": "mix", "plugin": "builtin:mixer", "params": { "inputs": 16 } } ],
              "connections": [
                { "from": "g:out", "to": "mix:in_16" },
                { "from": "mix:out", "to": "g:in" },
                { "from": "mix:out", "to": "g:in" },
                { "from": "g:out", "to": "mix:in_16" },
                { "from": "g:out", "to": "mix:in_17" },
                { "from": "g:out", "to": "mix:in_9" }
              ] }
            """)
        // The second cycle is a cycle again, not a duplicate of a connection that was never made.
        #expect(result.errors.map(\.code) == [.cycle, .cycle, .duplicateConnection, .unknownPort])
        #expect(result.errors.map(\.pointer) == ["/connections/1", "/connections/2", "/connections/3", "/connections/4/to"])
        #expect(result.errors[2].message.contains("already connected (by /connections/0 at line 5)"))
        #expect(result.errors[3].message.hasPrefix(#"app "mix" has no input "in_17""#))
    }

    @Test("apps carry their role, configuration, initial parameters and layout")
    func appValues() throws {
        let graph = try #require(TestSupport.load("graphs/demo.json").graph)
        #expect(graph.name == "demo")
        #expect(graph.apps.map(\.id) == ["tone", "noise", "tone-gain", "noise-gain", "mix"])
        let tone = try #require(graph.appIndex("tone").map { graph.apps[$0] })
        #expect(tone.parameters == [440, 0.5])
        #expect(tone.role == .app)
        let toneGain = try #require(graph.appIndex("tone-gain").map { graph.apps[$0] })
        #expect(abs(toneGain.parameters[0] - 0.501187) < 1e-5)
        let noise = try #require(graph.appIndex("noise").map { graph.apps[$0] })
        #expect(noise.configuration.values == ["seed": 7])
        let mix = try #require(graph.appIndex("mix").map { graph.apps[$0] })
        // A plain mixer: a host only takes Inter-App Audio nodes, and these apps are not.
        #expect(mix.role == .app)
        #expect(mix.configuration.values == ["inputs": 2])
        #expect(mix.layout.inputs.map(\.name) == ["in_1", "in_2"])
        #expect(graph.connections.count == 4)
        #expect(graph.externalConnections == [
            ExternalConnection(ports: [PortAddress(app: 4, port: 0)], direction: .toExternal, endpoint: .physicalPlayback),
        ])
    }

    @Test("defaults fill parameters and configuration that the file leaves out")
    func defaults() throws {
        let graph = try #require(TestSupport.load(json: """
            { "format": "iaa-graph/1", "name": "x", "apps": [
              { "id": "n", "plugin": "builtin:noise" }, { "id": "m", "plugin": "builtin:mixer" } ] }
            """).graph)
        #expect(graph.apps[0].parameters == [0.25])
        #expect(graph.apps[0].configuration.values == ["seed": 1])
        #expect(graph.apps[1].layout.inputs.count == 2)
        #expect(graph.order == [0, 1])
    }

    @Test("connection gains accept numbers and decibels, defaulting to 1")
    func gains() throws {
        let graph = try #require(TestSupport.load("graphs/chord.json").graph)
        let gains = graph.connections.map(\.gain)
        #expect(gains[0] == 1 && gains[1] == 0.7)
        #expect(abs(gains[2] - 0.630957) < 1e-5)
        #expect(graph.connections[2].from == PortAddress(app: 2, port: 0))
        #expect(graph.connections[2].to == PortAddress(app: 3, port: 2))
    }

    @Test("globs expand to one app's matching ports in layout order")
    func globs() throws {
        let graph = try #require(TestSupport.load("Tests/Fixtures/graphs/valid/globs-and-fanout.json").graph)
        let mixInputs = (0..<4).map { PortAddress(app: 0, port: $0) }
        #expect(graph.externalConnections == [
            ExternalConnection(ports: mixInputs, direction: .fromExternal, endpoint: .physicalCapture),
            ExternalConnection(ports: mixInputs, direction: .fromExternal, endpoint: .port("system:capture_2")),
            ExternalConnection(ports: [PortAddress(app: 1, port: 0)], direction: .toExternal, endpoint: .port("system:playback_1")),
            ExternalConnection(ports: [PortAddress(app: 2, port: 0)], direction: .toExternal, endpoint: .port("system:playback_2")),
            ExternalConnection(ports: [PortAddress(app: 2, port: 0)], direction: .toExternal, endpoint: .physicalPlayback),
            ExternalConnection(ports: [PortAddress(app: 1, port: 0)], direction: .toExternal, endpoint: .port("jack_rec:in_1")),
        ])
    }

    @Test("the description keeps the fields later work validates")
    func rawFields() throws {
        let result = TestSupport.load("Tests/Fixtures/graphs/valid/all-fields.json")
        let description = try #require(result.description)
        #expect(description.name == "Stüdio \"A\" \\ ♪")
        #expect(description.jackClientName == "studio_a")
        let daw = description.apps[0]
        #expect(daw.entitlements == ["inter-app-audio"])
        #expect(daw.backgroundModes == ["audio"])
        #expect(daw.session?.members?.first?.key == "category")
        #expect(daw.session?.location == SourceLocation(line: 7, column: 18))
        #expect(daw.displayName == "My DAW" && daw.name == "DAW" && daw.state == "foreground")
        #expect(description.apps[1].component?.members?.map(\.key) == ["type", "subtype", "manufacturer", "name", "version"])
        #expect(result.graph?.apps[1].role == .node)
    }

    @Test("JACK names that are too long are errors, never truncated")
    func nameLengths() {
        let longPort = "system:" + String(repeating: "p", count: 250)
        let result = TestSupport.load(json: """
            { "format": "iaa-graph/1", "name": "x", "apps": [ { "id": "g", "plugin": "builtin:gain" } ],
              "jack": { "connections": [ { "from": "g:out", "to": "\(longPort)" },
                                         { "from": "\(String(repeating: "c", count: 64)):x", "to": "g:in" } ] } }
            """)
        #expect(result.errors.map(\.code) == [.nameTooLong, .nameTooLong])
    }

    @Test("decibels on a parameter that is not a gain warn but still validate")
    func decibelWarning() {
        let result = TestSupport.load(json: """
            { "format": "iaa-graph/1", "name": "x", "apps": [
              { "id": "t", "plugin": "builtin:oscillator", "params": { "frequency": "40dB" } } ] }
            """)
        #expect(result.errors.isEmpty)
        #expect(result.warnings.map(\.code) == [.invalidValue])
        #expect(result.graph?.apps[0].parameters.first == 100)
    }
}
