import Testing
import NodeKit
import Nodes
import SignalAnalysis

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("DelayNode")
struct DelayNodeTests {
    /// Parameter indices, in the order of the node type's parameters.
    private enum Parameter {
        static let beats = 0, feedback = 1, mix = 2, pingPong = 3
    }

    private static let sampleRate = 48_000.0

    /// A delay at `tempo` with only the wet signal in its outputs.
    private func delay(tempo: Double, beats: Float = 0.5, feedback: Float = 0, mix: Float = 1) throws -> NodeHarness {
        let harness = try NodeHarness(DelayNode.nodeType, frames: 256)
        harness.transport.tempo = tempo
        harness.setParameter(Parameter.beats, .constant(beats))
        harness.setParameter(Parameter.feedback, .constant(feedback))
        harness.setParameter(Parameter.mix, .constant(mix))
        return harness
    }

    /// The frame of the largest absolute sample.
    private func loudest(_ samples: some Collection<Float>) -> Int {
        var best = 0
        var largest: Float = -1
        for (index, sample) in samples.enumerated() where abs(sample) > largest {
            largest = abs(sample)
            best = index
        }
        return best
    }

    @Test("an impulse comes back after beats × 60 / tempo seconds, on both channels",
          arguments: [(120.0, 0.5 as Float), (90, 0.5), (90, 1), (120, 0.25), (137, 0.75)])
    func echoPosition(tempo: Double, beats: Float) throws {
        let harness = try delay(tempo: tempo, beats: beats)
        let impulse = 1_000
        harness.input = { _, frame in frame == impulse ? 1 : 0 }
        let expected = Double(beats) * 60 / tempo * Self.sampleRate
        let outputs = harness.render(cycles: Int(expected / 256) + 8)
        for output in outputs {
            let echo = loudest(output)
            #expect(abs(Double(echo - impulse) - expected) <= 1, "\(tempo) BPM, \(beats) beats")
            #expect(SignalAnalysis.isExactlySilent(output[..<(impulse + Int(expected) - 1)]))
        }
    }

    @Test("feedback repeats the echo, scaled by the feedback each time")
    func feedback() throws {
        let harness = try delay(tempo: 120, feedback: 0.5)
        harness.input = { _, frame in frame == 500 ? 1 : 0 }
        let output = harness.render(cycles: 200)[0]
        for repeat_ in 1...4 {
            let expected = Float(pow(0.5, Double(repeat_ - 1)))
            #expect(abs(output[500 + repeat_ * 12_000] - expected) < 1e-6, "repeat \(repeat_)")
        }
        #expect(SignalAnalysis.peak(output[(500 + 12_000 + 1)..<(500 + 24_000)]) == 0)
    }

    @Test("mix 0 outputs the input exactly, whatever the feedback")
    func dryOnly() throws {
        let harness = try delay(tempo: 120, feedback: 0.9, mix: 0)
        harness.input = testSignal
        let outputs = harness.render(cycles: 100)
        for (port, output) in outputs.enumerated() {
            #expect(output == (0..<output.count).map { testSignal(port, $0) })
        }
    }

    @Test("a tempo change moves the echo to the new beat length")
    func tempoChange() throws {
        let harness = try delay(tempo: 120)
        harness.input = { _, frame in frame == 2_000 || frame == 40_000 ? 1 : 0 }
        _ = harness.render(cycles: 100)
        harness.transport.tempo = 90
        let rest = harness.render(cycles: 150)[0]
        let start = Int(harness.sampleTime) - rest.count
        #expect(start + loudest(rest) == 40_000 + 16_000)
    }

    @Test("a tempo change crossfades the tap: no click in a sustained tone")
    func tempoChangeWithoutClick() throws {
        let harness = try delay(tempo: 120)
        harness.input = { _, frame in Float(0.5 * sin(2 * Double.pi * 440 * Double(frame) / 48_000)) }
        _ = harness.render(cycles: 60)
        harness.transport.tempo = 97
        let after = harness.render(cycles: 20)[0]
        let slope = Float(2 * Double.pi * 440 / 48_000 * 0.5)
        #expect(SignalAnalysis.maxAbsoluteStep(after) < slope + 1.0 / 480 + 1e-3)
    }

    @Test("ping-pong alternates the echoes between left and right")
    func pingPong() throws {
        let harness = try delay(tempo: 120, feedback: 0.5)
        harness.setParameter(Parameter.pingPong, .constant(1))
        harness.input = { _, frame in frame == 1_000 ? 1 : 0 }
        let outputs = harness.render(cycles: 200)
        let (left, right) = (outputs[0], outputs[1])
        // The mono sum (1 + 1) / 2 enters the left line; each echo crosses to the other side.
        #expect(abs(left[13_000] - 1) < 1e-6)
        #expect(right[13_000] == 0)
        #expect(abs(right[25_000] - 0.5) < 1e-6)
        #expect(left[25_000] == 0)
        #expect(abs(left[37_000] - 0.25) < 1e-6)
        #expect(right[37_000] == 0)
    }

    @Test("reset clears the delay lines")
    func reset() throws {
        let harness = try delay(tempo: 120)
        harness.input = { _, frame in frame == 100 ? 1 : 0 }
        _ = harness.render(cycles: 10)
        harness.node.reset()
        #expect(SignalAnalysis.isExactlySilent(harness.render(cycles: 60)[0]))
    }
}
