import AudioGraph
import GraphFormat
import Foundation
import NodeKit
import PluginHost
import Testing
import TestKit

/// Telling a rebuilt plugin library from the loaded one, and loading its new code next to the old.
@Suite("Rebuilt plugin libraries")
struct LibraryReloadTests {
    /// A graph whose only app runs `libprobe.so` from the graph's folder.
    static let graph = """
        { "format": "iaa-graph/1", "name": "reload",
          "apps": [ { "id": "probe", "plugin": "./libprobe.so" } ], "connections": [] }
        """

    /// Builds the probe with `gain`'s default set to `value`, at the same path each time.
    func build(defaultGain value: String, in directory: String) throws -> String {
        var source = TestPluginSource()
        source.gainRange = (min: "0.0f", max: "2.0f", default: value)
        return try PluginTestSupport.compileC(source.text, name: "libprobe.so", in: directory)
    }

    @Test("an unchanged library loads once; a rebuilt one at the same path loads its new code")
    func identity() throws {
        let directory = try makeTemporaryDirectory("plugin-tests-reload")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = try build(defaultGain: "1.0f", in: directory)
        let first = try PluginLibrary.load(path: path)
        #expect(try PluginLibrary.load(path: path) === first)
        #expect(first.identity == LibraryFileIdentity(path: path))

        _ = try build(defaultGain: "0.5f", in: directory)
        let rebuilt = try PluginLibrary.load(path: path)
        #expect(rebuilt !== first)
        #expect(rebuilt.identity != first.identity)
        // Both builds are loaded at once, each with its own code and data.
        #expect(first.descriptors[0].parameters[0].defaultValue == 1.0)
        #expect(rebuilt.descriptors[0].parameters[0].defaultValue == 0.5)
        let type = rebuilt.nodeType(rebuilt.descriptors[0], id: "./libprobe.so")
        #expect(type.code == NodeCode(library: path, identity: rebuilt.identity.description))
    }

    @Test("the same build keeps the running node; a rebuild replaces it")
    func nodeInstances() throws {
        let directory = try makeTemporaryDirectory("plugin-tests-reload")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try build(defaultGain: "1.0f", in: directory)
        let file = directory + "/graph.json"
        func load() throws -> Graph {
            try #require(GraphFile.load(text: Self.graph, file: file, registry: PluginTestSupport.registry()).graph)
        }
        let instances = NodeInstances(sampleRate: 48_000, maximumFrames: 256)
        let running = try instances.slots(for: load())[0]
        let same = try load()
        #expect(instances.appsWithNewCode(in: same).isEmpty)
        #expect(try instances.slots(for: same)[0] === running)

        _ = try build(defaultGain: "0.5f", in: directory)
        let rebuilt = try load()
        #expect(instances.appsWithNewCode(in: rebuilt) == ["probe"])
        #expect(try instances.slots(for: rebuilt)[0] !== running)
        #expect(instances.appsWithNewCode(in: rebuilt).isEmpty)
    }
}
