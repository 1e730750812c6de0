import AudioGraph
import GraphFormat
import Testing

@Suite("Validator on descriptions built in code")
struct ValidatorTests {
    @Test("a description built in code validates into a graph")
    func builtInCode() throws {
        let description = GraphDescription(name: "code", apps: [
            AppDescription(id: "tone", plugin: "builtin:oscillator",
                           params: [ParameterAssignment(name: "frequency", value: .text("50%"))], pointer: "/apps/0"),
            AppDescription(id: "out", role: "app", plugin: "builtin:gain", pointer: "/apps/1"),
        ], connections: [ConnectionDescription(from: "tone:out", to: "out:in", gain: .number(0.5), pointer: "/connections/0")])
        let result = Validator.validate(description, file: "<command>", registry: TestSupport.registry)
        let graph = try #require(result.graph)
        #expect(graph.apps[0].parameters == [0.5, 0.5])
        #expect(graph.connections == [Connection(from: PortAddress(app: 0, port: 0), to: PortAddress(app: 1, port: 0), gain: 0.5)])
        #expect(graph.order == [0, 1])
    }

    @Test("missing required fields are reported without a location")
    func missingFields() {
        let description = GraphDescription(name: "code", apps: [AppDescription(id: nil, plugin: nil, pointer: "/apps/0")],
                                           connections: [ConnectionDescription(from: nil, to: nil, pointer: "/connections/0")])
        let result = Validator.validate(description, file: "<command>", registry: TestSupport.registry)
        #expect(result.errors.map(\.pointer) == ["/apps/0/id", "/apps/0/plugin", "/connections/0/from", "/connections/0/to"])
        #expect(result.errors.allSatisfy { $0.code == .missingKey && $0.line == nil })
    }

    @Test("a key written with the wrong type is not also reported missing")
    func wrongTypeIsNotMissing() {
        let result = TestSupport.load(json: #"{ "format": "iaa-graph/1", "name": "x", "apps": [ { "id": 5, "plugin": "builtin:gain" } ] }"#)
        #expect(result.errors.map(\.code) == [.wrongType])
    }
}
