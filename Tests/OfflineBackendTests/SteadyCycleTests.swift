import RenderCore
import CKernels
import NodeKit
import Testing

/// A settled built-in node runs by its steady cycle, a C call the renderer makes itself
/// (`SteadyCycleNode`). It must render exactly what the node's own `process` renders, and be taken
/// only while the app is settled.
@Suite("Steady cycles")
struct SteadyCycleTests {
    /// Every built-in node with a steady cycle, fed by an oscillator (and a second one for the mixer).
    private static let graph = graphJSON(
        apps: """
            { "id": "osc", "plugin": "builtin:oscillator", "params": { "frequency": 997, "amplitude": 0.8 } },
            { "id": "osc2", "plugin": "builtin:oscillator", "params": { "frequency": 3001, "amplitude": 0.3 } },
            { "id": "g", "plugin": "builtin:gain", "params": { "gain": 0.5 } },
            { "id": "lp", "plugin": "builtin:lowpass", "params": { "cutoff": 2000 } },
            { "id": "mix", "plugin": "builtin:mixer", "params": { "inputs": 2, "gain": 0.7 } },
            { "id": "f", "plugin": "builtin:filter", "params": { "cutoff": 1500, "resonance": 0.5, "mode": 2 } }
            """,
        connections: """
            { "from": "osc:out", "to": "g:in" }, { "from": "g:out", "to": "lp:in" },
            { "from": "lp:out", "to": "mix:in_1" }, { "from": "osc2:out", "to": "mix:in_2" },
            { "from": "mix:out", "to": "f:in" }
            """)
    private static let ports = ["osc:out", "osc2:out", "g:out", "lp:out", "mix:out", "f:out"]

    /// Renders the same changes through `harness`: settled stretches in cycles of several lengths
    /// (1, 13, 64 frames), a parameter ramp on every node, a duck and its release, a NaN from outside.
    private func script(_ harness: PlanHarness) throws -> [[Float]] {
        var rendered = Array(repeating: [Float](), count: Self.ports.count)
        func take(_ frames: Int, block: Int? = nil) throws {
            let cycle = try harness.render(frames: frames, ports: Self.ports, block: block)
            for index in rendered.indices { rendered[index] += cycle[index] }
        }
        try take(640)
        try take(13 * 20, block: 13)
        try take(30, block: 1)
        for (app, parameter, value) in [("osc", 0, Float(440)), ("osc", 1, 0.2), ("osc2", 0, 100), ("g", 0, 2),
                                        ("lp", 0, 500), ("mix", 0, 1.5), ("f", 0, 300), ("f", 1, 0.9), ("f", 2, 0)] {
            try #require(harness.plan.slot(for: app)).setParameter(parameter, to: value)
            try take(64)
        }
        try take(4800)
        try #require(harness.plan.slot(for: "lp")).setPolicyGain(0.25)
        try take(4800)
        try #require(harness.plan.slot(for: "lp")).setPolicyGain(1)
        try take(4800)
        let index = try #require(harness.plan.externalPorts.firstIndex {
            $0.appID == "g" && $0.portName == "in" && $0.direction == .input
        })
        var outside = [Float](repeating: 0, count: 64)
        outside[5] = .nan
        try outside.withUnsafeBufferPointer { bad in
            harness.plan.externalInputs[index] = bad.baseAddress
            try take(64)
            harness.plan.externalInputs[index] = nil
        }
        try take(640)
        return rendered
    }

    @Test("settled nodes render by their steady cycles exactly what their process renders")
    func sameAsProcess() throws {
        let steady = try PlanHarness(Self.graph, blockSize: 64)
        let processOnly = try PlanHarness(Self.graph, blockSize: 64) { app in
            ProcessOnly(try app.type.makeNode(app.configuration))
        }
        for app in ["osc", "osc2", "g", "lp", "mix", "f"] {
            let node = try #require(steady.plan.slot(for: app)).anyNode
            #expect(node is any SteadyCycleNode, "\(app) has a steady cycle, so this test compares the two paths")
        }
        let byCycle = try script(steady)
        let byProcess = try script(processOnly)
        for (index, port) in Self.ports.enumerated() {
            let same = byCycle[index].elementsEqual(byProcess[index]) { $0.bitPattern == $1.bitPattern }
            #expect(same, "\(port) differs")
        }
        #expect(try #require(steady.plan.slot(for: "g")).fault == .nonFinite, "the outside NaN muted g")
        #expect(try #require(processOnly.plan.slot(for: "g")).fault == .nonFinite)
    }

    @Test("the steady cycle runs only while the app is settled; every change goes through process")
    func onlyWhileSettled() throws {
        var made: [CountingNode] = []
        let harness = try PlanHarness(graphJSON(apps: """
            { "id": "n", "plugin": "builtin:gain" }
            """), blockSize: 64) { _ in
            let node = CountingNode()
            made.append(node)
            return node
        }
        let node = try #require(made.first)
        let slot = try #require(harness.plan.slot(for: "n"))
        _ = try harness.render(frames: 64 * 5, port: "n:out")
        #expect(node.processCalls == 1 && node.steadyCalls == 4, "the first cycle settles, then steady cycles")

        slot.setParameter(0, to: 1)  // a change to the value it has: no ramp, but the cycle must look
        _ = try harness.render(frames: 64 * 3, port: "n:out")
        #expect(node.processCalls == 2 && node.steadyCalls == 6)

        slot.setPolicyGain(0.5)  // a duck: process (its gain folded in) until it is back at 1
        _ = try harness.render(frames: 48_000, port: "n:out")
        let ducked = node.processCalls
        #expect(node.steadyCalls == 6, "no steady cycle under a gain other than 1")
        slot.setPolicyGain(1)
        _ = try harness.render(frames: 48_000, port: "n:out")
        #expect(node.processCalls > ducked && node.steadyCalls > 6, "settled again at unity")

        node.failNext = true
        let steadyBefore = node.steadyCalls
        let output = try harness.render(frames: 64, port: "n:out")
        #expect(node.steadyCalls == steadyBefore + 1)
        #expect(slot.fault == .nonFinite, "a steady cycle that reports NaN faults the app")
        #expect(output.allSatisfy { $0 == 0 }, "and its outputs are silenced in that cycle")
        let calls = (node.processCalls, node.steadyCalls)
        _ = try harness.render(frames: 640, port: "n:out")
        #expect(node.processCalls == calls.0 && node.steadyCalls == calls.1, "a muted app runs neither")
    }
}

/// A node's `process` alone: hides the node's steady cycle, so its slot always calls `process`.
private final class ProcessOnly: AudioNode {
    let inner: any AudioNode
    init(_ inner: any AudioNode) { self.inner = inner }
    func prepare(sampleRate: Double, maximumFrames: Int) { inner.prepare(sampleRate: sampleRate, maximumFrames: maximumFrames) }
    func process(_ context: ProcessContext) { inner.process(context) }
    func reset() { inner.reset() }
}

/// Counts its two paths: `process` and the steady cycle each copy the input and count a call
/// (the steady cycle in its C state, as a kernel would keep it); `failNext` makes the next steady
/// cycle report a non-finite sample.
private final class CountingNode: SteadyCycleNode {
    struct State {
        var steadyCalls = 0
        var failNext = false
    }
    let state: UnsafeMutablePointer<State>
    var processCalls = 0
    var steadyCalls: Int { state.pointee.steadyCalls }
    var failNext: Bool {
        get { state.pointee.failNext }
        set { state.pointee.failNext = newValue }
    }

    init() {
        state = .allocate(capacity: 1)
        state.initialize(to: State())
    }

    deinit { state.deallocate() }

    var steadyCycle: SteadyCycle {
        SteadyCycle(function: { state, inputs, outputs, frames in
            let counts = state.assumingMemoryBound(to: State.self)
            counts.pointee.steadyCalls += 1
            outputs[0].update(from: inputs[0], count: frames)
            guard counts.pointee.failNext else { return 0 }
            counts.pointee.failNext = false
            return Float.nan.bitPattern
        }, state: UnsafeMutableRawPointer(state))
    }

    func process(_ context: ProcessContext) {
        processCalls += 1
        guard let (input, output) = context.monoEffectBuffers() else { return }
        output.update(from: input, count: context.frames)
    }
}
