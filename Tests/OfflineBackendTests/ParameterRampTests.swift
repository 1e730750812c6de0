import SignalAnalysis
import Testing

/// A parameter change on the control side reaches the audio as a linear ramp, never a step.
@Suite("Parameter changes in a rendered plan")
struct ParameterRampTests {
    static let toneIntoGain = graphJSON(
        apps: """
            { "id": "osc", "plugin": "builtin:oscillator", "params": { "frequency": 440, "amplitude": 0.5 } },
            { "id": "g", "plugin": "builtin:gain", "params": { "gain": 1 } }
            """,
        connections: #"{ "from": "osc:out", "to": "g:in" }"#)

    /// The default ramp: 10 ms at 48 kHz.
    static let rampFrames = 480

    @Test("setting gain to 0 ramps linearly from 1 to 0 over exactly 480 frames", arguments: [256, 64, 100])
    func gainRamp(block: Int) throws {
        let harness = try PlanHarness(Self.toneIntoGain, blockSize: block)
        let before = try harness.render(frames: block * 5, ports: ["osc:out", "g:out"])
        #expect(before[1] == before[0], "gain 1 leaves the tone as it is")

        let slot = try #require(harness.plan.slot(for: "g"))
        slot.setParameter(0, to: 0)
        #expect(slot.parameterTarget(0) == 0)
        let after = try harness.render(frames: 2_000, ports: ["osc:out", "g:out"])
        let (input, output) = (after[0], after[1])

        var checked = 0
        var worst: Float = 0
        for frame in 0..<Self.rampFrames where abs(input[frame]) > 0.05 {
            let expected = 1 - Float(frame) / Float(Self.rampFrames)
            worst = max(worst, abs(output[frame] / input[frame] - expected))
            checked += 1
        }
        #expect(worst <= 1e-4, "largest deviation of out/in from 1 − k/480: \(worst)")
        #expect(checked > Self.rampFrames / 2, "most ramp frames have a measurable input")
        #expect(output[0] == input[0], "the ramp starts where the gain was: no step")
        let lastRamped = Self.rampFrames - 1
        #expect(input[lastRamped] == 0 || output[lastRamped] != 0, "the ramp is still moving at frame 479")
        #expect(SignalAnalysis.isExactlySilent(output[Self.rampFrames...]), "from frame 480 on the output is exactly 0")

        // No click: the output never steps more than the tone itself does.
        let toneStep = Float(2 * Double.pi * 440 / 48_000 * 0.5)
        #expect(SignalAnalysis.maxAbsoluteStep(before[1] + output) <= toneStep + 1e-5)
    }

    @Test("a parameter set to its current value leaves the output untouched")
    func unchangedTarget() throws {
        let harness = try PlanHarness(Self.toneIntoGain)
        _ = try harness.render(frames: 512, port: "g:out")
        try #require(harness.plan.slot(for: "g")).setParameter(0, to: 1)
        let after = try harness.render(frames: 1_024, ports: ["osc:out", "g:out"])
        #expect(after[1] == after[0])
    }

    @Test("a change mid-ramp ramps again from where the value is, over the full ramp length")
    func retargetMidRamp() throws {
        let harness = try PlanHarness(Self.toneIntoGain, blockSize: 64)
        let slot = try #require(harness.plan.slot(for: "g"))
        slot.setParameter(0, to: 0)
        _ = try harness.render(frames: 192, port: "g:out")  // 3 cycles: the gain is at 1 − 192/480
        slot.setParameter(0, to: 1)
        let after = try harness.render(frames: 1_024, ports: ["osc:out", "g:out"])
        let start = 1 - Float(192) / Float(Self.rampFrames)
        var worst: Float = 0
        for frame in 0..<Self.rampFrames where abs(after[0][frame]) > 0.05 {
            let expected = start + (1 - start) * Float(frame) / Float(Self.rampFrames)
            worst = max(worst, abs(after[1][frame] / after[0][frame] - expected))
        }
        #expect(worst <= 1e-4)
        #expect(after[1][Self.rampFrames...] == after[0][Self.rampFrames...], "back at exactly 1 after the ramp")
    }

    @Test("an oscillator's frequency change glides without a phase jump")
    func frequencyGlide() throws {
        let harness = try PlanHarness(Self.toneIntoGain, blockSize: 100)
        let before = try harness.render(frames: 1_000, port: "osc:out")
        try #require(harness.plan.slot(for: "osc")).setParameter(0, to: 880)
        let after = try harness.render(frames: 4_800, port: "osc:out")
        let fastestStep = Float(2 * Double.pi * 880 / 48_000 * 0.5)
        #expect(SignalAnalysis.maxAbsoluteStep(before + after) <= fastestStep + 1e-5)
        let settled = try #require(SignalAnalysis.estimateFrequency(samples: after[480...], sampleRate: 48_000))
        #expect(abs(settled - 880) < 0.5)
    }
}
