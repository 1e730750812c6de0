import AudioGraph
import GraphFormat
import Foundation
import NodeKit
import PluginHost
import Testing
import TestKit

/// Plugins inside graphs: located errors, no half-changed state, and what crosses the C ABI.
@Suite("Plugins in graphs")
struct PluginGraphTests {
    static func graph(plugin: String, params: String = "{ \"gain\": 0.5, \"offset\": 0.25 }") -> String {
        """
        { "format": "iaa-graph/1", "name": "probe",
          "apps": [
            { "id": "tone", "plugin": "builtin:oscillator", "params": { "frequency": 440, "amplitude": 0.5 } },
            { "id": "probe", "plugin": "\(plugin)", "params": \(params) }
          ],
          "connections": [ { "from": "tone:out", "to": "probe:in" } ] }
        """
    }

    @Test("a rejected plugin fails the graph load with the error located at the app's plugin field")
    func locatedError() throws {
        let directory = try makeTemporaryDirectory("plugin-tests-graph")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var source = TestPluginSource()
        source.abiVersion = "99u"
        _ = try PluginTestSupport.compileC(source.text, name: "libprobe.so", in: directory)
        let file = directory + "/graph.json"
        let result = GraphFile.load(text: Self.graph(plugin: "libprobe.so"), file: file, registry: PluginTestSupport.registry())
        #expect(result.graph == nil)
        let first = try #require(result.diagnostics.first).formatted
        #expect(first.hasPrefix("\(file):4:"), "\(first)")
        #expect(first.contains("error[abiMismatch]: /apps/1/plugin: \(directory)/libprobe.so was built for plugin ABI version 99; this engine loads versions 1, 2 and 3"), "\(first)")
    }

    @Test("a plugin whose create fails leaves the running graph's nodes as they were")
    func noHalfState() throws {
        let directory = try makeTemporaryDirectory("plugin-tests-graph")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try PluginTestSupport.compileC(TestPluginSource().text, name: "libgood.so", in: directory)
        var failing = TestPluginSource()
        failing.createFailure = "no licence"
        _ = try PluginTestSupport.compileC(failing.text, name: "libbad.so", in: directory)
        let registry = PluginTestSupport.registry()
        let good = try #require(GraphFile.load(text: Self.graph(plugin: "libgood.so"), file: directory + "/a.json", registry: registry).graph)
        let bad = try #require(GraphFile.load(text: Self.graph(plugin: "libbad.so"), file: directory + "/b.json", registry: registry).graph)
        let instances = NodeInstances(sampleRate: 48_000, maximumFrames: 256)
        let running = try instances.slots(for: good)
        #expect(throws: PluginCreateError.self) { _ = try instances.slots(for: bad) }
        let again = try instances.slots(for: good)
        #expect(zip(running, again).allSatisfy { $0 === $1 }, "the failed change replaced running nodes")
    }

    @Test("smoothed parameters, set_parameter and sample-accurate MIDI reach a C plugin")
    func contextCrossesTheABI() throws {
        let directory = try makeTemporaryDirectory("plugin-tests-graph")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try PluginTestSupport.compileC(TestPluginSource().text, name: "libprobe.so", in: directory)
        let file = directory + "/graph.json"
        try Self.graph(plugin: "libprobe.so", params: "{ \"gain\": 0, \"offset\": 0.25 }").write(toFile: file, atomically: true, encoding: .utf8)
        let rig = try OfflineRig(graphPath: file)
        let output = try rig.render(frames: 1024, port: "probe:out") { cycle in
            if cycle == 2 { rig.backend.injectMIDI(.noteOn(60, velocity: 100), app: "probe") }
        }
        // gain 0 silences the tone; offset arrives through set_parameter; the note adds 0.060.
        #expect(abs(output[100] - 0.25) < 1e-6)
        #expect(abs(output[511] - 0.25) < 1e-6)
        #expect(abs(output[512] - 0.31) < 1e-6, "the note-on at the first frame of cycle 2")
    }
}
