import SignalAnalysis
import Testing

/// Plans render producers before consumers, and recompiling keeps the nodes that did not change.
@Suite("Plan order and node reuse")
struct PlanOrderAndReuseTests {
    @Test("apps declared consumer-first still render the producer first, with no one-cycle delay")
    func producerRendersFirst() throws {
        let harness = try PlanHarness(graphJSON(
            apps: """
                { "id": "p", "plugin": "builtin:passthrough" },
                { "id": "osc", "plugin": "builtin:oscillator", "params": { "frequency": 440, "amplitude": 0.5 } }
                """,
            connections: #"{ "from": "osc:out", "to": "p:in" }"#))
        #expect(harness.graph.order == [1, 0])
        #expect(harness.plan.stepCount == 2)
        // The very first cycle already carries the tone: a delay would make it silent.
        let first = try harness.render(frames: 256, ports: ["osc:out", "p:out"])
        #expect(!SignalAnalysis.isExactlySilent(first[1]))
        #expect(first[1] == first[0])
        let later = try harness.render(frames: 2_000, ports: ["osc:out", "p:out"])
        #expect(later[1] == later[0])
    }

    @Test("a chain declared in reverse renders end to end in the same cycle")
    func reversedChain() throws {
        let harness = try PlanHarness(graphJSON(
            apps: """
                { "id": "c", "plugin": "builtin:passthrough" },
                { "id": "b", "plugin": "builtin:gain", "params": { "gain": 0.5 } },
                { "id": "a", "plugin": "builtin:oscillator" }
                """,
            connections: #"{ "from": "b:out", "to": "c:in" }, { "from": "a:out", "to": "b:in" }"#))
        let rendered = try harness.render(frames: 512, ports: ["a:out", "c:out"])
        #expect(rendered[1] == rendered[0].map { $0 * 0.5 })
    }

    /// An oscillator feeding in_1 of a mixer with `mixerInputs` inputs.
    static func oscillatorInto(mixerInputs: Int, amplitude: Double = 0.5) -> String {
        graphJSON(
            apps: """
                { "id": "osc", "plugin": "builtin:oscillator", "params": { "frequency": 440, "amplitude": \(amplitude) } },
                { "id": "mix", "plugin": "builtin:mixer", "params": { "inputs": \(mixerInputs) } }
                """,
            connections: #"{ "from": "osc:out", "to": "mix:in_1" }"#)
    }

    @Test("recompiling keeps the same slot for an unchanged app and its phase continues")
    func unchangedAppIsReused() throws {
        let harness = try PlanHarness(Self.oscillatorInto(mixerInputs: 2))
        let firstPlan = harness.plan
        let firstOscillator = try #require(firstPlan.slot(for: "osc"))
        let firstMixer = try #require(firstPlan.slot(for: "mix"))
        let before = try harness.render(frames: 1_000, port: "osc:out")

        try harness.replace(with: Self.oscillatorInto(mixerInputs: 3))
        #expect(harness.plan !== firstPlan)
        #expect(harness.plan.generation == firstPlan.generation + 1)
        let oscillator = try #require(harness.plan.slot(for: "osc"))
        let mixer = try #require(harness.plan.slot(for: "mix"))
        #expect(oscillator === firstOscillator)
        #expect(mixer !== firstMixer, "a changed configuration makes a new node")

        let after = try harness.render(frames: 1_000, ports: ["osc:out", "mix:out"])
        let ideal = 0.5 * referenceSine(cycles: Double(before.count) * 440 / 48_000)
        #expect(abs(Double(after[0][0]) - ideal) < 1e-5, "the first new sample continues the sine")
        let toneStep = Float(2 * Double.pi * 440 / 48_000 * 0.5)
        #expect(SignalAnalysis.maxAbsoluteStep(before + after[0]) <= toneStep + 1e-5)
        #expect(after[1] == after[0], "the new mixer is wired like the old one")
    }

    @Test("recompiling the same graph reuses every slot")
    func sameGraphReusesAll() throws {
        let harness = try PlanHarness(Self.oscillatorInto(mixerInputs: 2))
        let first = harness.plan
        try harness.replace(with: Self.oscillatorInto(mixerInputs: 2))
        for app in ["osc", "mix"] {
            let old = try #require(first.slot(for: app))
            let new = try #require(harness.plan.slot(for: app))
            #expect(new === old)
        }
    }

    @Test("a reused slot ramps to the new graph's parameter values")
    func reusedSlotRampsToNewValues() throws {
        let harness = try PlanHarness(Self.oscillatorInto(mixerInputs: 2))
        _ = try harness.render(frames: 512, port: "osc:out")
        try harness.replace(with: Self.oscillatorInto(mixerInputs: 2, amplitude: 0.25))
        let slot = try #require(harness.plan.slot(for: "osc"))
        #expect(slot.parameterTarget(1) == 0.25)
        let after = try harness.render(frames: 4_800, port: "osc:out")
        let toneStep = Float(2 * Double.pi * 440 / 48_000 * 0.5)
        #expect(SignalAnalysis.maxAbsoluteStep(after) <= toneStep + 1e-5)
        #expect(abs(SignalAnalysis.peak(after[2_400...]) - 0.25) < 0.001)
    }
}
