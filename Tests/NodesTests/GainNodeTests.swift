import Testing
import NodeKit
import Nodes
import SignalAnalysis

/// A deterministic test signal with varied, non-round values.
func testSignal(_ port: Int, _ frame: Int) -> Float {
    Float((frame &* 7_919 &+ port &* 104_729) % 2_001 - 1_000) / 1_017
}

@Suite("GainNode")
struct GainNodeTests {
    @Test("a steady gain multiplies every sample exactly", arguments: [0, 0.5, 1, 3.7] as [Float])
    func multiplies(gain: Float) throws {
        let harness = try NodeHarness(GainNode.nodeType)
        harness.input = testSignal
        harness.setParameter(0, .constant(gain))
        let output = harness.render(cycles: 3)[0]
        for (frame, sample) in output.enumerated() {
            #expect(sample == testSignal(0, frame) * gain)
        }
    }

    @Test("the default gain passes the input unchanged")
    func unity() throws {
        let harness = try NodeHarness(GainNode.nodeType)
        harness.input = testSignal
        let output = harness.render(cycles: 2)[0]
        #expect(output == (0..<output.count).map { testSignal(0, $0) })
    }

    @Test("a gain ramp on a DC input is monotonic and never steps more than one increment")
    func rampIsSmooth() throws {
        let harness = try NodeHarness(GainNode.nodeType, frames: 256)
        harness.input = { _, _ in 1 }
        harness.rampParameter(0, from: 1, to: 0.5, over: 480)
        let output = harness.render(cycles: 4)[0]
        let step: Float = 0.5 / 480
        #expect(output.first == 1)
        #expect(zip(output, output.dropFirst()).allSatisfy { $1 <= $0 })
        #expect(SignalAnalysis.maxAbsoluteStep(output) <= step + 1e-6)
        #expect(output[480...].allSatisfy { $0 == 0.5 })
        #expect(abs(output[479] - (0.5 + step)) < 1e-6)
    }

    @Test("the gain works in place, with the output as its own input")
    func inPlace() throws {
        let harness = try NodeHarness(GainNode.nodeType, inPlace: true)
        harness.input = testSignal
        harness.setParameter(0, .constant(0.25))
        let output = harness.cycle()[0]
        #expect(output == (0..<256).map { testSignal(0, $0) * 0.25 })
    }
}
