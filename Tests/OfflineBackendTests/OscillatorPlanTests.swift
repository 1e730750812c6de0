import SignalAnalysis
import Testing

/// An oscillator rendered through a compiled plan, measured for pitch, level and continuity.
@Suite("An oscillator rendered through a plan")
struct OscillatorPlanTests {
    static let oscillator = graphJSON(apps: """
        { "id": "osc", "plugin": "builtin:oscillator", "params": { "frequency": 440, "amplitude": 0.5 } }
        """)

    @Test("440 Hz at amplitude 0.5 measures 440 Hz within 0.5 Hz and RMS 0.5/√2 within 1 %")
    func pitchAndLevel() throws {
        let harness = try PlanHarness(Self.oscillator)
        // One second holds exactly 440 periods, so Goertzel has no leakage at 440 Hz.
        let samples = try harness.render(frames: 48_000, port: "osc:out")

        let crossings = try #require(SignalAnalysis.estimateFrequency(samples: samples, sampleRate: 48_000))
        #expect(abs(crossings - 440) < 0.5)

        let at440 = SignalAnalysis.goertzelMagnitude(samples: samples, frequency: 440, sampleRate: 48_000)
        let below = SignalAnalysis.goertzelMagnitude(samples: samples, frequency: 439.5, sampleRate: 48_000)
        let above = SignalAnalysis.goertzelMagnitude(samples: samples, frequency: 440.5, sampleRate: 48_000)
        #expect(abs(at440 - 0.5) < 0.005)
        #expect(at440 > below && at440 > above, "the spectral peak lies within 0.5 Hz of 440 Hz")

        let rms = SignalAnalysis.rms(samples)
        let expected = Float(0.5 / 2.0.squareRoot())
        #expect(abs(rms - expected) / expected < 0.01)
        #expect(SignalAnalysis.peak(samples) <= 0.5 + 1e-6)
    }

    @Test("the sine stays continuous across cycles of a size that does not divide its period", arguments: [100, 256, 1])
    func continuousAcrossCycles(block: Int) throws {
        let harness = try PlanHarness(Self.oscillator, blockSize: block)
        let samples = try harness.render(frames: 9_600, port: "osc:out")
        // |sin(x + d) − sin(x)| ≤ d, so a sine of amplitude A never steps by more than 2π·f/sr·A.
        let ownLargestStep = Float(2 * Double.pi * 440 / 48_000 * 0.5)
        #expect(SignalAnalysis.maxAbsoluteStep(samples) <= ownLargestStep + 1e-5)
        #expect(abs(SignalAnalysis.rms(samples) - Float(0.5 / 2.0.squareRoot())) < 0.005)
    }

    @Test("every frame follows the ideal sine whatever the cycle size")
    func followsIdealSine() throws {
        let harness = try PlanHarness(Self.oscillator, blockSize: 100)
        let samples = try harness.render(frames: 4_800, port: "osc:out")
        var worst: Double = 0
        for (frame, sample) in samples.enumerated() {
            let ideal = 0.5 * referenceSine(cycles: Double(frame) * 440 / 48_000)
            worst = max(worst, abs(Double(sample) - ideal))
        }
        #expect(worst < 1e-5, "largest deviation from 0.5·sin(2π·440·n/48000): \(worst)")
    }
}
