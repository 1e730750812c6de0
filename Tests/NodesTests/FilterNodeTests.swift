import Testing
import NodeKit
import Nodes
import SignalAnalysis

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("FilterNode")
struct FilterNodeTests {
    /// Parameter indices, in the order of the node type's parameters.
    private enum Parameter {
        static let cutoff = 0, resonance = 1, mode = 2
    }

    /// The filter's gain in dB for a unit sine at `frequency`, measured after it settles.
    private func gain(mode: Float, cutoff: Float = 1_000, resonance: Float = 0, at frequency: Double) throws -> Float {
        let harness = try NodeHarness(FilterNode.nodeType, frames: 480)
        harness.setParameter(Parameter.cutoff, .constant(cutoff))
        harness.setParameter(Parameter.resonance, .constant(resonance))
        harness.setParameter(Parameter.mode, .constant(mode))
        harness.input = { _, frame in Float(sin(2 * Double.pi * frequency * Double(frame) / 48_000)) }
        let output = harness.renderFirstOutput(seconds: 1)
        return SignalAnalysis.decibels(SignalAnalysis.rms(output[24_000...]) / Float(0.5.squareRoot()))
    }

    @Test("lowpass: −12 dB an octave above the cutoff, −3 dB at it, flat an octave below")
    func lowpass() throws {
        #expect(abs(try gain(mode: 0, at: 2_000) + 12.3) < 1)
        #expect(abs(try gain(mode: 0, at: 1_000) + 3) < 0.3)
        #expect(abs(try gain(mode: 0, at: 500)) < 0.5)
    }

    @Test("highpass: −12 dB an octave below the cutoff, flat an octave above")
    func highpass() throws {
        #expect(abs(try gain(mode: 1, at: 500) + 12.3) < 1)
        #expect(abs(try gain(mode: 1, at: 1_000) + 3) < 0.3)
        #expect(abs(try gain(mode: 1, at: 2_000)) < 0.5)
    }

    @Test("bandpass: unity at the cutoff, attenuated two octaves either side")
    func bandpass() throws {
        #expect(abs(try gain(mode: 2, at: 1_000)) < 0.3)
        #expect(try gain(mode: 2, at: 250) < -8)
        #expect(try gain(mode: 2, at: 4_000) < -8)
    }

    @Test("full resonance peaks at the cutoff by about Q = 20")
    func resonance() throws {
        let peak = try gain(mode: 0, resonance: 1, at: 1_000)
        #expect(abs(peak - 26) < 1)
        #expect(try gain(mode: 0, resonance: 1, at: 4_000) < -20)
    }

    @Test("the cutoff lands where asked across the range", arguments: [100 as Float, 5_000, 15_000])
    func cutoffAccuracy(cutoff: Float) throws {
        #expect(abs(try gain(mode: 0, cutoff: cutoff, at: Double(cutoff)) + 3) < 0.3)
    }

    @Test("a fast cutoff sweep at full resonance stays finite and bounded", arguments: [0 as Float, 1, 2])
    func sweepStability(mode: Float) throws {
        let harness = try NodeHarness(FilterNode.nodeType, frames: 64)
        harness.setParameter(Parameter.resonance, .constant(1))
        harness.setParameter(Parameter.mode, .constant(mode))
        harness.input = testSignal
        var output: [Float] = []
        for sweep in 0..<400 {
            let up = sweep.isMultiple(of: 2)
            harness.rampParameter(Parameter.cutoff, from: up ? 20 : 20_000, to: up ? 20_000 : 20, over: 64)
            output += harness.cycle()[0]
        }
        #expect(output.allSatisfy { $0.isFinite })
        #expect(SignalAnalysis.peak(output) < 50)
    }

    @Test("the filter works in place")
    func inPlace() throws {
        let separate = try NodeHarness(FilterNode.nodeType)
        let shared = try NodeHarness(FilterNode.nodeType, inPlace: true)
        separate.input = testSignal
        shared.input = testSignal
        #expect(separate.render(cycles: 4)[0] == shared.render(cycles: 4)[0])
    }
}
