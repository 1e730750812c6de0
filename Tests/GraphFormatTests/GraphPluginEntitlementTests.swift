import AudioGraph
import GraphFormat
import NodeKit
import Testing

/// Node types that request entitlements: the graph must grant each one to the app holding the node.
@Suite("Entitlements a node type requests")
struct GraphPluginEntitlementTests {
    /// The test registry plus a recorder that requests `requests`.
    static func registry(requests: [String]) -> NodeRegistry {
        var registry = TestSupport.registry
        registry.register(NodeType(id: "test:recorder", displayName: "Recorder", summary: "Records.",
                                   requestedEntitlements: requests,
                                   layout: { _ in NodeLayout(inputs: [.input("in")], outputs: [.output("out")]) },
                                   make: { _ in CopyNode() }))
        return registry
    }

    static func graph(grants: String? = nil, id: String = "rec") -> String {
        """
        { "format": "iaa-graph/1", "name": "rec",
          "apps": [
            { "id": "\(id)", "plugin": "test:recorder"\(grants.map { ", \"entitlements\": \($0), \"session\": {}" } ?? "") }
          ] }
        """
    }

    @Test("each ungranted request is one missingEntitlement at the app's plugin field")
    func ungranted() {
        let result = TestSupport.load(json: Self.graph(), registry: Self.registry(requests: ["microphone", "priority-audio"]))
        #expect(result.graph == nil)
        #expect(result.errors.map(\.code) == [.missingEntitlement, .missingEntitlement])
        #expect(result.errors.allSatisfy { $0.pointer == "/apps/0/plugin" && $0.line == 3 && $0.column == 30 })
        #expect(result.errors.map(\.message) == [
            "plugin \"test:recorder\" requests the \"microphone\" entitlement, which the graph does not grant app \"rec\"",
            "plugin \"test:recorder\" requests the \"priority-audio\" entitlement, which the graph does not grant app \"rec\"",
        ])
        #expect(result.errors.first?.hint
            == "grant it: \"entitlements\": [\"microphone\", \"priority-audio\"] on \"rec\" (only if you trust the plugin)")
    }

    @Test("a partial grant leaves only the rest missing, and the hint keeps the grant")
    func partiallyGranted() {
        let result = TestSupport.load(json: Self.graph(grants: #"["priority-audio"]"#),
                                      registry: Self.registry(requests: ["microphone", "priority-audio"]))
        #expect(result.errors.map(\.message) == [
            "plugin \"test:recorder\" requests the \"microphone\" entitlement, which the graph does not grant app \"rec\"",
        ])
        #expect(result.errors.first?.hint
            == "grant it: \"entitlements\": [\"priority-audio\", \"microphone\"] on \"rec\" (only if you trust the plugin)")
    }

    @Test("a graph granting every request loads; a type requesting nothing needs no grant")
    func granted() throws {
        let full = TestSupport.load(json: Self.graph(grants: #"["microphone", "priority-audio"]"#),
                                    registry: Self.registry(requests: ["priority-audio", "microphone"]))
        #expect(full.errors.isEmpty, "\(full.errors.map(\.formatted))")
        #expect(try #require(full.graph).apps[0].type.requestedEntitlements == ["priority-audio", "microphone"])
        let none = TestSupport.load(json: Self.graph(), registry: Self.registry(requests: []))
        #expect(none.errors.isEmpty && none.graph != nil)
    }

    @Test("an app without a session that grants its plugin's request gets no ignored-field warning")
    func grantWithoutSession() throws {
        let text = """
            { "format": "iaa-graph/1", "name": "rec",
              "apps": [ { "id": "rec", "plugin": "test:recorder", "entitlements": ["microphone"] } ] }
            """
        let result = TestSupport.load(json: text, registry: Self.registry(requests: ["microphone"]))
        #expect(result.graph != nil)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.formatted))")
        // For a type that requests nothing, entitlements without a session still mean nothing.
        let plain = TestSupport.load(json: text, registry: Self.registry(requests: []))
        #expect(plain.diagnostics.map(\.code) == [.ignoredSessionField])
    }

    @Test("the entitlement names plugins may request are the graph's")
    func names() {
        #expect(Validator.entitlementNames == ["inter-app-audio", "priority-audio", "microphone"])
    }
}
