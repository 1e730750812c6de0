import Testing
import NodeKit
import Nodes
import SignalAnalysis

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("StepSequencerNode")
struct StepSequencerNodeTests {
    /// Parameter indices, in the order of the node type's parameters.
    private enum Parameter {
        static let note = 0, gate = 1, rate = 2, level = 3
    }

    private func sequencer(steps: Int = 8, rate: Float = 2, playing: Bool = true) throws -> NodeHarness {
        let harness = try NodeHarness(StepSequencerNode.nodeType, configuration: NodeConfiguration(["steps": steps]),
                                      frames: 256)
        harness.setParameter(Parameter.rate, .constant(rate))
        harness.transport.tempo = 120
        harness.transport.isPlaying = playing
        return harness
    }

    /// Frames where the signal becomes non-zero after silence (or at frame 0).
    private func onsets(_ samples: [Float]) -> [Int] {
        samples.indices.filter { samples[$0] != 0 && ($0 == 0 || samples[$0 - 1] == 0) }
    }

    @Test("the sequencer is silent while the transport is stopped")
    func silentWhenStopped() throws {
        let output = try sequencer(playing: false).renderFirstOutput(seconds: 1)
        #expect(SignalAnalysis.isExactlySilent(output))
    }

    @Test("while playing, each step starts exactly on the grid of rate steps per beat",
          arguments: [(1 as Float, 24_000), (2, 12_000), (4, 6_000)])
    func onsetsOnTheGrid(rate: Float, spacing: Int) throws {
        let output = try sequencer(rate: rate).renderFirstOutput(seconds: 2)
        let found = onsets(output)
        #expect(found == Array(stride(from: 0, to: output.count, by: spacing)))
    }

    @Test("each step plays the base note plus the pattern's interval")
    func pitches() throws {
        let harness = try sequencer()
        let output = harness.renderFirstOutput(seconds: 2.5)
        for step in 0..<10 {
            let start = step * 12_000
            let note = 57 + StepSequencerNode.pattern[step % 8]
            let expected = 440 * pow(2, Double(note - 69) / 12)
            let sounding = output[(start + 480)..<(start + 5_760)]
            let measured = try #require(SignalAnalysis.estimateFrequency(samples: sounding, sampleRate: 48_000))
            #expect(abs(measured - expected) < 1, "step \(step)")
        }
    }

    @Test("gate sets the fraction of each step that sounds")
    func gate() throws {
        let harness = try sequencer()
        harness.setParameter(Parameter.gate, .constant(0.25))
        let output = harness.renderFirstOutput(seconds: 1)
        #expect(SignalAnalysis.peak(output[2_900..<3_000]) > 0)
        // The 3 ms release after a quarter of the step, then silence until the next step.
        #expect(SignalAnalysis.isExactlySilent(output[(3_000 + 145)..<12_000]))
    }

    @Test("a transport jump lands on the step under the new beat")
    func followsJumps() throws {
        let harness = try sequencer()
        _ = harness.render(cycles: 50)
        harness.locate(beat: 10.1)
        let output = harness.render(cycles: 100)[0]
        // Beat 10.1 at rate 2 is step 20 (index 4: +10 semitones), a fifth of the way in, so
        // its gate is open until step 20.5 (3,600 frames); step 21 starts at beat 10.5.
        let measured = try #require(SignalAnalysis.estimateFrequency(samples: output[240..<3_400], sampleRate: 48_000))
        #expect(abs(measured - 440 * pow(2, Double(57 + 10 - 69) / 12)) < 1)
        #expect(SignalAnalysis.isExactlySilent(output[(3_600 + 150)..<9_600]))
        #expect(Array(onsets(output).prefix(2)) == [0, 9_600])
    }

    @Test("stopping releases to exact silence within a few milliseconds; starting resumes on the grid")
    func stopAndStart() throws {
        let harness = try sequencer()
        harness.setParameter(Parameter.gate, .constant(1))
        _ = harness.render(cycles: 10)
        harness.transport.isPlaying = false
        let stopped = harness.render(cycles: 10)[0]
        #expect(SignalAnalysis.peak(stopped[..<100]) > 0)
        #expect(SignalAnalysis.isExactlySilent(stopped[150...]))
        harness.locate(beat: 0)
        harness.transport.isPlaying = true
        let resumed = harness.render(cycles: 100)[0]
        #expect(resumed[0] != 0)
    }

    @Test("the pattern repeats every `steps` steps", arguments: [1, 3, 16])
    func repeats(steps: Int) throws {
        let harness = try sequencer(steps: steps, rate: 4)
        let output = harness.renderFirstOutput(seconds: 3)
        let first = try #require(SignalAnalysis.estimateFrequency(samples: output[240..<2_800], sampleRate: 48_000))
        let again = steps * 6_000
        let repeated = try #require(SignalAnalysis.estimateFrequency(samples: output[(again + 240)..<(again + 2_800)],
                                                                     sampleRate: 48_000))
        #expect(abs(first - repeated) < 1)
    }
}
