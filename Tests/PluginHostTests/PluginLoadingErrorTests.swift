import AudioGraph
import Engine
import Foundation
import NodeKit
import PluginHost
import Testing
import TestKit

/// Every way a plugin can fail to load, each produced by a real library built here with cc.
@Suite("Plugin loading errors")
struct PluginLoadingErrorTests {
    /// Builds `source` as `name` and resolves it by path from its folder.
    func load(_ source: TestPluginSource, name: String = "libprobe.so") throws -> Result<NodeType, PluginLoadError> {
        let directory = try makeTemporaryDirectory("plugin-tests-errors")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try PluginTestSupport.compileC(source.text, name: name, in: directory)
        return PluginResolver(searchPath: []).resolve("./" + name, graphDirectory: directory)
    }

    func error(_ result: Result<NodeType, PluginLoadError>) throws -> PluginLoadError {
        guard case .failure(let error) = result else {
            Issue.record("the plugin loaded")
            throw CancellationError()
        }
        return error
    }

    @Test("each load error's code is the validator's code of the same name, which a graph load reports at the app's plugin field")
    func codesAreTheValidators() {
        for code in PluginLoadError.Code.allCases {
            #expect(GraphErrorCode(rawValue: code.rawValue) != nil, "\(code) is no GraphErrorCode")
            let reported = GraphLoading.resolutionError(PluginLoadError(code, "m", hint: "h"))
            #expect(reported.code.rawValue == code.rawValue && reported.message == "m" && reported.hint == "h")
        }
    }

    @Test("the unbroken test plugin loads with its ports, parameters and component")
    func loads() throws {
        let type = try load(TestPluginSource()).get()
        #expect(type.id == "./libprobe.so")
        #expect(type.component?.codes == "aurm/prob/test")
        let layout = type.layout(NodeConfiguration())
        #expect(layout.inputs.map(\.name) == ["in"])
        #expect(layout.midiInputs.map(\.name) == ["midi_in"])
        #expect(layout.outputs.map(\.name) == ["out"])
        #expect(type.parameters.map(\.name) == ["gain", "offset"])
        #expect(type.parameters[0].range == 0...2 && type.parameters[0].unit == .linearGain)
        #expect(type.parameters[1].isDiscrete)
    }

    @Test("a library without iaa_plugin_entry is notAPlugin, with dlerror's text")
    func missingEntry() throws {
        var source = TestPluginSource()
        source.exportsEntry = false
        let error = try error(load(source))
        #expect(error.code == .notAPlugin)
        #expect(error.message.contains("is not an iaa plugin: it exports no iaa_plugin_entry"), "\(error)")
        #expect(error.message.contains("undefined symbol: iaa_plugin_entry"), "\(error)")
        #expect(error.hint?.contains("@_cdecl") == true)
    }

    @Test("a file that is no shared library is notAPlugin, with dlerror's text")
    func notALibrary() throws {
        let directory = try makeTemporaryDirectory("plugin-tests-errors")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "not a library".write(toFile: directory + "/libtext.so", atomically: true, encoding: .utf8)
        let error = try error(PluginResolver(searchPath: []).resolve("libtext.so", graphDirectory: directory))
        #expect(error.code == .notAPlugin)
        #expect(error.message.contains("could not be loaded"), "\(error)")
        #expect(error.message.contains("libtext.so"), "\(error)")
    }

    @Test("a plugin built for an ABI version this engine does not load is abiMismatch naming it and the ones it loads",
          arguments: ["99u", "0u", "4u"])
    func abiMismatch(_ version: String) throws {
        var source = TestPluginSource()
        source.abiVersion = version
        let error = try error(load(source))
        #expect(error.code == .abiMismatch)
        #expect(error.message.contains("was built for plugin ABI version \(version.dropLast()); this engine loads versions 1, 2 and 3"),
                "\(error)")
    }

    /// One broken field each, and the words the error must use to name it.
    static let brokenFields: [(String, @Sendable (inout TestPluginSource) -> Void, String)] = [
        ("null id", { $0.id = "NULL" }, "id is NULL"),
        ("bad id", { $0.id = "\"pro be\"" }, "id \"pro be\" must match [A-Za-z0-9_.-]+"),
        ("bad port name", { $0.inputName = "\"in put\"" }, "ports[0].name \"in put\" must match [A-Za-z0-9_-]+"),
        ("null port name", { $0.inputName = "NULL" }, "ports[0].name is NULL"),
        ("duplicate port", { $0.inputName = "\"out\"" }, "ports[2].name \"out\" is used twice"),
        ("min above max", { $0.gainRange = ("2.0f", "1.0f", "1.5f") }, "parameters[0] (\"gain\"): min 2.0 is greater than max 1.0"),
        ("default outside", { $0.gainRange = ("0.0f", "1.0f", "5.0f") }, "parameters[0] (\"gain\"): default_value 5.0 is outside 0.0…1.0"),
        ("unknown unit", { $0.unit = "42u" }, "parameters[0] (\"gain\"): unit 42 is not one of IAA_UNIT_*"),
        ("unknown type code", { $0.componentType = "\"aurz\"" }, "component.type \"aurz\" is not one of aurg, auri, aurx, aurm"),
        ("long subtype", { $0.subtype = "\"probe\"" }, "component.subtype \"probe\" must be four ASCII characters"),
        ("ports against type", { $0.componentType = "\"aurg\"" },
         "ports do not match component.type: a generator (aurg) has audio outputs only; it has 1 audio inputs, 1 MIDI inputs, 1 audio outputs"),
        ("MIDI output", { $0.extraPorts = "{\"midi_out\", NULL, IAA_PORT_OUTPUT, IAA_PORT_MIDI, NULL}," },
         "ports[3] is a MIDI output, which iaa does not support"),
        ("unknown entitlement", { $0.entitlements = ["\"microphone\"", "\"camera\""] },
         "entitlements[1] \"camera\" is not an entitlement; valid names: inter-app-audio, priority-audio, microphone"),
        ("entitlement twice", { $0.entitlements = ["\"microphone\"", "\"microphone\""] },
         "entitlements[1] \"microphone\" is requested twice"),
        ("null entitlement table", { $0.entitlementCount = "1" }, "entitlements is NULL but entitlement_count is 1"),
        ("null entitlement name", { $0.entitlements = ["NULL"] }, "entitlements[0] is NULL"),
    ]

    @Test("an invalid descriptor is invalidDescriptor naming the descriptor and the field",
          arguments: brokenFields.indices)
    func invalidDescriptor(_ index: Int) throws {
        let (label, breakIt, expected) = Self.brokenFields[index]
        var source = TestPluginSource()
        breakIt(&source)
        let error = try error(load(source, name: "lib\(index).so"))
        #expect(error.code == .invalidDescriptor, "\(label): \(error)")
        #expect(error.message.contains("lib\(index).so: descriptor 0"), "\(label): \(error)")
        #expect(error.message.contains(expected), "\(label): \(error)")
    }

    @Test("a create that fails makes makeNode throw the plugin's own message")
    func createFails() throws {
        var source = TestPluginSource()
        source.createFailure = "license file /etc/probe.key is missing"
        let type = try load(source).get()
        #expect {
            _ = try type.makeNode(NodeConfiguration())
        } throws: { error in
            "\(error)" == "plugin \"./libprobe.so\" could not create an instance: license file /etc/probe.key is missing"
        }
    }

    @Test("a missing path is pluginNotFound naming the path searched, relative to the graph's folder")
    func missingPath() throws {
        let error = try error(PluginResolver(searchPath: []).resolve("plugins/libnone.so", graphDirectory: "/tmp/graphs"))
        #expect(error.code == .pluginNotFound)
        #expect(error.message == "plugin \"plugins/libnone.so\" not found; searched: /tmp/graphs/plugins/libnone.so")
    }

    @Test("a missing bare name is pluginNotFound listing every path searched on IAA_PLUGIN_PATH")
    func missingName() throws {
        let resolver = PluginResolver(searchPath: PluginResolver.searchPath(from: "/opt/a::/opt/b"))
        let error = try error(resolver.resolve("none", graphDirectory: "."))
        #expect(error.code == .pluginNotFound)
        #expect(error.message == "plugin \"none\" not found; searched: /opt/a/libnone.so, /opt/a/none.so, /opt/a/none, /opt/b/libnone.so, /opt/b/none.so, /opt/b/none")
        let empty = try self.error(PluginResolver(searchPath: []).resolve("none", graphDirectory: "."))
        #expect(empty.message.contains("IAA_PLUGIN_PATH is empty"))
    }

    @Test("a bare name is found on the search path as lib<name>.so")
    func foundOnSearchPath() throws {
        let directory = try makeTemporaryDirectory("plugin-tests-search")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try PluginTestSupport.compileC(TestPluginSource().text, name: "libprobe.so", in: directory)
        let type = try PluginResolver(searchPath: ["/nonexistent", directory]).resolve("probe", graphDirectory: ".").get()
        #expect(type.id == "probe")
        #expect(type.displayName == "Probe")
    }
}
