import Testing

/// A node type that names an `outputGain` parameter (builtin:gain, builtin:mixer) gets the app's
/// policy gain folded into that parameter's ramp; every other node has its outputs scaled after
/// `process`. Both must give the same signal, steady, ramping, and with both gains moving.
@Suite("Policy gain folded into a node's output gain")
struct PolicyGainFoldTests {
    /// osc → pass → after (gain 0.5): the policy gain is set on `pass`, scaled after process.
    /// osc → folded (gain 0.5): the policy gain is set on `folded`, folded into its gain.
    /// osc → mix (mixer, gain 0.5): the same, folded into the mixer's gain.
    private static let graph = graphJSON(
        apps: """
            { "id": "osc", "plugin": "builtin:oscillator", "params": { "frequency": 997, "amplitude": 0.8 } },
            { "id": "pass", "plugin": "builtin:passthrough" },
            { "id": "after", "plugin": "builtin:gain", "params": { "gain": 0.5 } },
            { "id": "folded", "plugin": "builtin:gain", "params": { "gain": 0.5 } },
            { "id": "mix", "plugin": "builtin:mixer", "params": { "inputs": 1, "gain": 0.5 } }
            """,
        connections: """
            { "from": "osc:out", "to": "pass:in" }, { "from": "pass:out", "to": "after:in" },
            { "from": "osc:out", "to": "folded:in" }, { "from": "osc:out", "to": "mix:in_1" }
            """)

    private static let ports = ["after:out", "folded:out", "mix:out"]

    /// The largest difference between the unfolded path and each folded one.
    private func worst(_ outputs: [[Float]]) -> Float {
        zip(outputs[0], zip(outputs[1], outputs[2])).map { max(abs($0 - $1.0), abs($0 - $1.1)) }.max() ?? 0
    }

    private func setPolicy(_ harness: PlanHarness, _ gain: Float) throws {
        for app in ["pass", "folded", "mix"] { try #require(harness.plan.slot(for: app)).setPolicyGain(gain) }
    }

    @Test("a steady policy gain below 1")
    func steady() throws {
        let harness = try PlanHarness(Self.graph, blockSize: 128)
        for app in ["pass", "folded", "mix"] { try #require(harness.plan.slot(for: app)).startPolicyGain(at: 0.25) }
        let outputs = try harness.render(frames: 1_024, ports: Self.ports)
        #expect(worst(outputs) < 1e-6)
        // Not vacuous: the signal is there, at 0.8 × 0.5 × 0.25.
        #expect(abs((outputs[1].map(abs).max() ?? 0) - 0.1) < 1e-3)
    }

    @Test("a policy ramp over a steady gain, and both ramping at once", arguments: [false, true])
    func ramping(gainMovesToo: Bool) throws {
        let harness = try PlanHarness(Self.graph, blockSize: 64)
        var outputs = try harness.render(frames: 256, ports: Self.ports)
        try setPolicy(harness, 0.1)
        if gainMovesToo {
            for app in ["after", "folded", "mix"] { try #require(harness.plan.slot(for: app)).setParameter(0, to: 2) }
        }
        let ramp = try harness.render(frames: 1_024, ports: Self.ports)
        for index in outputs.indices { outputs[index] += ramp[index] }
        #expect(worst(outputs) < 1e-6)
        // The ramp happened: the last cycle is at the new level.
        let level: Float = 0.8 * (gainMovesToo ? 2 : 0.5) * 0.1
        #expect(abs((outputs[1].suffix(64).map(abs).max() ?? 0) - level) < 0.02 * level + 1e-4)
    }
}
