import Testing
import NodeKit
import Nodes
import SignalAnalysis

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("OscillatorNode")
struct OscillatorNodeTests {
    /// 480-frame cycles make one second exactly 100 cycles, a whole window for the measurements.
    private func harness() throws -> NodeHarness {
        try NodeHarness(OscillatorNode.nodeType, frames: 480)
    }

    @Test("the default oscillator is a 440 Hz sine of amplitude 0.5")
    func defaults() throws {
        let samples = try harness().renderFirstOutput(seconds: 1)
        let frequency = try #require(SignalAnalysis.estimateFrequency(samples: samples, sampleRate: 48_000))
        #expect(abs(frequency - 440) < 0.5)
        #expect(abs(SignalAnalysis.rms(samples) / (0.5 / Float(2).squareRoot()) - 1) < 0.01)
        #expect(abs(SignalAnalysis.goertzelMagnitude(samples: samples, frequency: 440, sampleRate: 48_000) - 0.5) < 0.005)
        #expect(SignalAnalysis.peak(samples) <= 0.5)
    }

    @Test("frequency and amplitude set the sine's measured frequency and level",
          arguments: [(55.0, 1.0), (440.0, 0.25), (1_000.0, 0.8), (12_000.0, 0.5)] as [(Double, Float)])
    func measured(frequency: Double, amplitude: Float) throws {
        let harness = try harness()
        harness.setParameter(0, .constant(Float(frequency)))
        harness.setParameter(1, .constant(amplitude))
        let samples = harness.renderFirstOutput(seconds: 1)
        let measured = try #require(SignalAnalysis.estimateFrequency(samples: samples, sampleRate: 48_000))
        #expect(abs(measured - frequency) < 0.5)
        #expect(abs(SignalAnalysis.rms(samples) / (amplitude / Float(2).squareRoot()) - 1) < 0.01)
    }

    @Test("the sine matches sin(2πft) after ten seconds: the phase does not drift")
    func noDrift() throws {
        let harness = try harness()
        let frequency = 997.0
        harness.setParameter(0, .constant(Float(frequency)))
        harness.setParameter(1, .constant(1))
        _ = harness.render(cycles: 999)
        let start = Int(harness.sampleTime)
        let last = harness.cycle()[0]
        for (offset, sample) in last.enumerated() {
            let time = Double(start + offset) / 48_000
            let expected = Float(sin(2 * Double.pi * frequency * time))
            #expect(abs(sample - expected) < 1e-5)
        }
    }

    @Test("a steady sine is within 1e-6 × amplitude of A·sin(2πft) for any cycle length and frequency",
          arguments: [1, 7, 100, 128, 1_024])
    func accurate(frames: Int) throws {
        for (frequency, amplitude) in [(0.01, 1), (55, 0.3), (440, 1), (4_321.5, 0.77), (19_999, 1)] as [(Float, Float)] {
            let harness = try NodeHarness(OscillatorNode.nodeType, frames: frames)
            harness.setParameter(0, .constant(frequency))
            harness.setParameter(1, .constant(amplitude))
            let increment = Double(frequency) / 48_000
            var worst: Float = 0
            for (frame, sample) in harness.render(cycles: max(1, 4_800 / frames))[0].enumerated() {
                let phase = Double(frame) * increment
                let expected = Double(amplitude) * sin(2 * Double.pi * (phase - phase.rounded(.down)))
                worst = max(worst, abs(sample - Float(expected)))
            }
            #expect(worst < 1e-6 * amplitude, "\(frequency) Hz at \(amplitude) in cycles of \(frames)")
        }
    }

    @Test("at a steady frequency an amplitude ramp scales each frame as the ramp says")
    func amplitudeRampPerFrame() throws {
        let harness = try NodeHarness(OscillatorNode.nodeType, frames: 100)
        harness.setParameter(0, .constant(1_000))
        let ramp = ParameterRamp(start: 0.2, step: 0.01, rampFrames: 37, end: 0.6)
        harness.setParameter(1, ramp)
        let samples = harness.cycle()[0]
        for (frame, sample) in samples.enumerated() {
            let expected = ramp[frame] * Float(sin(2 * Double.pi * 1_000 * Double(frame) / 48_000))
            #expect(abs(sample - expected) < 1e-6)
        }
    }

    @Test("zero crossings: 1 kHz gives 2,000 sign changes a second in cycles of 100 frames")
    func zeroCrossings() throws {
        let harness = try NodeHarness(OscillatorNode.nodeType, frames: 100)
        harness.setParameter(0, .constant(1_000))
        // Start a quarter period in, so no frame sits exactly on a zero.
        let samples = harness.render(cycles: 481)[0].dropFirst(12).prefix(48_000)
        let changes = zip(samples, samples.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
        #expect(changes == 2_000)
    }

    @Test("a frequency ramp glides without a phase jump and settles on the new frequency")
    func frequencyRamp() throws {
        let harness = try harness()
        harness.setParameter(1, .constant(1))
        harness.rampParameter(0, from: 440, to: 880, over: 4_800)
        let samples = harness.renderFirstOutput(seconds: 2)
        // A sine's largest step is its largest slope, 2πf·A/fs; a phase jump would exceed it.
        let slope = Float(2 * Double.pi * 880 / 48_000)
        #expect(SignalAnalysis.maxAbsoluteStep(samples) <= slope * 1.001)
        let during = try #require(SignalAnalysis.estimateFrequency(samples: samples[..<4_800], sampleRate: 48_000))
        #expect(during > 640 && during < 680)
        let after = try #require(SignalAnalysis.estimateFrequency(samples: samples[48_000...], sampleRate: 48_000))
        #expect(abs(after - 880) < 0.5)
    }

    @Test("an amplitude ramp scales the level smoothly to its target")
    func amplitudeRamp() throws {
        let harness = try harness()
        harness.rampParameter(1, from: 0.5, to: 0.1, over: 4_800)
        let samples = harness.renderFirstOutput(seconds: 2)
        #expect(SignalAnalysis.peak(samples[..<4_800]) <= 0.5)
        #expect(abs(SignalAnalysis.rms(samples[48_000...]) / (0.1 / Float(2).squareRoot()) - 1) < 0.01)
        #expect(SignalAnalysis.maxAbsoluteStep(samples) <= Float(2 * Double.pi * 440 / 48_000) * 0.5 + 1e-4)
    }

    @Test("reset returns the phase to zero, so the output starts over")
    func reset() throws {
        let fresh = try harness().cycle()[0]
        let harness = try harness()
        _ = harness.render(cycles: 7)
        harness.node.reset()
        let again = harness.cycle()[0]
        #expect(again.first == 0)
        #expect(again == fresh)
    }
}
