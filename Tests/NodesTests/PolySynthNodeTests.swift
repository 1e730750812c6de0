import Testing
import NodeKit
import Nodes
import SignalAnalysis

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("PolySynthNode")
struct PolySynthNodeTests {
    /// Parameter indices, in the order of the node type's parameters.
    private enum Parameter {
        static let attack = 0, decay = 1, sustain = 2, release = 3, gain = 4, waveform = 5
    }

    private static let sampleRate = 48_000.0
    /// The level of one voice at full velocity, at the default sustain and gain.
    private static let sustained: Float = 0.7 * 0.25

    private func synth(voices: Int = 8) throws -> NodeHarness {
        try NodeHarness(PolySynthNode.nodeType, configuration: NodeConfiguration(["voices": voices]), frames: 256)
    }

    private func frequency(_ note: Int) -> Double {
        440 * pow(2, Double(note - 69) / 12)
    }

    @Test("a note-on at frame k is exact silence before k and sounds from k at the note's frequency",
          arguments: [(69, 100), (60, 1_000), (81, 255), (45, 256)])
    func sampleAccurateNoteOn(note: Int, frame: Int) throws {
        let harness = try synth()
        harness.send(.noteOn(UInt8(note), velocity: 127), at: frame)
        let output = harness.renderFirstOutput(seconds: 1.2)
        #expect(SignalAnalysis.isExactlySilent(output[..<frame]))
        #expect(output[frame] != 0)
        #expect(SignalAnalysis.peak(output[frame..<(frame + 48)]) > 0)
        let steady = output[(frame + 12_000)..<(frame + 48_000)]
        let measured = try #require(SignalAnalysis.estimateFrequency(samples: steady, sampleRate: Self.sampleRate))
        #expect(abs(measured - frequency(note)) < 1)
        #expect(abs(SignalAnalysis.peak(steady) - Self.sustained) < 0.002)
    }

    @Test("velocity scales the level linearly")
    func velocity() throws {
        var levels: [Float] = []
        for velocity in [127, 64, 32] as [UInt8] {
            let harness = try synth()
            harness.send(.noteOn(69, velocity: velocity), at: 0)
            levels.append(SignalAnalysis.rms(harness.renderFirstOutput(seconds: 1)[24_000...]))
        }
        #expect(abs(levels[1] / levels[0] - 64 / 127) < 0.005)
        #expect(abs(levels[2] / levels[0] - 32 / 127) < 0.005)
    }

    @Test("a note-off releases over the release time to exact silence, and frees the voice")
    func release() throws {
        let harness = try synth()
        harness.setParameter(Parameter.release, .constant(0.1))
        let noteOff = 24_000
        let releaseFrames = 4_800
        harness.send(.noteOn(64, velocity: 100), at: 0)
        harness.send(.noteOff(64), at: noteOff)
        let output = harness.renderFirstOutput(seconds: 1)
        #expect(SignalAnalysis.peak(output[(noteOff - 480)..<noteOff]) > 0.1)
        // Half way through, the level has fallen to about half.
        let middle = SignalAnalysis.peak(output[(noteOff + releaseFrames / 2 - 240)..<(noteOff + releaseFrames / 2 + 240)])
        let before = SignalAnalysis.peak(output[(noteOff - 480)..<noteOff])
        #expect(abs(middle / before - 0.5) < 0.06)
        #expect(SignalAnalysis.peak(output[(noteOff + releaseFrames - 200)..<(noteOff + releaseFrames - 1)]) > 0)
        #expect(SignalAnalysis.isExactlySilent(output[(noteOff + releaseFrames)...]))
        let node = try #require(harness.node as? PolySynthNode)
        #expect(node.activeVoices == 0)
    }

    @Test("a note-on at velocity 0 acts as a note-off")
    func velocityZeroIsNoteOff() throws {
        let harness = try synth()
        harness.setParameter(Parameter.release, .constant(0.01))
        harness.send(.noteOn(64, velocity: 90), at: 0)
        harness.send(.noteOn(64, velocity: 0), at: 4_800)
        let output = harness.renderFirstOutput(seconds: 0.5)
        #expect(SignalAnalysis.isExactlySilent(output[(4_800 + 480)...]))
    }

    @Test("eight notes sound at once, each at its frequency and level")
    func chord() throws {
        let harness = try synth()
        let notes = [60, 62, 64, 65, 67, 69, 71, 72]
        for (offset, note) in notes.enumerated() {
            harness.send(.noteOn(UInt8(note), velocity: 127), at: offset * 10)
        }
        let output = harness.renderFirstOutput(seconds: 1.3)
        let window = output[12_000..<60_000]
        for note in notes {
            let level = SignalAnalysis.goertzelMagnitude(samples: window, frequency: frequency(note), sampleRate: Self.sampleRate)
            #expect(abs(level / Self.sustained - 1) < 0.05, "note \(note)")
        }
        let node = try #require(harness.node as? PolySynthNode)
        #expect(node.activeVoices == 8)
    }

    @Test("a ninth note steals the oldest voice")
    func stealing() throws {
        let harness = try synth()
        let notes = [60, 62, 64, 65, 67, 69, 71, 72]
        for (offset, note) in notes.enumerated() {
            harness.send(.noteOn(UInt8(note), velocity: 127), at: offset * 10)
        }
        harness.send(.noteOn(76, velocity: 127), at: 4_800)
        let output = harness.renderFirstOutput(seconds: 1.4)
        let window = output[15_000..<63_000]
        func level(_ note: Int) -> Float {
            SignalAnalysis.goertzelMagnitude(samples: window, frequency: frequency(note), sampleRate: Self.sampleRate)
        }
        #expect(level(60) < 0.005)
        #expect(abs(level(76) / Self.sustained - 1) < 0.05)
        for note in notes.dropFirst() {
            #expect(abs(level(note) / Self.sustained - 1) < 0.05, "note \(note)")
        }
        let node = try #require(harness.node as? PolySynthNode)
        #expect(node.activeVoices == 8)
        // The steal restarts the voice from its level, without a jump.
        #expect(SignalAnalysis.maxAbsoluteStep(output[4_700..<4_900]) < 0.1)
    }

    @Test("a releasing voice is stolen before a held one")
    func stealsReleasingFirst() throws {
        let harness = try synth(voices: 2)
        harness.send(.noteOn(60, velocity: 127), at: 0)
        harness.send(.noteOn(67, velocity: 127), at: 10)
        harness.send(.noteOff(67), at: 2_000)
        harness.send(.noteOn(72, velocity: 127), at: 2_100)
        let window = harness.renderFirstOutput(seconds: 1.4)[14_400..<62_400]
        #expect(abs(SignalAnalysis.goertzelMagnitude(samples: window, frequency: frequency(60), sampleRate: Self.sampleRate)
            / Self.sustained - 1) < 0.05)
        #expect(SignalAnalysis.goertzelMagnitude(samples: window, frequency: frequency(67), sampleRate: Self.sampleRate) < 0.005)
    }

    @Test("a repeated note retriggers its own voice")
    func retrigger() throws {
        let harness = try synth()
        harness.send(.noteOn(69, velocity: 127), at: 0)
        harness.send(.noteOn(69, velocity: 127), at: 1_000)
        _ = harness.render(cycles: 10)
        let node = try #require(harness.node as? PolySynthNode)
        #expect(node.activeVoices == 1)
    }

    @Test("the saw waveform plays the note's frequency without exceeding its level")
    func saw() throws {
        let harness = try synth()
        harness.setParameter(Parameter.waveform, .constant(1))
        harness.send(.noteOn(57, velocity: 127), at: 0)
        let steady = harness.renderFirstOutput(seconds: 1)[12_000..<48_000]
        let measured = try #require(SignalAnalysis.estimateFrequency(samples: steady, sampleRate: Self.sampleRate))
        #expect(abs(measured - 220) < 1)
        #expect(SignalAnalysis.peak(steady) <= Self.sustained * 1.1)
        #expect(SignalAnalysis.peak(steady) > Self.sustained * 0.9)
    }

    @Test("all notes off releases every voice; without notes the output is exact silence")
    func allNotesOff() throws {
        let harness = try synth()
        harness.setParameter(Parameter.release, .constant(0.01))
        #expect(SignalAnalysis.isExactlySilent(harness.render(cycles: 4)[0]))
        harness.send(.noteOn(60, velocity: 127), at: 1_100)
        harness.send(.noteOn(64, velocity: 127), at: 1_100)
        harness.send(MIDIEvent(frame: 0, status: 0xB0, data1: 123, data2: 0), at: 4_000)
        let output = harness.render(cycles: 40)[0]
        #expect(SignalAnalysis.isExactlySilent(output[(4_000 - 1_024 + 480)...]))
    }
}
