import AudioGraph
import GraphFormat
import Nodes
import Testing

/// The `link` block: one end of an audio link to another machine (docs/links.md).
@Suite("Link ends in the graph file")
struct GraphLinkTests {
    static func load(_ apps: String, connections: String = "") -> GraphLoadResult {
        GraphFile.load(text: """
            { "format": "iaa-graph/1", "name": "x",
              "apps": [ \(apps),
                        { "id": "mix", "plugin": "builtin:mixer", "params": { "inputs": 2 } } ],
              "connections": [ \(connections) ] }
            """, file: "x.json", registry: NodeRegistry(BuiltinNodes.types))
    }

    @Test("a receiving end has out/play ports, a sending end in/capture ports; both are program apps bound to their bridge's client")
    func ends() throws {
        let result = Self.load("""
            { "id": "fromHead", "link": { "receive": "0.0.0.0:30100", "channels": 2, "buffer": 5 } },
            { "id": "toRear", "link": { "send": "[fd00::21]:30102", "channels": 1, "format": "float" } }
            """, connections: #"{ "from": "fromHead:out_1", "to": "mix:in_1" }, { "from": "mix:out", "to": "toRear:in_1" }"#)
        let graph = try #require(result.graph, "\(result.diagnostics.map(\.formatted))")
        let receive = graph.apps[0], send = graph.apps[1]
        #expect(receive.link == LinkEnd(direction: .receive, host: "0.0.0.0", port: 30100, channels: 2, bufferMilliseconds: 5))
        #expect(receive.layout.inputs.map(\.name) == ["play_1", "play_2"])
        #expect(receive.layout.outputs.map(\.name) == ["out_1", "out_2"])
        #expect(receive.program == ProgramBinding(jackClient: "fromHead-link", outputs: 2, inputs: 0))
        #expect(send.link?.format == .float && send.link?.host == "fd00::21" && send.link?.address == "[fd00::21]:30102")
        #expect(send.layout.inputs.map(\.name) == ["in_1"])
        #expect(send.layout.outputs.map(\.name) == ["capture_1"])
        #expect(send.program == ProgramBinding(jackClient: "toRear-link", outputs: 0, inputs: 1))
    }

    @Test("mistakes in a link block are located errors with a fix")
    func mistakes() {
        func errors(_ apps: String) -> [String] { Self.load(apps).diagnostics.map { "\($0.code.rawValue) \($0.pointer)" } }
        #expect(errors(#"{ "id": "l", "link": { "channels": 2 } }"#) == ["missingKey /apps/0/link"])
        #expect(errors(#"{ "id": "l", "link": { "send": "a:1", "receive": "a:1" } }"#) == ["programConflict /apps/0/link/receive"])
        #expect(errors(#"{ "id": "l", "link": { "send": "host-without-port" } }"#) == ["invalidValue /apps/0/link/send"])
        #expect(errors(#"{ "id": "l", "link": { "receive": "h:65535" } }"#) == ["outOfRange /apps/0/link/receive"])
        #expect(errors(#"{ "id": "l", "link": { "receive": "h:1", "channels": 65, "format": "float" } }"#)
                == ["outOfRange /apps/0/link/channels", "invalidValue /apps/0/link/format"])
        #expect(errors(#"{ "id": "l", "link": { "send": "h:1", "buffer": 5, "format": "24bits" } }"#)
                == ["invalidValue /apps/0/link/buffer", "invalidValue /apps/0/link/format"])
        #expect(errors(#"{ "id": "l", "plugin": "builtin:gain", "link": { "send": "h:1" }, "program": {} }"#)
                == ["programConflict /apps/0/plugin", "programConflict /apps/0/program"])
        let twice = Self.load(#"{ "id": "a", "link": { "receive": "h:30100" } }, { "id": "b", "link": { "receive": "h:30101" } }"#)
            .diagnostics
        #expect(twice.map(\.code) == [.duplicateConnection])
        #expect(twice.first?.message == "app \"a\" already receives on UDP ports 30100 and 30101 of h (a receiver takes the port it names and the next)")
        #expect(twice.first?.hint == "give each receiving link a port of its own, two apart: 30102")
        #expect(errors(#"{ "id": "a", "link": { "receive": "h:30100" } }, { "id": "b", "link": { "receive": "h:30102" } }"#).isEmpty)
        // "from" names the sending machine, on a receiving end, without a port.
        #expect(errors(#"{ "id": "l", "link": { "send": "h:1", "from": "10.0.0.1" } }"#) == ["invalidValue /apps/0/link/from"])
        #expect(errors(#"{ "id": "l", "link": { "receive": "h:1", "from": "10.0.0.1:30100" } }"#) == ["invalidValue /apps/0/link/from"])
        #expect(Self.load(#"{ "id": "l", "link": { "receive": "h:1", "from": "10.0.0.1" } }"#).graph?.apps.first?.link?.from == "10.0.0.1")
    }
}
