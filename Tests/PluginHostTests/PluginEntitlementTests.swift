import GraphFormat
import Foundation
import IAAPluginABI
import NodeKit
import PluginHost
import Testing
import TestKit

/// Plugins request entitlements (ABI 2); a graph grants them. Real libraries built with cc.
@Suite("Plugin entitlements")
struct PluginEntitlementTests {
    /// A graph whose app "rec" holds `plugin`; `grants` is its `entitlements` array, if any.
    static func graph(plugin: String, grants: [String]? = nil) -> String {
        let entitlements = grants.map { ", \"entitlements\": [" + $0.map { "\"\($0)\"" }.joined(separator: ", ") + "]" } ?? ""
        return """
            { "format": "iaa-graph/1", "name": "mic",
              "apps": [
                { "id": "tone", "plugin": "builtin:oscillator", "params": { "frequency": 440, "amplitude": 0.5 } },
                { "id": "rec", "plugin": "\(plugin)", "params": { "gain": 0.5 }\(entitlements) }
              ],
              "connections": [ { "from": "tone:out", "to": "rec:in" } ] }
            """
    }

    /// A folder holding `source` built as `name`; the caller removes it.
    static func build(_ source: TestPluginSource, name: String) throws -> String {
        let directory = try makeTemporaryDirectory("plugin-tests-entitlements")
        _ = try PluginTestSupport.compileC(source.text, name: name, in: directory)
        return directory
    }

    static var microphonePlugin: TestPluginSource {
        var source = TestPluginSource()
        source.entitlements = ["\"microphone\""]
        return source
    }

    @Test("a v2 plugin requesting microphone in a graph that does not grant it fails with missingEntitlement at the app's plugin field")
    func ungrantedRequest() throws {
        let directory = try Self.build(Self.microphonePlugin, name: "libmic.so")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/graph.json"
        let result = GraphFile.load(text: Self.graph(plugin: "libmic.so"), file: file, registry: PluginTestSupport.registry())
        #expect(result.graph == nil)
        let errors = result.diagnostics.filter(\.isError)
        #expect(errors.count == 1, "\(errors.map(\.formatted))")
        let error = try #require(errors.first)
        #expect(error.code == .missingEntitlement)
        #expect(error.pointer == "/apps/1/plugin")
        #expect(error.line == 4 && error.column == 30, "\(error.formatted)")
        #expect(error.formatted == """
            \(file):4:30: error[missingEntitlement]: /apps/1/plugin: plugin "libmic.so" requests the "microphone" \
            entitlement, which the graph does not grant app "rec"
              hint: grant it: "entitlements": ["microphone"] on "rec" (only if you trust the plugin)
            """)
    }

    @Test("the hint keeps the app's other grants, and a misspelt grant grants nothing")
    func hintKeepsGrants() throws {
        let directory = try Self.build(Self.microphonePlugin, name: "libmic.so")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = GraphFile.load(text: Self.graph(plugin: "libmic.so", grants: ["inter-app-audio", "mircophone"]),
                                    file: directory + "/graph.json", registry: PluginTestSupport.registry())
        #expect(result.graph == nil)
        let missing = try #require(result.diagnostics.first { $0.code == .missingEntitlement })
        #expect(missing.hint == "grant it: \"entitlements\": [\"inter-app-audio\", \"microphone\"] on \"rec\" (only if you trust the plugin)")
        #expect(result.diagnostics.contains { $0.code == .invalidValue && $0.pointer == "/apps/1/entitlements/1" })
    }

    @Test("the same graph granting microphone to the app loads, and the type carries the request")
    func grantedRequest() throws {
        let directory = try Self.build(Self.microphonePlugin, name: "libmic.so")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = GraphFile.load(text: Self.graph(plugin: "libmic.so", grants: ["microphone"]),
                                    file: directory + "/graph.json", registry: PluginTestSupport.registry())
        let errors = result.diagnostics.filter(\.isError)
        #expect(errors.isEmpty, "\(errors.map(\.formatted))")
        let graph = try #require(result.graph)
        let app = try #require(graph.apps.first { $0.id == "rec" })
        #expect(app.type.requestedEntitlements == ["microphone"])
    }

    @Test("a v1 plugin (shorter descriptor, list version 1) still loads, renders, and requests nothing")
    func version1Loads() throws {
        var source = TestPluginSource()
        source.version1 = true
        let directory = try Self.build(source, name: "libold.so")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let library = try PluginLibrary(path: directory + "/libold.so")
        let descriptor = try #require(library.descriptors.first)
        #expect(descriptor.abiVersion == 1)
        #expect(descriptor.requestedEntitlements.isEmpty)
        let file = directory + "/graph.json"
        try Self.graph(plugin: "libold.so").write(toFile: file, atomically: true, encoding: .utf8)
        let rig = try OfflineRig(graphPath: file)
        let output = try rig.render(frames: 512, port: "rec:out")
        #expect(output.contains { $0 != 0 }, "the v1 plugin rendered silence")
    }

    @Test("the engine loads ABI 1, 2 and the header's own version, which is 3")
    func supportedVersions() {
        #expect(PluginLibrary.supportedABIVersions == [1, 2, 3])
        #expect(PluginLibrary.supportedABIVersions.last == IAA_PLUGIN_ABI_VERSION)
    }

    @Test("PluginExport builds an ABI 3 list whose descriptors carry the requested entitlements (ABI 2's fields)")
    func swiftExport() throws {
        var description = PluginNodeDescription(
            id: "mic", name: "Mic",
            component: ComponentDescription(type: .generator, subtype: "mic1", manufacturer: "test", name: "Test: Mic"),
            layout: NodeLayout(inputs: [], outputs: [.output("out", "Output")]))
        description.requestedEntitlements = ["microphone", "priority-audio"]
        let export = PluginExport([.node(description) { _, _ in Silence() }])
        let list = export.entry.assumingMemoryBound(to: iaa_plugin_list.self).pointee
        #expect(list.abi_version == 3 && list.abi_version == IAA_PLUGIN_ABI_VERSION)
        let descriptor = try #require(list.descriptors?[0]?.pointee)
        #expect(descriptor.entitlement_count == 2)
        let table = try #require(descriptor.entitlements)
        #expect((0..<2).map { table[$0].map { String(cString: $0) } } == ["microphone", "priority-audio"])
    }
}

/// A generator that writes silence, for the export test.
private final class Silence: AudioNode {
    func process(_ context: ProcessContext) {
        for index in 0..<context.outputs.count { context.outputs[index].update(repeating: 0) }
    }
}
