import GraphFormat
import Foundation
import NodeKit
import PluginHost
import SignalAnalysis
import Testing
import TestKit

/// Installed LV2 and LADSPA plugins (Debian's ladspa-sdk, swh-plugins, swh-lv2, mda-lv2,
/// which tools/test installs), rendered offline and measured against what each one documents.
@Suite("LV2 and LADSPA plugins")
struct FormatPluginTests {
    /// RMS in dB of the last half of `samples` (past any start-up transient).
    static func level(_ samples: [Float]) -> Float {
        SignalAnalysis.decibels(SignalAnalysis.rms(samples.suffix(samples.count / 2)))
    }

    @Test("LADSPA amp_mono (ladspa-sdk): gain 0.5 lowers a sine by 6.02 dB")
    func ladspaGain() throws {
        let harness = try FormatHarness("ladspa:amp_mono")
        #expect(harness.type.parameters.map(\.name) == ["gain"])
        #expect(harness.type.layout(NodeConfiguration()).inputs.map(\.name) == ["input"])
        #expect(harness.type.component?.type == .effect)
        let dry = Self.level((0..<9600).map(harness.sine(1000)))
        try harness.set("gain", 0.5)
        let wet = Self.level(harness.render(9600, input: harness.sine(1000)))
        #expect(abs((wet - dry) - (-6.0206)) < 0.01, "\(wet - dry) dB")
    }

    @Test("LV2 swh amp: its gain is in dB (-70…70); -12 lowers a sine by 12 dB")
    func lv2Gain() throws {
        let harness = try FormatHarness("lv2:http://plugin.org.uk/swh-plugins/amp")
        let gain = try #require(harness.type.parameters.first { $0.name == "gain" })
        #expect(gain.range == -70...70)
        #expect(gain.unit == .decibels)
        let dry = Self.level((0..<9600).map(harness.sine(500)))
        try harness.set("gain", -12)
        let wet = Self.level(harness.render(9600, input: harness.sine(500)))
        #expect(abs((wet - dry) - (-12)) < 0.05, "\(wet - dry) dB")
    }

    @Test("LADSPA delay_5s by library and label: 0.01 s wet-only delays an impulse by exactly 480 samples")
    func ladspaDelay() throws {
        let harness = try FormatHarness("ladspa:delay/delay_5s")
        try harness.set("delay_seconds", 0.01)
        try harness.set("dry_wet_balance", 1)
        let output = harness.render(2048, input: { $0 == 100 ? 1 : 0 })
        let peak = try #require(output.indices.max { abs(output[$0]) < abs(output[$1]) })
        #expect(peak == 580, "peak at \(peak)")
        #expect(abs(output[580] - 1) < 1e-6)
    }

    @Test("LV2 swh delay_n: 0.005 s delays an impulse by 240 samples")
    func lv2Delay() throws {
        let harness = try FormatHarness("lv2:http://plugin.org.uk/swh-plugins/delay_n")
        try harness.set("delay_time", 0.005)
        // swh's delay line starts as uninitialised memory (the plugin's own choice); 1.5 s of
        // silence fills its whole line (1 s by default, rounded up to 65536 frames) first.
        let start = 72_000
        let output = Array(harness.render(start + 2048, input: { $0 == start + 300 ? 1 : 0 })[start...])
        let peak = try #require(output.indices.max { abs(output[$0]) < abs(output[$1]) })
        #expect(peak == 540, "peak at \(peak)")
        #expect(abs(output[540] - 1) < 1e-6)
    }

    @Test("LADSPA lpf (ladspa-sdk) at 500 Hz: 100 Hz passes, 8 kHz is cut by over 20 dB")
    func ladspaLowpass() throws {
        func gain(_ frequency: Double) throws -> Float {
            let harness = try FormatHarness("ladspa:lpf")
            try harness.set("cutoff_frequency_hz", 500)
            let input = harness.sine(frequency)
            return Self.level(harness.render(19200, input: input)) - Self.level((0..<19200).map(input))
        }
        let low = try gain(100)
        let high = try gain(8000)
        #expect(low > -1, "100 Hz: \(low) dB")
        #expect(high < -20, "8 kHz: \(high) dB")
    }

    @Test("LV2 instrument mda Piano: MIDI note 69 sounds at 440 Hz, note 57 at 220 Hz")
    func lv2Instrument() throws {
        for (note, frequency) in [(UInt8(69), 440.0), (57, 220.0)] {
            let harness = try FormatHarness("lv2:http://drobilla.net/plugins/mda/Piano")
            #expect(harness.type.component?.type == .instrument)
            #expect(harness.type.layout(NodeConfiguration()).midiInputs.map(\.name) == ["midi_in"])
            let output = harness.render(24000, midi: [(256, .noteOn(note, velocity: 100))])
            #expect(SignalAnalysis.rms(output) > 0.001, "silent")
            // A piano's tone is rich in harmonics (a low note's second can be its loudest), so the
            // fundamental is the lowest partial within 12 dB of the loudest, on a 2 Hz grid of
            // Goertzel filters between 100 Hz and 1.2 kHz, refined to its local peak.
            let window = output[4800..<14400]
            let grid = Array(stride(from: 100.0, through: 1200, by: 2))
            let magnitudes = grid.map { SignalAnalysis.goertzelMagnitude(samples: window, frequency: $0, sampleRate: 48_000) }
            let strongest = try #require(magnitudes.max())
            let first = try #require(magnitudes.firstIndex { $0 >= strongest / 4 })
            let peak = (first..<min(first + 10, grid.count)).max { magnitudes[$0] < magnitudes[$1] } ?? first
            let fundamental = grid[peak]
            #expect(abs(fundamental - frequency) / frequency < 0.01, "note \(note): fundamental at \(fundamental) Hz")
        }
    }

    @Test("a misspelt LV2 URI or LADSPA label is refused with a did-you-mean")
    func misspelt() throws {
        let resolver = PluginResolver(searchPath: [])
        guard case .failure(let lv2) = resolver.resolve("lv2:http://plugin.org.uk/swh-plugins/ampp", graphDirectory: ".") else {
            Issue.record("a missing URI resolved")
            return
        }
        #expect(lv2.code == .unknownPlugin)
        #expect(lv2.hint == "did you mean \"lv2:http://plugin.org.uk/swh-plugins/amp\"?", "\(lv2)")
        guard case .failure(let ladspa) = resolver.resolve("ladspa:amp_mnoo", graphDirectory: ".") else {
            Issue.record("a missing label resolved")
            return
        }
        #expect(ladspa.message == "no installed LADSPA plugin is called \"amp_mnoo\"")
        #expect(ladspa.hint == "did you mean \"ladspa:amp_mono\"?", "\(ladspa)")
    }

    @Test("a graph naming a missing plugin fails at its plugin field, compiler-style")
    func locatedInGraph() throws {
        let text = """
            { "format": "iaa-graph/1", "name": "fx",
              "apps": [ { "id": "amp", "plugin": "ladspa:amp_mnoo" } ] }
            """
        let result = GraphFile.load(text: text, file: "/tmp/fx.json", registry: PluginTestSupport.registry())
        #expect(result.graph == nil)
        let first = try #require(result.diagnostics.first).formatted
        #expect(first.hasPrefix("/tmp/fx.json:2:"), "\(first)")
        #expect(first.contains("error[unknownPlugin]: /apps/0/plugin: no installed LADSPA plugin is called \"amp_mnoo\""), "\(first)")
    }

    @Test("iaa plugins lists installed LV2 and LADSPA plugins (--json too) and shows one in full")
    func listing() throws {
        let lv2 = try runCommand(Repository.binary, ["plugins", "--lv2"])
        #expect(lv2.status == 0)
        #expect(lv2.output.contains("lv2:http://drobilla.net/plugins/mda/Piano") && lv2.output.contains("(Instrument Plugin)"), "\(lv2.output)")
        let ladspa = try runCommand(Repository.binary, ["plugins", "--ladspa", "--json"])
        let document = try JSONSerialization.jsonObject(with: Data(ladspa.output.utf8)) as? [String: [[String: String]]]
        let plugins = try #require(document?["plugins"])
        #expect(plugins.contains { $0["plugin"] == "ladspa:delay/delay_5s" && $0["name"] == "Simple Delay Line" })
        let shown = try runCommand(Repository.binary, ["plugins", "lv2:http://plugin.org.uk/swh-plugins/amp"])
        #expect(shown.status == 0)
        #expect(shown.output.contains("ports: input (audio in), output (audio out)"), "\(shown.output)")
        #expect(shown.output.contains("param gain: -70…70 decibels, default 0"), "\(shown.output)")
        let misspelt = try runCommand(Repository.binary, ["plugins", "ladspa:lpff"])
        #expect(misspelt.status == 1)
        #expect(misspelt.output.contains("hint: did you mean \"ladspa:lpf\"?"), "\(misspelt.output)")
    }

    @Test("an LV2 plugin that requires a feature iaa lacks is refused, naming the feature")
    func missingFeature() throws {
        // Built here: a plugin bundle whose manifest requires a feature no host provides.
        let directory = try makeTemporaryDirectory("plugin-tests-lv2-feature")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bundle = directory + "/needy.lv2"
        try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
        try """
            @prefix lv2: <http://lv2plug.in/ns/lv2core#> .
            <urn:iaa:test:needy> a lv2:Plugin ; lv2:binary <needy.so> ;
                lv2:requiredFeature <urn:iaa:test:no-such-feature> ;
                lv2:port [ a lv2:AudioPort , lv2:OutputPort ; lv2:index 0 ; lv2:symbol "out" ; lv2:name "Out" ] .
            """.write(toFile: bundle + "/manifest.ttl", atomically: true, encoding: .utf8)
        let result = try runCommand(Repository.binary, ["plugins", "lv2:urn:iaa:test:needy"],
                                               environment: ["LV2_PATH": directory])
        #expect(result.status == 1)
        #expect(result.output.contains("error[invalidDescriptor]: LV2 plugin <urn:iaa:test:needy> requires the feature <urn:iaa:test:no-such-feature>, which iaa does not provide"), "\(result.output)")
    }
}
