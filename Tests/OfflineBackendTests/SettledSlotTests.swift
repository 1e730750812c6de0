import NodeKit
import SignalAnalysis
import Testing

/// A slot with nothing in motion takes a short path each cycle (no policy gain, ramp or fault
/// checks) until the control side changes something. Every change must still reach the node in
/// the next cycle, and the short path must still mute a node that writes NaN.
@Suite("Settled slots")
struct SettledSlotTests {
    /// osc → g (gain 0.5), osc → p (passthrough), osc → lp (lowpass), osc → mix (mixer).
    private static let graph = graphJSON(
        apps: """
            { "id": "osc", "plugin": "builtin:oscillator", "params": { "frequency": 997, "amplitude": 0.8 } },
            { "id": "g", "plugin": "builtin:gain", "params": { "gain": 0.5 } },
            { "id": "p", "plugin": "builtin:passthrough" },
            { "id": "lp", "plugin": "builtin:lowpass" },
            { "id": "mix", "plugin": "builtin:mixer", "params": { "inputs": 1 } }
            """,
        connections: """
            { "from": "osc:out", "to": "g:in" }, { "from": "osc:out", "to": "p:in" },
            { "from": "osc:out", "to": "lp:in" }, { "from": "osc:out", "to": "mix:in_1" }
            """)

    /// The ratio of `output` to `input` at the last frame where the input is not near zero.
    private func lastRatio(_ output: [Float], _ input: [Float]) -> Float {
        let frame = input.indices.last { abs(input[$0]) > 0.2 }!
        return output[frame] / input[frame]
    }

    /// The largest |output − factor·input|.
    private func worst(_ output: [Float], _ input: [Float], _ factor: Float) -> Float {
        zip(output, input).map { abs($0 - factor * $1) }.max() ?? 0
    }

    @Test("a parameter change reaches a settled node in the next cycle and settles at its target")
    func parameterChange() throws {
        let harness = try PlanHarness(Self.graph, blockSize: 64)
        var cycle = try harness.render(frames: 640, ports: ["osc:out", "g:out"])
        #expect(worst(cycle[1], cycle[0], 0.5) == 0, "settled at 0.5 before the change")
        try #require(harness.plan.slot(for: "g")).setParameter(0, to: 2)
        cycle = try harness.render(frames: 64, ports: ["osc:out", "g:out"])
        #expect(lastRatio(cycle[1], cycle[0]) > 0.55, "the ramp towards 2 starts in the next cycle")
        _ = try harness.render(frames: 48_000, ports: ["g:out"])
        cycle = try harness.render(frames: 640, ports: ["osc:out", "g:out"])
        #expect(worst(cycle[1], cycle[0], 2) < 1e-6, "settled again at 2")
    }

    @Test("the policy gain, suspension and resumption reach a settled node in the next cycle")
    func policyGain() throws {
        let harness = try PlanHarness(Self.graph, blockSize: 64)
        let slot = try #require(harness.plan.slot(for: "p"))
        var cycle = try harness.render(frames: 640, ports: ["osc:out", "p:out"])
        var same = cycle[1] == cycle[0]
        #expect(same, "unity gain, bit for bit")
        slot.setPolicyGain(0.25)
        cycle = try harness.render(frames: 64, ports: ["osc:out", "p:out"])
        #expect(lastRatio(cycle[1], cycle[0]) < 0.99, "the duck starts in the next cycle")
        _ = try harness.render(frames: 48_000, ports: ["p:out"])
        cycle = try harness.render(frames: 640, ports: ["osc:out", "p:out"])
        #expect(worst(cycle[1], cycle[0], 0.25) < 1e-6, "settled at 0.25")

        slot.setPolicyGain(0)
        slot.setSuspended(true)
        _ = try harness.render(frames: 48_000, ports: ["p:out"])
        cycle = try harness.render(frames: 640, ports: ["osc:out", "p:out"])
        let silent = SignalAnalysis.isExactlySilent(cycle[1])
        #expect(silent, "suspended after fading out")

        slot.setSuspended(false)
        slot.setPolicyGain(1)
        cycle = try harness.render(frames: 64, ports: ["osc:out", "p:out"])
        let resumed = !SignalAnalysis.isExactlySilent(cycle[1])
        #expect(resumed, "resumed in the next cycle")
        _ = try harness.render(frames: 48_000, ports: ["p:out"])
        cycle = try harness.render(frames: 640, ports: ["osc:out", "p:out"])
        same = cycle[1] == cycle[0]
        #expect(same, "back at unity, bit for bit")
    }

    @Test("a settled built-in node that checks its own output is muted for an outside NaN",
          arguments: ["g", "lp", "mix"])
    func outsideNaN(app: String) throws {
        let harness = try PlanHarness(Self.graph, blockSize: 64)
        let port = app == "mix" ? "in_1" : "in"
        let index = try #require(harness.plan.externalPorts.firstIndex {
            $0.appID == app && $0.portName == port && $0.direction == .input
        })
        let output = "\(app):out"
        var cycle = try harness.render(frames: 640, port: output)
        let sounding = cycle.allSatisfy(\.isFinite) && !SignalAnalysis.isExactlySilent(cycle)
        #expect(sounding)
        let slot = try #require(harness.plan.slot(for: app))
        #expect(!slot.isFaulted)

        // One bad sample from outside, in the middle of a cycle.
        var outside = [Float](repeating: 0, count: 64)
        outside[37] = .nan
        try outside.withUnsafeBufferPointer { bad in
            harness.plan.externalInputs[index] = bad.baseAddress
            cycle = try harness.render(frames: 64, port: output)
            harness.plan.externalInputs[index] = nil
        }
        var silent = SignalAnalysis.isExactlySilent(cycle)
        #expect(silent, "muted in that very cycle")
        #expect(slot.fault == .nonFinite)
        cycle = try harness.render(frames: 640, port: output)
        silent = SignalAnalysis.isExactlySilent(cycle)
        #expect(silent, "stays muted")
        slot.clearFault()
        cycle = try harness.render(frames: 640, port: output)
        let again = cycle.allSatisfy(\.isFinite) && !SignalAnalysis.isExactlySilent(cycle)
        #expect(again, "runs again when enabled")
    }
}
