import LocatedJSON
import AudioGraph
import GraphFormat
import NodeKit
import Testing

@Suite("Inter-App Audio components in graph files")
struct GraphComponentTests {
    /// A session and grant that meet Inter-App Audio's conditions, so only the component matters.
    static let nodeSession = #""session": { "category": "playback", "options": ["mixWithOthers"] }, "entitlements": ["inter-app-audio"]"#

    /// One app with `role`, `plugin` and, when given, `component` (an object's text).
    static func load(role: String = "node", plugin: String, component: String?) -> GraphLoadResult {
        let member = component.map { #", "component": \#($0)"# } ?? ""
        return TestSupport.load(json: """
            { "format": "iaa-graph/1", "name": "c", "apps": [
              { "id": "app", "role": "\(role)", "plugin": "\(plugin)"\(member), \(nodeSession) } ] }
            """)
    }

    @Test("a component reads every field; name and version default to the app's name and 1")
    func fields() throws {
        let graph = try #require(TestSupport.load("Tests/Fixtures/graphs/valid/all-fields.json").graph)
        #expect(graph.apps[1].component == ComponentDescription(type: .generator, subtype: "sine", manufacturer: "demo",
                                                                name: "Demo: Sine", version: 2))
        #expect(graph.apps[3].component == ComponentDescription(type: .effect, subtype: "thru", manufacturer: "demo",
                                                                name: "thru", version: 1))
        #expect(graph.apps[0].component == nil)
    }

    @Test("a node without its own component publishes its node type's; the graph's wins")
    func fallback() throws {
        let graph = try #require(TestSupport.load("Tests/Fixtures/graphs/valid/inter-app-audio.json").graph)
        let component = { (id: String) in graph.appIndex(id).flatMap { graph.apps[$0].component } }
        #expect(component("keys") == ComponentDescription(type: .instrument, subtype: "poly", manufacturer: "iaas", name: "Poly Synth"))
        #expect(component("seq") == ComponentDescription(type: .generator, subtype: "seq1", manufacturer: "demo",
                                                         name: "Demo: Sequencer", version: 3))
        #expect(component("daw") == nil)
    }

    @Test("a component type is its name or Apple's code", arguments: [
        ("generator", "builtin:oscillator", ComponentDescription.ComponentType.generator),
        ("aurg", "builtin:oscillator", .generator),
        ("instrument", "builtin:poly-synth", .instrument),
        ("auri", "builtin:poly-synth", .instrument),
        ("effect", "builtin:gain", .effect),
        ("aurx", "builtin:filter", .effect),
    ])
    func typeSpellings(type: String, plugin: String, expected: ComponentDescription.ComponentType) throws {
        let result = Self.load(plugin: plugin, component: #"{ "type": "\#(type)", "subtype": "abcd", "manufacturer": "demo" }"#)
        #expect(result.diagnostics.map(\.formatted) == [])
        #expect(result.graph?.apps.first?.component?.type == expected)
    }

    @Test("a node app without a component is an error whose hint is the JSON to add")
    func missing() throws {
        let result = Self.load(plugin: "builtin:passthrough", component: nil)
        let error = try #require(result.errors.first)
        #expect(result.errors.count == 1)
        #expect(error.code == .missingComponent && error.pointer == "/apps/0/role")
        #expect(error.message == #"node app "app" has no component, and node type "builtin:passthrough" publishes none"#)
        #expect(error.hint == #"add "component": { "type": "effect", "subtype": "appx", "manufacturer": "demo" } (subtype and manufacturer: four ASCII characters), or make it "role": "app""#)
        // Hosts and plain apps publish no component.
        #expect(Self.load(role: "host", plugin: "builtin:passthrough", component: nil).errors.isEmpty)
        #expect(Self.load(role: "app", plugin: "builtin:passthrough", component: nil).errors.isEmpty)
    }

    @Test("a component type that the ports do not fit names what is missing", arguments: [
        ("effect", "builtin:oscillator",
         #"component type "effect" needs an audio input, but node type "builtin:oscillator" has no audio input"#,
         #"the ports of "builtin:oscillator" fit "type": "generator""#),
        ("aurm", "builtin:oscillator",
         #"component type "musicEffect" needs an audio input and a MIDI input, but node type "builtin:oscillator" has no audio input and has no MIDI input"#,
         #"the ports of "builtin:oscillator" fit "type": "generator""#),
        ("generator", "builtin:gain",
         #"component type "generator" needs no audio input, but node type "builtin:gain" has audio inputs"#,
         #"the ports of "builtin:gain" fit "type": "effect""#),
    ])
    func mismatch(type: String, plugin: String, message: String, hint: String) throws {
        let result = Self.load(plugin: plugin, component: #"{ "type": "\#(type)", "subtype": "abcd", "manufacturer": "demo" }"#)
        #expect(result.errors.map(\.code) == [.componentMismatch])
        #expect(result.errors.first?.pointer == "/apps/0/component/type")
        #expect(result.errors.first?.message == message)
        #expect(result.errors.first?.hint == hint)
    }

    @Test("the graph's component may not change the node type's component type")
    func typeDiffers() throws {
        let result = Self.load(plugin: "builtin:filter", component: #"{ "type": "generator", "subtype": "filt", "manufacturer": "demo" }"#)
        #expect(result.errors.map(\.code) == [.componentMismatch])
        #expect(result.errors.first?.message == #"component type "generator" differs from "effect", which node type "builtin:filter" publishes"#)
        #expect(result.errors.first?.hint == #"write "type": "effect", or leave "component" out to publish the node type's own"#)
    }

    @Test("malformed components are errors at the field, all at once")
    func malformed() {
        let result = Self.load(plugin: "builtin:oscillator", component: """
            { "type": "generater", "subtype": "ab", "manufacturer": "dém0", "name": 5, "version": -1, "vendor": "x" }
            """)
        #expect(result.errors.map(\.code) == [.invalidValue, .invalidValue, .invalidValue, .wrongType, .invalidValue, .unknownKey])
        #expect(result.errors.map(\.pointer) == [
            "/apps/0/component/type", "/apps/0/component/subtype", "/apps/0/component/manufacturer",
            "/apps/0/component/name", "/apps/0/component/version", "/apps/0/component/vendor",
        ])
        #expect(result.errors.first?.hint == "did you mean \"generator\"?")
        #expect(result.errors[1].message == #""subtype" "ab" must be exactly four ASCII characters"#)
        let unknownType = Self.load(plugin: "builtin:oscillator", component: #"{ "type": "synth", "subtype": "abcd", "manufacturer": "demo" }"#)
        #expect(unknownType.errors.first?.hint == "types: generator (aurg), instrument (auri), effect (aurx), musicEffect (aurm)")
        let fractional = Self.load(plugin: "builtin:oscillator", component: #"{ "type": "aurg", "subtype": "abcd", "manufacturer": "demo", "version": 1.5 }"#)
        #expect(fractional.errors.map(\.message) == [#""version" is 1.5; a version is an integer ≥ 0"#])
    }

    @Test("missing component fields are errors, and a component of the wrong type is one error")
    func missingFields() {
        let result = Self.load(plugin: "builtin:oscillator", component: "{}")
        #expect(result.errors.map(\.pointer) == ["/apps/0/component/type", "/apps/0/component/subtype", "/apps/0/component/manufacturer"])
        #expect(result.errors.allSatisfy { $0.code == .missingKey })
        // Read as the wrong type, it still counts as written: no missingComponent on top.
        #expect(Self.load(plugin: "builtin:oscillator", component: #""aurg""#).errors.map(\.code) == [.wrongType])
    }

    @Test("a description built in code has its component checked the same way")
    func builtInCode() throws {
        let component = JSONNode(.object([
            JSONNode.Member(key: "type", keyLocation: nil, value: JSONNode(.string("instrument"))),
            JSONNode.Member(key: "subtype", keyLocation: nil, value: JSONNode(.string("keys"))),
            JSONNode.Member(key: "manufacturer", keyLocation: nil, value: JSONNode(.string("demo"))),
        ]))
        let description = GraphDescription(name: "code", apps: [
            AppDescription(id: "keys", role: "node", plugin: "builtin:poly-synth", component: component, pointer: "/apps/0"),
            AppDescription(id: "tone", role: "node", plugin: "builtin:oscillator", component: JSONNode(.string("x")), pointer: "/apps/1"),
        ])
        let result = Validator.validate(description, file: "<command>", registry: TestSupport.registry)
        #expect(result.errors.map(\.code) == [.wrongType])
        #expect(result.errors.first?.pointer == "/apps/1/component")
        let valid = Validator.validate(GraphDescription(name: "code", apps: [description.apps[0]]),
                                       file: "<command>", registry: TestSupport.registry)
        #expect(valid.graph?.apps.first?.component?.codes == "auri/keys/demo")
    }
}
