import AudioGraph
import GraphFormat
import NodeKit
import Testing

@Suite("Inter-App Audio's conditions in graph files")
struct GraphInterAppAudioTests {
    /// A host that meets every condition.
    static let host = #"""
        { "id": "daw", "role": "host", "plugin": "builtin:host-mixer", "params": { "inputs": 2 },
          "session": { "category": "playAndRecord", "options": ["mixWithOthers"], "active": true },
          "entitlements": ["inter-app-audio"], "backgroundModes": ["audio"] }
        """#

    static func load(apps: [String], connections: [(String, String)]) -> GraphLoadResult {
        let written = connections.map { #"{ "from": "\#($0.0)", "to": "\#($0.1)" }"# }
        return TestSupport.load(json: """
            { "format": "iaa-graph/1", "name": "iaa",
              "apps": [ \(apps.joined(separator: ",\n")) ],
              "connections": [ \(written.joined(separator: ",\n")) ] }
            """)
    }

    @Test("a host with an instrument, a generator and an effect that meet every condition validates")
    func valid() throws {
        let result = TestSupport.load("Tests/Fixtures/graphs/valid/inter-app-audio.json")
        #expect(result.diagnostics.map(\.formatted) == [])
        let graph = try #require(result.graph)
        #expect(graph.apps.map(\.role) == [.host, .node, .node, .node, .app, .app])
        #expect(graph.apps.compactMap(\.component?.type) == [.instrument, .generator, .effect])
        #expect(graph.transport == TransportConfiguration(tempo: 100, playing: true))
        for connection in graph.connections {
            #expect(InterAppAudioRules.check(connection, in: graph) == [])
        }
    }

    @Test("a node with nothing set up reports every condition it misses, at its end of the connection")
    func everyCondition() {
        let result = Self.load(apps: [
            #"{ "id": "daw", "role": "host", "plugin": "builtin:host-mixer" }"#,
            #"{ "id": "echo", "role": "node", "plugin": "builtin:filter" }"#,
        ], connections: [("daw:out", "echo:in")])
        #expect(result.errors.map(\.code) == [
            .missingEntitlement, .incompatibleCategory, .missingEntitlement, .incompatibleCategory,
            .missingEntitlement, .incompatibleCategory, .missingEntitlement,
        ])
        // The host is the source here: its faults are at "from", the effect's at "to".
        #expect(result.errors.map(\.pointer) == [
            "/connections/0/from", "/connections/0/from", "/connections/0/from", "/connections/0/from",
            "/connections/0/to", "/connections/0/to", "/connections/0/to",
        ])
        #expect(result.errors.map(\.message).contains(#"node "echo" receives audio from its host or uses its own JACK routes, which needs the "audio" background mode"#))
    }

    @Test("a fault of the host is reported once, at its first connection")
    func reportedOnce() {
        let node = { (id: String) in
            #"{ "id": "\#(id)", "role": "node", "plugin": "builtin:poly-synth", "session": { "category": "playback", "options": ["mixWithOthers"] }, "entitlements": ["inter-app-audio"] }"#
        }
        let result = Self.load(apps: [
            #"{ "id": "daw", "role": "host", "plugin": "builtin:host-mixer", "session": { "category": "playback", "options": ["mixWithOthers"] }, "entitlements": ["inter-app-audio"], "backgroundModes": ["audio"] }"#,
            node("a"), node("b"),
        ], connections: [("a:out", "daw:in_1"), ("b:out", "daw:in_2")])
        #expect(result.errors.map(\.code) == [.incompatibleCategory])
        #expect(result.errors.first?.pointer == "/connections/0/to")
        #expect(result.errors.first?.hint == #"set "active": true in the session of "daw""#)
    }

    @Test("plain apps connect to a host neither in nor out, but connect to each other freely")
    func notANode() {
        let result = Self.load(apps: [
            Self.host,
            #"{ "id": "tone", "plugin": "builtin:oscillator" }"#,
            #"{ "id": "bus", "role": "app", "plugin": "builtin:mixer" }"#,
        ], connections: [("tone:out", "bus:in_1"), ("tone:out", "daw:in_1"), ("daw:out", "bus:in_2")])
        #expect(result.errors.map(\.code) == [.notANode, .notANode])
        #expect(result.errors.map(\.pointer) == ["/connections/1/from", "/connections/2/to"])
        #expect(result.errors.last?.message == #"app "bus" is not an Inter-App Audio node, so it cannot connect to host "daw""#)
    }

    @Test("Inter-App Audio is checked only on a graph with no other error")
    func onlyWhenOtherwiseValid() {
        let result = Self.load(apps: [
            Self.host,
            #"{ "id": "tone", "plugin": "builtin:oscillator", "params": { "frequency": -1 } }"#,
        ], connections: [("tone:out", "daw:in_1")])
        #expect(result.errors.map(\.code) == [.parameterOutOfRange])
    }

    @Test("nodes and hosts connect to the outside and to plain apps without Inter-App Audio's conditions")
    func outsideConnections() throws {
        let graph = try #require(TestSupport.load(json: """
            { "format": "iaa-graph/1", "name": "x", "apps": [
              { "id": "keys", "role": "node", "plugin": "builtin:poly-synth" },
              { "id": "bus", "plugin": "builtin:mixer" } ],
              "connections": [ { "from": "keys:out", "to": "bus:in_1" } ],
              "jack": { "connections": [ { "from": "bus:out", "to": "@playback" } ] } }
            """).graph)
        #expect(graph.apps[0].component?.codes == "auri/poly/iaas")
    }
}
