import LocatedJSON
import GraphFormat
import Foundation
import NodeKit
import PluginHost
import SignalAnalysis
import Testing
import TestKit

/// What an LV2 plugin keeps beyond its parameters (the LV2 state extension) and what it reports
/// (control outputs), with plugins Debian installs: lv2-examples' sampler and swh's latency.
@Suite("LV2 state and control outputs")
struct FormatStateTests {
    static let sampler = "lv2:http://lv2plug.in/plugins/eg-sampler"

    /// A one-second 1 kHz sine at 48 kHz, made by sox as a user would make a sample.
    static func sineFile(in directory: String) throws -> String {
        let path = directory + "/tone.wav"
        let made = try runCommand("sox", ["-n", "-r", "48000", "-c", "1", "-b", "16", path, "synth", "1", "sine", "1000"])
        try #require(made.status == 0, "sox: \(made.output)")
        return path
    }

    /// Plays note 60 from frame 256 and returns one second of the sampler's output.
    static func play(_ harness: FormatHarness) -> [Float] {
        harness.render(48_000, midi: [(256, .noteOn(60, velocity: 127))])
    }

    /// 1 kHz's share of the level between 100 Hz and 4 kHz.
    static func isTone(_ samples: ArraySlice<Float>) -> Bool {
        let tone = SignalAnalysis.goertzelMagnitude(samples: samples, frequency: 1000, sampleRate: 48_000)
        let others = [250.0, 500, 750, 1500, 2000, 3000].map {
            SignalAnalysis.goertzelMagnitude(samples: samples, frequency: $0, sampleRate: 48_000)
        }
        return tone > 10 * (others.max() ?? 0)
    }

    @Test("the sampler loads its default state (state:loadDefaultState): a note plays its click, then silence")
    func defaultState() throws {
        let harness = try FormatHarness(Self.sampler)
        let output = Self.play(harness)
        // click.wav is a few milliseconds long: sound at the note, nothing a quarter second later.
        #expect(SignalAnalysis.peak(output[256..<2_400]) > 0.05, "no click")
        #expect(SignalAnalysis.peak(output[12_000...]) == 0)
        let saved = try #require(try (harness.node as? any StatefulNode)?.savedState())
        #expect(saved.contains("click.wav"), "\(saved)")
        #expect(saved.contains("<http://lv2plug.in/plugins/eg-sampler>"), "\(saved)")
    }

    @Test("a saved state restores into a new instance: the sampler plays the sample the state names")
    func restoredState() throws {
        let directory = try makeTemporaryDirectory("plugin-tests-lv2-state")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let tone = try Self.sineFile(in: directory)
        // What `iaa dump --graph` writes, with the sample changed as a user edits a saved session.
        let saved = try #require(try (FormatHarness(Self.sampler).node as? any StatefulNode)?.savedState())
        let clickPath = try #require(saved.split(separator: "\n").first { $0.contains("click.wav") })
        let edited = saved.replacingOccurrences(of: String(clickPath), with: clickPath.replacingOccurrences(
            of: #"<[^>]*click\.wav>|"[^"]*click\.wav""#, with: "<file://\(tone)>", options: .regularExpression))
        #expect(edited.contains(tone), "\(edited)")
        let harness = try FormatHarness(Self.sampler, state: edited)
        let output = Self.play(harness)
        #expect(Self.isTone(output[4_800..<24_000]), "not the 1 kHz sample")
        #expect(SignalAnalysis.rms(output[4_800..<24_000]) > 0.1)
        // Saved again, the state names the new sample: a dump of a restored graph keeps it.
        let again = try #require(try (harness.node as? any StatefulNode)?.savedState())
        #expect(again.contains(tone) && !again.contains("click.wav"), "\(again)")
        // Created anew for another sample rate, the instance keeps the restored state.
        harness.node.prepare(sampleRate: 44_100, maximumFrames: 512)
        #expect(try (harness.node as? any StatefulNode)?.savedState()?.contains(tone) == true)
    }

    @Test("a pluginState the plugin cannot take is refused at its field, and one on a stateless plugin too")
    func refusedState() throws {
        func errors(_ plugin: String, _ state: String) -> [String] {
            let json = #"{"format": "iaa-graph/1", "apps": [{"id": "s", "plugin": "\#(plugin)", "pluginState": \#(JSONText.quoted(state))}]}"#
            return GraphFile.load(text: json, file: "/tmp/s.json", registry: PluginTestSupport.registry()).diagnostics.map(\.formatted)
        }
        let garbage = errors(Self.sampler, "not turtle at all")
        #expect(garbage.contains { $0.contains("/apps/0/pluginState") && $0.contains("not an LV2 state snapshot") }, "\(garbage)")
        let params = try #require(try (FormatHarness("lv2:http://lv2plug.in/plugins/eg-params").node as? any StatefulNode)?.savedState())
        let foreign = errors(Self.sampler, params)
        #expect(foreign.contains { $0.contains("saved by <http://lv2plug.in/plugins/eg-params>") }, "\(foreign)")
        let stateless = errors("ladspa:amp_mono", params)
        #expect(stateless.contains { $0.contains("/apps/0/pluginState") && $0.contains("keeps no state") }, "\(stateless)")
    }

    @Test("control outputs are readings: swh Artificial latency reports 480 samples for 10 ms at 48 kHz")
    func controlOutputs() throws {
        let harness = try FormatHarness("lv2:http://plugin.org.uk/swh-plugins/artificialLatency")
        try harness.set("delay", 10)
        _ = harness.render(512)
        let readings = try #require((harness.node as? any ReportingNode)?.readings)
        #expect(readings.map(\.name) == ["latency"])
        #expect(readings.first?.value == 480)
    }
}
