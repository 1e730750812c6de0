import SignalAnalysis
import Testing

/// How the renderer feeds each input: summed fan-in, untouched single connections, exact silence.
@Suite("Input mixing in a rendered plan")
struct InputMixingTests {
    static let twoOscillators = """
        { "id": "a", "plugin": "builtin:oscillator", "params": { "frequency": 440, "amplitude": 0.5 } },
        { "id": "b", "plugin": "builtin:oscillator", "params": { "frequency": 660, "amplitude": 0.8 } }
        """

    @Test("fan-in sums each connection scaled by its gain, sample by sample")
    func fanInSums() throws {
        let harness = try PlanHarness(graphJSON(
            apps: Self.twoOscillators + #", { "id": "p", "plugin": "builtin:passthrough" }"#,
            connections: """
                { "from": "a:out", "to": "p:in", "gain": 0.5 },
                { "from": "b:out", "to": "p:in", "gain": 0.25 }
                """))
        // 1000 frames of 256-frame cycles: the last cycle is partial.
        let rendered = try harness.render(frames: 1_000, ports: ["a:out", "b:out", "p:out"])
        let (a, b, p) = (rendered[0], rendered[1], rendered[2])
        var worst: Float = 0
        for frame in p.indices {
            worst = max(worst, abs(p[frame] - (0.5 * a[frame] + 0.25 * b[frame])))
        }
        #expect(worst <= 1e-6, "largest |p − (0.5·a + 0.25·b)|: \(worst)")
        #expect(SignalAnalysis.rms(p) > 0.1, "the sum is not silent")
    }

    @Test("a single connection of gain 1 passes its source through bit for bit",
          arguments: [nil, #"{ "from": "system:capture_1", "to": "p:in" }"#])
    func unityConnectionIsExact(outsideInput: String?) throws {
        // With the JACK connection the input is exposed to an outside port that is absent offline.
        let harness = try PlanHarness(graphJSON(
            apps: Self.twoOscillators + #", { "id": "p", "plugin": "builtin:passthrough" }"#,
            connections: #"{ "from": "a:out", "to": "p:in", "gain": 1 }"#,
            jack: outsideInput))
        let rendered = try harness.render(frames: 1_000, ports: ["a:out", "p:out"])
        #expect(rendered[1] == rendered[0])
        #expect(!SignalAnalysis.isExactlySilent(rendered[1]))
    }

    @Test("a passthrough with nothing connected outputs exactly 0.0 in every frame")
    func unconnectedInputIsSilent() throws {
        let harness = try PlanHarness(graphJSON(
            apps: Self.twoOscillators + #", { "id": "p", "plugin": "builtin:passthrough" }"#))
        let rendered = try harness.render(frames: 2_000, ports: ["a:out", "p:out"])
        #expect(SignalAnalysis.isExactlySilent(rendered[1]))
        #expect(!SignalAnalysis.isExactlySilent(rendered[0]), "the graph around it does render")
    }

    @Test("a mixer with in_2 unconnected outputs exactly in_1's signal")
    func mixerWithOneInput() throws {
        let harness = try PlanHarness(graphJSON(
            apps: Self.twoOscillators + #", { "id": "mix", "plugin": "builtin:mixer", "params": { "inputs": 2 } }"#,
            connections: #"{ "from": "a:out", "to": "mix:in_1" }"#))
        let rendered = try harness.render(frames: 1_000, ports: ["a:out", "mix:out"])
        #expect(rendered[1] == rendered[0])
    }

    @Test("a gain-scaled single connection is scaled exactly once")
    func scaledSingleConnection() throws {
        let harness = try PlanHarness(graphJSON(
            apps: Self.twoOscillators + #", { "id": "p", "plugin": "builtin:passthrough" }"#,
            connections: #"{ "from": "b:out", "to": "p:in", "gain": 0.5 }"#))
        let rendered = try harness.render(frames: 1_000, ports: ["b:out", "p:out"])
        #expect(rendered[1] == rendered[0].map { $0 * 0.5 })
    }

    @Test("an outside signal is added while connected, and every input reads its own sources again after")
    func outsideSignalComesAndGoes() throws {
        // p sums two scaled sources, q has one unity source, r none: one input of each kind.
        let harness = try PlanHarness(graphJSON(
            apps: Self.twoOscillators + """
                , { "id": "p", "plugin": "builtin:passthrough" }, { "id": "q", "plugin": "builtin:passthrough" },
                { "id": "r", "plugin": "builtin:passthrough" }
                """,
            connections: """
                { "from": "a:out", "to": "p:in", "gain": 0.5 }, { "from": "b:out", "to": "p:in", "gain": 0.25 },
                { "from": "a:out", "to": "q:in" }
                """), blockSize: 64)
        let ports = ["a:out", "b:out", "p:out", "q:out", "r:out"]
        func expected(_ cycle: [[Float]], outside: Float) -> [[Float]] {
            let (a, b) = (cycle[0], cycle[1])
            return [zip(a, b).map { 0.5 * $0 + 0.25 * $1 + outside }, a.map { $0 + outside }, a.map { _ in outside }]
        }
        func worst(_ cycle: [[Float]], outside: Float) -> Float {
            zip(cycle[2...], expected(cycle, outside: outside)).map { zip($0, $1).map { abs($0 - $1) }.max() ?? 0 }.max() ?? 0
        }
        let before = try harness.render(frames: 64, ports: ports)
        #expect(worst(before, outside: 0) <= 1e-6)

        var outside = [Float](repeating: 0.25, count: 64)
        try outside.withUnsafeMutableBufferPointer { buffer in
            for port in harness.plan.externalPorts.indices where harness.plan.externalPorts[port].direction == .input {
                if ["p", "q", "r"].contains(harness.plan.externalPorts[port].appID) {
                    harness.plan.externalInputs[port] = UnsafePointer(buffer.baseAddress)
                }
            }
            let heard = try harness.render(frames: 64, ports: ports)
            #expect(worst(heard, outside: 0.25) <= 1e-6, "the outside signal is heard")
            for port in harness.plan.externalInputs.indices { harness.plan.externalInputs[port] = nil }
            // Anything still reading the outside buffer would now read NaN.
            buffer.update(repeating: .nan)
        }
        for _ in 0..<3 {
            let after = try harness.render(frames: 64, ports: ports)
            #expect(worst(after, outside: 0) <= 1e-6, "quiet again")
        }
    }
}
