import Testing
import NodeKit
import Nodes
import SignalAnalysis

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("LowpassNode")
struct LowpassNodeTests {
    /// The filter's gain in dB for a unit sine at `frequency`, measured after it settles.
    private func gain(cutoff: Float, at frequency: Double, frames: Int = 480) throws -> Float {
        let harness = try NodeHarness(LowpassNode.nodeType, frames: frames)
        harness.setParameter(0, .constant(cutoff))
        harness.input = { _, frame in Float(sin(2 * Double.pi * frequency * Double(frame) / 48_000)) }
        let output = harness.renderFirstOutput(seconds: 1)
        return SignalAnalysis.decibels(SignalAnalysis.rms(output[24_000...]) / Float(0.5.squareRoot()))
    }

    /// The bilinear one-pole's exact response: 1/√(1 + (tan(πf/fs)/tan(πfc/fs))²).
    private func expected(cutoff: Double, at frequency: Double) -> Float {
        let ratio = tan(Double.pi * frequency / 48_000) / tan(Double.pi * cutoff / 48_000)
        return Float(-10 * log10(1 + ratio * ratio))
    }

    @Test("−3 dB at the cutoff and next to 0 dB a decade below it", arguments: [100, 1_000, 5_000] as [Float])
    func response(cutoff: Float) throws {
        #expect(abs(try gain(cutoff: cutoff, at: Double(cutoff)) + 3.01) < 0.05)
        let below = Double(cutoff) / 10
        #expect(abs(try gain(cutoff: cutoff, at: below) - expected(cutoff: Double(cutoff), at: below)) < 0.05)
    }

    @Test("−6 dB per octave above the cutoff", arguments: [100, 1_000] as [Float])
    func slope(cutoff: Float) throws {
        let octave = try gain(cutoff: cutoff, at: 8 * Double(cutoff)) - gain(cutoff: cutoff, at: 4 * Double(cutoff))
        #expect(abs(octave + 6) < 0.6)
    }

    @Test("the response follows the bilinear one-pole's formula across the band")
    func formula() throws {
        for frequency in [50.0, 700, 2_000, 9_000, 20_000] {
            #expect(abs(try gain(cutoff: 1_000, at: frequency) - expected(cutoff: 1_000, at: frequency)) < 0.05,
                    "\(frequency) Hz")
        }
    }

    @Test("blocks of eight give the frame-by-frame recursion's output", arguments: [1, 7, 8, 100, 128])
    func blocksMatchRecursion(frames: Int) throws {
        let harness = try NodeHarness(LowpassNode.nodeType, frames: frames)
        harness.setParameter(0, .constant(2_500))
        // Noise-like input: a sum of unrelated sines.
        let input: (Int) -> Float = { frame in
            Float(sin(Double(frame) * 0.7) + 0.5 * sin(Double(frame) * 2.3) + 0.25 * sin(Double(frame) * 0.05))
        }
        harness.input = { _, frame in input(frame) }
        let output = harness.render(cycles: max(1, 2_000 / frames))[0]
        let g = tan(Double.pi * 2_500 / 48_000)
        let gain = g / (1 + g), feedback = 1 - 2 * gain
        var previousInput = 0.0, previousOutput = 0.0, worst = 0.0
        for (frame, sample) in output.enumerated() {
            let x = Double(input(frame))
            previousOutput = feedback * previousOutput + gain * (x + previousInput)
            previousInput = x
            worst = max(worst, abs(Double(sample) - previousOutput))
        }
        #expect(worst < 2e-6)
    }

    @Test("the filter works in place")
    func inPlace() throws {
        let separate = try NodeHarness(LowpassNode.nodeType, frames: 100)
        let shared = try NodeHarness(LowpassNode.nodeType, frames: 100, inPlace: true)
        for harness in [separate, shared] {
            harness.input = { _, frame in Float(sin(Double(frame) * 0.3)) }
        }
        #expect(separate.render(cycles: 5)[0] == shared.render(cycles: 5)[0])
    }

    /// Bounded by the impulse response's ℓ1 norm, 2G < 2: near Nyquist (c < 0) the bilinear
    /// one-pole overshoots a square wave, as any pre-warped one-pole does.
    @Test("a cutoff sweep stays finite and bounded, and reset clears the state")
    func sweep() throws {
        let harness = try NodeHarness(LowpassNode.nodeType, frames: 100)
        harness.input = { _, frame in frame % 50 < 25 ? 1 : -1 }
        harness.rampParameter(0, from: 20, to: 20_000, over: 4_800)
        let output = harness.renderFirstOutput(seconds: 0.2)
        #expect(output.allSatisfy { $0.isFinite && abs($0) < 2 })
        harness.node.reset()
        harness.input = { _, _ in 0 }
        #expect(SignalAnalysis.isExactlySilent(harness.cycle()[0]))
    }
}
