import Foundation
import PluginHost
import SignalAnalysis
import Testing
import TestKit

/// The examples in Examples/Plugins: each builds, loads by path from its graph, and does its DSP.
@Suite("Example plugins")
struct ExamplePluginTests {
    /// The C tremolo, built with cc as its build.sh does.
    static let tremolo = Result { () throws -> String in
        let directory = try makeTemporaryDirectory("plugin-tests-tremolo")
        let result = try runCommand(Repository.root + "/Examples/Plugins/tremolo-c/build.sh", [directory])
        try #require(result.status == 0, "build.sh failed:\n\(result.output)")
        return directory + "/libtremolo.so"
    }

    /// Peak of every `window` frames: the envelope of a modulated tone.
    static func envelope(_ samples: [Float], window: Int) -> [Float] {
        stride(from: 0, to: samples.count - window + 1, by: window).map { SignalAnalysis.peak(samples[$0..<$0 + window]) }
    }

    @Test("tremolo-c swings a 0.5 tone between 0.5 and 0.1 (depth 0.8) four times a second")
    func tremolo() throws {
        let graph = try PluginTestSupport.stage(example: "tremolo-c", library: try Self.tremolo.get())
        let rig = try OfflineRig(graphPath: graph)
        let output = try rig.render(frames: 96_000, port: "tremolo:out")
        // 480-frame windows (10 ms, 4.4 periods of 440 Hz) sampled at 100 Hz.
        let envelope = Self.envelope(output, window: 480)
        let top = try #require(envelope.max()), bottom = try #require(envelope.min())
        #expect(abs(top - 0.5) < 0.01, "top \(top)")
        #expect(abs(1 - bottom / top - 0.8) < 0.03, "depth \(1 - bottom / top)")
        let mean = envelope.reduce(0, +) / Float(envelope.count)
        let rate = try #require(SignalAnalysis.estimateFrequency(samples: envelope.map { $0 - mean }, sampleRate: 100))
        #expect(abs(rate - 4) < 0.1, "rate \(rate) Hz")
    }

    @Test("ringmod-swift moves a 1000 Hz tone to 700 and 1300 Hz (carrier 300 Hz)")
    func ringModulator() throws {
        let graph = try PluginTestSupport.stage(example: "ringmod-swift", library: try PluginTestSupport.ringModulator.get())
        let rig = try OfflineRig(graphPath: graph)
        let output = try rig.render(frames: 48_000, port: "ringmod:out")
        func level(_ hertz: Double) -> Float { SignalAnalysis.goertzelMagnitude(samples: output, frequency: hertz, sampleRate: 48_000) }
        #expect(abs(level(700) - 0.25) < 0.01, "f1 - f2: \(level(700))")
        #expect(abs(level(1300) - 0.25) < 0.01, "f1 + f2: \(level(1300))")
        #expect(level(1000) < 0.005, "the carrier-free input is gone: \(level(1000))")
        #expect(level(300) < 0.005, "no carrier leaks: \(level(300))")
    }

    @Test("generator-swift plays 330 Hz at level 0.3")
    func generator() throws {
        let graph = try PluginTestSupport.stage(example: "generator-swift", library: try PluginTestSupport.generator.get())
        let rig = try OfflineRig(graphPath: graph)
        let output = try rig.render(frames: 48_000, port: "sine:out")
        let frequency = try #require(SignalAnalysis.estimateFrequency(samples: output, sampleRate: 48_000))
        #expect(abs(frequency - 330) < 0.1, "\(frequency) Hz")
        #expect(abs(SignalAnalysis.peak(output) - 0.3) < 0.002)
        #expect(abs(SignalAnalysis.rms(output) - Float(0.3 / 2.0.squareRoot())) < 0.002)
    }

    @Test("the release engine renders every example with no allocation or retain on the audio thread",
          .enabled(if: ProcessInfo.processInfo.environment["IAA_RELEASE_BIN"] != nil, "needs IAA_RELEASE_BIN (tools/test sets it)"))
    func realtimeSafe() throws {
        let binary = try #require(ProcessInfo.processInfo.environment["IAA_RELEASE_BIN"])
        let directory = try makeTemporaryDirectory("plugin-tests-rt")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let counter = try CachedCBuild.realtimeCounter()
        let examples = [("tremolo-c", try Self.tremolo.get(), "tremolo:out"),
                        ("lookahead-c", try PluginLatencyTests.lookahead.get(), "mix:out"),
                        ("ringmod-swift", try PluginTestSupport.ringModulator.get(), "ringmod:out"),
                        ("generator-swift", try PluginTestSupport.generator.get(), "sine:out")]
        for (example, library, port) in examples {
            let graph = try PluginTestSupport.stage(example: example, library: library)
            let result = try runCommand(binary, ["render", graph, "-o", directory + "/\(example).wav", "-d", "2s", "--port", port],
                                                   environment: ["IAA_RT_PROBE": "1", "LD_PRELOAD": counter])
            #expect(result.status == 0, "\(example): \(result.output)")
            #expect(result.output.contains("rt-probe: 0 mallocs, 0 retains"), "\(example): \(result.output)")
        }
    }
}
