import RenderCore
import Foundation
import GraphFormat
import IAAPluginABI
import NodeKit
import PluginHost
import SignalAnalysis
import Testing
import TestKit

/// Nodes that report latency (plugin ABI 3's `latency` word, NodeKit's `LatencyReport`, LV2
/// `reportsLatency`, a LADSPA `latency` output) and the engine delaying the other paths to meet
/// them. Every graph is the same shape: a tone straight into a mixer's `in_1`, and through the
/// latent node into `in_2`. Compensated, the mixer hears two copies of the tone in step (twice
/// the tone, `latency` frames late); not compensated, the tone plus itself `latency` frames late,
/// and at a frequency where that is half a period off, the copies cancel.
@Suite("Plugin latency")
struct PluginLatencyTests {
    /// Examples/Plugins/lookahead-c, built with its build.sh.
    static let lookahead = Result { () throws -> String in
        let directory = try makeTemporaryDirectory("plugin-tests-lookahead")
        let result = try runCommand(Repository.path("Examples/Plugins/lookahead-c/build.sh"), [directory])
        try #require(result.status == 0, "build.sh failed:\n\(result.output)")
        return directory + "/liblookahead.so"
    }

    /// The lookahead example's delay as its graph.json sets it: two and a half periods of its
    /// 500 Hz tone at 48 kHz.
    static let exampleDelay = 240

    // MARK: Rendering through `iaa render`

    /// Renders `graph` offline with the built `iaa` and returns the channel of each `ports` entry.
    static func render(_ graph: String, seconds: String = "1s", ports: [String] = ["mix:out", "tone:out"],
                       arguments: [String] = []) throws -> [[Float]] {
        let output = URL(fileURLWithPath: graph).deletingLastPathComponent().path + "/render-\(UUID().uuidString).wav"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let result = try runCommand(Repository.binary, ["render", graph, "-o", output, "-d", seconds]
                                    + ports.flatMap { ["--port", $0] } + arguments)
        try #require(result.status == 0, "iaa render failed:\n\(result.output)")
        let channels = try readFloatWAV(output)
        try #require(channels.count == ports.count, "\(channels.count) channels for \(ports)")
        return channels
    }

    /// The channels of a 32-bit float WAV file (what `iaa render` writes for .wav).
    static func readFloatWAV(_ path: String) throws -> [[Float]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try data.withUnsafeBytes { raw -> [[Float]] in
            func tag(_ offset: Int) -> String { String(decoding: raw[offset..<offset + 4], as: UTF8.self) }
            func u32(_ offset: Int) -> Int { Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self))) }
            func u16(_ offset: Int) -> Int { Int(UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt16.self))) }
            try #require(raw.count >= 12 && tag(0) == "RIFF" && tag(8) == "WAVE", "\(path) is not a WAV file")
            var offset = 12, channels = 0, bits = 0
            while offset + 8 <= raw.count {
                let size = u32(offset + 4), body = offset + 8
                if tag(offset) == "fmt " {
                    channels = u16(body + 2)
                    bits = u16(body + 14)
                } else if tag(offset) == "data" {
                    try #require(channels > 0 && bits == 32, "\(path): \(channels) channels of \(bits) bits")
                    let frames = min(size, raw.count - body) / (4 * channels)
                    return (0..<channels).map { channel in
                        (0..<frames).map { frame in
                            Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(
                                fromByteOffset: body + 4 * (frame * channels + channel), as: UInt32.self)))
                        }
                    }
                }
                offset = body + size + (size & 1)
            }
            Issue.record("\(path) has no data chunk")
            return []
        }
    }

    /// The largest |mix[n] − (tone[n − lag] + tone[n − secondLag])| over `frames`: the mixer's
    /// output against what it should be (`secondLag` nil: the same copy twice).
    static func mismatch(_ mix: [Float], _ tone: [Float], lag: Int, secondLag: Int? = nil,
                         frames: Range<Int>) -> Float {
        frames.reduce(0) { worst, n in
            let expected = tone[n - lag] + tone[n - (secondLag ?? lag)]
            return max(worst, abs(mix[n] - expected))
        }
    }

    /// A graph file in a new folder: `tone` (an oscillator) into `mix:in_1`, and through `fx`
    /// (`plugin`, its `input` and `output` ports) into `mix:in_2`.
    static func pathsGraph(plugin: String, input: String, output: String, frequency: Double,
                           params: String = "{}", compensate: Bool = true) throws -> String {
        let directory = try makeTemporaryDirectory("plugin-tests-latency")
        let latency = compensate ? "" : "\"latency\": { \"compensate\": false },"
        let file = directory + "/graph.json"
        try """
            { "format": "iaa-graph/1", "name": "paths", \(latency)
              "apps": [
                { "id": "tone", "plugin": "builtin:oscillator", "params": { "frequency": \(frequency), "amplitude": 0.25 } },
                { "id": "fx", "plugin": "\(plugin)", "params": \(params) },
                { "id": "mix", "plugin": "builtin:mixer", "params": { "inputs": 2 } }
              ],
              "connections": [
                { "from": "tone:out", "to": "mix:in_1" },
                { "from": "tone:out", "to": "fx:\(input)" },
                { "from": "fx:\(output)", "to": "mix:in_2" }
              ] }
            """.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// The lookahead example's graph.json next to its library, changed by `edit`.
    static func stagedExample(_ edit: (inout [String: Any]) -> Void = { _ in }) throws -> String {
        let graph = try PluginTestSupport.stage(example: "lookahead-c", library: try lookahead.get())
        var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: graph))) as? [String: Any])
        edit(&json)
        try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted]).write(to: URL(fileURLWithPath: graph))
        return graph
    }

    // MARK: The C example (ABI 3)

    @Test("lookahead-c reports its delay: the slot holds 240 after one cycle, and the graph's latency delays the dry path by 240")
    func exampleReachesSlot() throws {
        let file = try Self.stagedExample()
        let rig = try OfflineRig(graphPath: file)
        let plan = try #require(rig.backend.currentPlan)
        #expect(plan.slot(for: "lookahead")?.reportedLatency == 0, "nothing reported before the first cycle")
        _ = try rig.render(frames: rig.blockSize, port: "lookahead:out")
        #expect(plan.slot(for: "lookahead")?.reportedLatency == Self.exampleDelay)
        #expect(plan.latencyChanged, "the rig's plan was compiled before the node reported")
        let graph = try #require(GraphFile.load(path: file, registry: PluginTestSupport.registry()).graph)
        let latency = GraphLatency(graph, own: plan.appSlots.map(\.reportedLatency), compensates: graph.latency.compensate)
        let mix = try #require(graph.appIndex("mix")), dry = try #require(graph.connections.firstIndex {
            graph.apps[$0.from.app].id == "tone" && graph.apps[$0.to.app].id == "mix"
        })
        #expect(latency.arrival[mix] == Self.exampleDelay)
        #expect(latency.delay[dry] == Self.exampleDelay)
        #expect(latency.delay.reduce(0, +) == Self.exampleDelay, "only the dry path is delayed: \(latency.delay)")
    }

    @Test("iaa render of lookahead-c's graph: the mixer hears both paths in step, twice the tone 240 frames late, sample for sample",
          arguments: ["none", "process"])
    func exampleAligned(isolation: String) throws {
        let graph = try Self.stagedExample()
        let rendered = try Self.render(graph, arguments: ["--isolation", isolation])
        let mix = rendered[0], tone = rendered[1], delay = Self.exampleDelay
        #expect(SignalAnalysis.isExactlySilent(mix[..<delay]), "both paths start \(delay) frames late")
        let error = Self.mismatch(mix, tone, lag: delay, frames: delay..<mix.count)
        #expect(error < 1e-6, "mix against 2 × tone[n − \(delay)]: off by up to \(error)")
        let ratio = SignalAnalysis.rms(mix[delay...]) / SignalAnalysis.rms(tone[delay...])
        #expect(abs(ratio - 2) < 0.001, "RMS ratio \(ratio)")
    }

    @Test("with \"latency\": {\"compensate\": false} the mixer hears tone + tone 240 frames late, and at 500 Hz they cancel")
    func exampleNotCompensated() throws {
        let graph = try Self.stagedExample { $0["latency"] = ["compensate": false] }
        let rendered = try Self.render(graph, arguments: ["--isolation", "none"])
        let mix = rendered[0], tone = rendered[1], delay = Self.exampleDelay
        let error = Self.mismatch(mix, tone, lag: 0, secondLag: delay, frames: delay..<mix.count)
        #expect(error < 1e-6, "mix against tone[n] + tone[n − \(delay)]: off by up to \(error)")
        let residual = SignalAnalysis.rms(mix[delay...]) / SignalAnalysis.rms(tone[delay...])
        #expect(residual < 0.001, "the copies do not cancel: RMS ratio \(residual)")
    }

    @Test("a graph applied with another delay mid-render: lookahead-c reports 480, and the render is aligned to it again within 2048 frames")
    func exampleFollowsApply() throws {
        let graph = try Self.stagedExample()
        let folder = URL(fileURLWithPath: graph).deletingLastPathComponent().path
        var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: graph))) as? [String: Any])
        var apps = try #require(json["apps"] as? [[String: Any]])
        let index = try #require(apps.firstIndex { $0["id"] as? String == "lookahead" })
        apps[index]["params"] = ["delay": 480]
        json["apps"] = apps
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: folder + "/longer.json"))
        try #"{"timeline": [{"at": 0.5, "do": "apply", "graph": "longer.json"}]}"#
            .write(toFile: folder + "/timeline.json", atomically: true, encoding: .utf8)
        let rendered = try Self.render(graph, ports: ["mix:out", "tone:out", "lookahead:out"],
                                       arguments: ["--isolation", "none", "--timeline", folder + "/timeline.json"])
        let mix = rendered[0], tone = rendered[1], delayed = rendered[2]
        let before = Self.mismatch(mix, tone, lag: 240, frames: 240..<24_000)
        #expect(before < 1e-6, "aligned to 240 before the change: off by up to \(before)")
        let node = (24_000 + 256..<48_000).reduce(Float(0)) { max($0, abs(delayed[$1] - tone[$1 - 480])) }
        #expect(node < 1e-6, "the node delays by 480 after the change: off by up to \(node)")
        let after = Self.mismatch(mix, tone, lag: 480, frames: 24_000 + 2048..<48_000)
        #expect(after < 1e-6, "aligned to 480 after the change: off by up to \(after)")
    }

    @Test("a timeline setParam that changes lookahead-c's delay keeps it, and the render is aligned to it again")
    func exampleFollowsSetParam() throws {
        let graph = try Self.stagedExample()
        let folder = URL(fileURLWithPath: graph).deletingLastPathComponent().path
        try #"{"timeline": [{"at": 0.5, "do": "setParam", "app": "lookahead", "param": "delay", "value": 480}]}"#
            .write(toFile: folder + "/timeline.json", atomically: true, encoding: .utf8)
        let rendered = try Self.render(graph, ports: ["mix:out", "tone:out", "lookahead:out"],
                                       arguments: ["--isolation", "none", "--timeline", folder + "/timeline.json"])
        let mix = rendered[0], tone = rendered[1], delayed = rendered[2]
        // The re-plan for the new latency keeps the value the timeline set (a rebind keeps
        // running nodes' parameters).
        let node = (24_000 + 256..<48_000).reduce(Float(0)) { max($0, abs(delayed[$1] - tone[$1 - 480])) }
        #expect(node < 1e-6, "the node delays by 480 after the change: off by up to \(node)")
        let after = Self.mismatch(mix, tone, lag: 480, frames: 24_000 + 2048..<48_000)
        #expect(after < 1e-6, "aligned to 480 after the change: off by up to \(after)")
    }

    // MARK: Older plugins, Swift plugins

    @Test("a plugin built against ABI version 2 (list version 2) still loads, renders the tone at its gain, and reports no latency")
    func version2Runs() throws {
        var source = TestPluginSource()
        source.abiVersion = "2u"
        let directory = try makeTemporaryDirectory("plugin-tests-abi2")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try PluginTestSupport.compileC(source.text, name: "libold.so", in: directory)
        let library = try PluginLibrary(path: directory + "/libold.so")
        #expect(library.descriptors.first?.abiVersion == 2)
        let file = directory + "/graph.json"
        try PluginEntitlementTests.graph(plugin: "libold.so").write(toFile: file, atomically: true, encoding: .utf8)
        let rig = try OfflineRig(graphPath: file)
        let output = try rig.render(frames: 9600, port: "rec:out")
        // A 440 Hz tone of amplitude 0.5 at the probe's gain 0.5.
        #expect(abs(SignalAnalysis.rms(output[4800...]) - Float(0.25 / 2.0.squareRoot())) < 0.002,
                "RMS \(SignalAnalysis.rms(output[4800...]))")
        let frequency = try #require(SignalAnalysis.estimateFrequency(samples: output, sampleRate: 48_000))
        #expect(abs(frequency - 440) < 0.5, "\(frequency) Hz")
        #expect(rig.backend.currentPlan?.slot(for: "rec")?.reportedLatency == 0)
    }

    @Test("an exported Swift node's context.latency.report(frames:) reaches the C context's latency word")
    func swiftExportReports() throws {
        let export = PluginExport([.node(Reporter.description) { _, _ in Reporter() }])
        let list = export.entry.assumingMemoryBound(to: iaa_plugin_list.self).pointee
        #expect(list.abi_version == 3)
        let descriptor = try #require(list.descriptors?[0])
        var message = [CChar](repeating: 0, count: 256)
        let create = try #require(descriptor.pointee.create), process = try #require(descriptor.pointee.process)
        let destroy = try #require(descriptor.pointee.destroy)
        let instance = try #require(create(descriptor, 48_000, 64, &message, message.count), "create failed: \(message)")
        defer { destroy(instance) }
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 64)
        defer { buffer.deallocate() }
        var outputs: [UnsafeMutablePointer<Float>?] = [buffer]
        var transport = iaa_transport()
        var latency: UInt32 = 0
        outputs.withUnsafeMutableBufferPointer { table in
            withUnsafeMutablePointer(to: &latency) { cell in
                withUnsafePointer(to: &transport) { transport in
                    var context = iaa_process_context()
                    context.frames = 64
                    context.sample_rate = 48_000
                    context.outputs = UnsafePointer(table.baseAddress)
                    context.output_count = 1
                    context.transport = transport
                    context.latency = cell
                    process(instance, &context)
                }
            }
        }
        #expect(latency == 64)
    }

    // MARK: Installed LV2 and LADSPA plugins

    /// An installed plugin that reports latency, and what the test needs of it.
    struct Latent: Sendable, CustomStringConvertible {
        let plugin: String
        let input: String
        let output: String
        /// What it reports at 48 kHz, and delays by.
        let latency: Int
        /// Periods of the test tone in `latency` frames, a whole number and a half, so that
        /// copies `latency` frames apart cancel.
        let periods: Double
        var description: String { plugin }
        var frequency: Double { periods * 48_000 / Double(latency) }
    }

    /// swh-lv2's fixed-latency lookahead limiter: a `reportsLatency` port, 8191 frames at 48 kHz
    /// (its buffer, 8192 frames at 48 kHz, less one). swh-plugins' (LADSPA) fast lookahead
    /// limiter: an output called `latency`, 5 ms (240 frames). With the tone at a quarter, far
    /// under both limits, neither changes the level.
    static let latent = [
        Latent(plugin: "lv2:http://plugin.org.uk/swh-plugins/lookaheadLimiterConst", input: "in_1", output: "out_1", latency: 8191,
               periods: 50.5),
        Latent(plugin: "ladspa:fastLookaheadLimiter", input: "input_1", output: "output_1", latency: 240, periods: 2.5),
    ]

    @Test("an installed plugin's reported latency is compensated: the mixer hears twice the tone, `latency` frames late",
          arguments: latent, ["none", "process"])
    func installedAligned(_ latent: Latent, isolation: String) throws {
        let graph = try Self.pathsGraph(plugin: latent.plugin, input: latent.input, output: latent.output, frequency: latent.frequency)
        let rendered = try Self.render(graph, seconds: "0.5s", arguments: ["--isolation", isolation])
        let mix = rendered[0], tone = rendered[1], lag = latent.latency
        let error = Self.mismatch(mix, tone, lag: lag, frames: lag..<mix.count)
        #expect(error < 1e-4, "mix against 2 × tone[n − \(lag)]: off by up to \(error)")
        let settled = lag + 480
        let ratio = SignalAnalysis.rms(mix[settled...]) / SignalAnalysis.rms(tone[settled...])
        #expect(abs(ratio - 2) < 0.002, "RMS ratio \(ratio) (mix \(SignalAnalysis.rms(mix[settled...])))")
    }

    @Test("not compensated, an installed plugin's copy is `latency` frames behind and cancels the direct one", arguments: latent)
    func installedNotCompensated(_ latent: Latent) throws {
        let graph = try Self.pathsGraph(plugin: latent.plugin, input: latent.input, output: latent.output,
                                        frequency: latent.frequency, compensate: false)
        let rendered = try Self.render(graph, seconds: "0.5s")
        let mix = rendered[0], tone = rendered[1], lag = latent.latency
        let error = Self.mismatch(mix, tone, lag: 0, secondLag: lag, frames: lag..<mix.count)
        #expect(error < 1e-4, "mix against tone[n] + tone[n − \(lag)]: off by up to \(error)")
        let settled = lag + 480
        let residual = SignalAnalysis.rms(mix[settled...]) / SignalAnalysis.rms(tone[settled...])
        #expect(residual < 0.001, "RMS ratio \(residual) (mix \(SignalAnalysis.rms(mix[settled...])))")
    }
}

/// A generator whose output lags by 64 frames (it says), for the export test.
private final class Reporter: AudioNode {
    static let description = PluginNodeDescription(
        id: "reporter", name: "Reporter",
        component: ComponentDescription(type: .generator, subtype: "rprt", manufacturer: "test", name: "Test: Reporter"),
        layout: NodeLayout(inputs: [], outputs: [.output("out", "Output")]))

    func process(_ context: ProcessContext) {
        context.outputs[0].update(repeating: 0)
        context.latency.report(frames: 64)
    }
}
