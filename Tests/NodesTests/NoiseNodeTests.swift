import Testing
import NodeKit
import Nodes
import SignalAnalysis

@Suite("NoiseNode")
struct NoiseNodeTests {
    private func noise(seed: Int? = nil, seconds: Double = 1) throws -> [Float] {
        let configuration = seed.map { NodeConfiguration(["seed": $0]) } ?? NodeConfiguration()
        return try NodeHarness(NoiseNode.nodeType, configuration: configuration, frames: 480)
            .renderFirstOutput(seconds: seconds)
    }

    @Test("white noise has the rms of a uniform distribution, amplitude over root three")
    func level() throws {
        let samples = try noise()
        let expected = Float(0.25 / 3.0.squareRoot())
        #expect(abs(SignalAnalysis.rms(samples) / expected - 1) < 0.03)
        #expect(SignalAnalysis.peak(samples) <= 0.25)
        #expect(SignalAnalysis.peak(samples) > 0.249)
        #expect(abs(SignalAnalysis.mean(samples)) < 0.005)
    }

    @Test("neighbouring samples are uncorrelated")
    func white() throws {
        let samples = try noise(seed: 7)
        #expect(abs(correlation(samples.dropLast(), samples.dropFirst())) < 0.02)
    }

    @Test("the same seed gives the same samples")
    func reproducible() throws {
        #expect(try noise(seed: 42) == noise(seed: 42))
        #expect(try noise() == noise(seed: 1))
    }

    @Test("different seeds give different, uncorrelated samples", arguments: [(1, 2), (0, 1), (2_147_483_647, 5)])
    func seedsDiffer(first: Int, second: Int) throws {
        let a = try noise(seed: first)
        let b = try noise(seed: second)
        #expect(a != b)
        #expect(abs(correlation(a[...], b[...])) < 0.02)
    }

    @Test("reset restarts the seed's sequence")
    func reset() throws {
        let harness = try NodeHarness(NoiseNode.nodeType, configuration: NodeConfiguration(["seed": 9]))
        let first = harness.cycle()[0]
        _ = harness.render(cycles: 3)
        harness.node.reset()
        #expect(harness.cycle()[0] == first)
    }

    @Test("an amplitude ramp bounds every sample by the ramp's value")
    func amplitudeRamp() throws {
        let harness = try NodeHarness(NoiseNode.nodeType, frames: 256)
        harness.rampParameter(0, from: 0.25, to: 1, over: 480)
        let samples = harness.render(cycles: 4)[0]
        let step: Float = 0.75 / 480
        for (frame, sample) in samples.enumerated() {
            let bound = frame < 480 ? 0.25 + step * Float(frame) : 1
            #expect(abs(sample) <= bound + 1e-6)
        }
        #expect(SignalAnalysis.peak(samples[480...]) > 0.9)
    }

    /// Pearson correlation of two equally long signals.
    private func correlation(_ a: ArraySlice<Float>, _ b: ArraySlice<Float>) -> Double {
        var (sumAB, sumAA, sumBB) = (0.0, 0.0, 0.0)
        for (x, y) in zip(a, b) {
            sumAB += Double(x) * Double(y)
            sumAA += Double(x) * Double(x)
            sumBB += Double(y) * Double(y)
        }
        return sumAB / (sumAA * sumBB).squareRoot()
    }
}
