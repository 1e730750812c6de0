import AudioGraph
import RenderCore
import GraphFormat
import Nodes
import SignalAnalysis
import Testing

/// The renderer's side of the deadline guard: which steps fault, when, and what a faulted step plays.
@Suite("Deadline check")
struct DeadlineCheckTests {
    static let graph = """
        {"format": "iaa-graph/1", "name": "d", "apps": [
          {"id": "tone", "plugin": "builtin:oscillator", "params": {"frequency": 1000, "amplitude": 0.5}},
          {"id": "half", "plugin": "builtin:gain", "params": {"gain": 0.5}}],
         "connections": [{"from": "tone:out", "to": "half:in"}]}
        """

    func plan() throws -> RenderPlan {
        let graph = try #require(GraphFile.load(text: Self.graph, file: "d.json", registry: NodeRegistry(BuiltinNodes.types)).graph)
        let instances = NodeInstances(sampleRate: 48_000, maximumFrames: 64)
        return PlanCompiler.compile(graph, slots: try instances.slots(for: graph), sampleRate: 48_000, maximumFrames: 64, generation: 1)
    }

    /// Renders one cycle with every step over a 1 ns budget (every step is).
    func renderOverBudget(_ plan: RenderPlan, cycle: Int64) -> Int {
        Renderer.render(plan, RenderContext(frames: 64, sampleTime: cycle * 64), deadline: DeadlineCheck(budget: 1, cycle: cycle))
    }

    @Test("three consecutive cycles over budget fault a node; an effect is bypassed, a generator muted")
    func threeStrikes() throws {
        let plan = try plan()
        let tone = try #require(plan.slot(for: "tone")), half = try #require(plan.slot(for: "half"))
        #expect(renderOverBudget(plan, cycle: 0) == 0)
        #expect(renderOverBudget(plan, cycle: 1) == 0)
        #expect(!tone.isFaulted && !half.isFaulted)
        #expect(renderOverBudget(plan, cycle: 2) == 2)
        #expect(tone.fault == .deadline && half.fault == .deadline)
        #expect(!tone.canBypass && half.canBypass)
        // Faulted nodes are not timed into a second fault.
        #expect(renderOverBudget(plan, cycle: 3) == 0)
        let toneOut = try #require(plan.outputBuffer(app: "tone", port: "out"))
        #expect(SignalAnalysis.isExactlySilent(Array(UnsafeBufferPointer(start: toneOut, count: 64))))

        // With the generator re-enabled, the bypassed gain passes the tone through unhalved.
        tone.clearFault()
        Renderer.render(plan, RenderContext(frames: 64, sampleTime: 4 * 64))
        let halfOut = try #require(plan.outputBuffer(app: "half", port: "out"))
        let passed = Array(UnsafeBufferPointer(start: halfOut, count: 64))
        #expect(passed == Array(UnsafeBufferPointer(start: toneOut, count: 64)))
        #expect(SignalAnalysis.peak(passed) > 0.3)

        half.clearFault()
        Renderer.render(plan, RenderContext(frames: 64, sampleTime: 5 * 64))
        let halved = Array(UnsafeBufferPointer(start: halfOut, count: 64))
        let tonePeak = SignalAnalysis.peak(Array(UnsafeBufferPointer(start: toneOut, count: 64)))
        #expect(abs(SignalAnalysis.peak(halved) - tonePeak * 0.5) < 1e-6)
    }

    @Test("overruns in cycles that are not consecutive, or a step back under budget, never fault")
    func streakNeedsConsecutiveCycles() throws {
        let plan = try plan()
        for cycle in stride(from: Int64(10), to: 40, by: 2) { #expect(renderOverBudget(plan, cycle: cycle) == 0) }
        for cycle in Int64(100)..<130 {
            if cycle % 3 == 2 {
                // Under a generous budget: the streak starts over.
                Renderer.render(plan, RenderContext(frames: 64, sampleTime: cycle * 64),
                                deadline: DeadlineCheck(budget: 1_000_000_000, cycle: cycle))
            } else {
                #expect(renderOverBudget(plan, cycle: cycle) == 0)
            }
        }
        #expect(plan.slot(for: "half")?.isFaulted == false)
        #expect(Renderer.render(plan, RenderContext(frames: 64, sampleTime: 0), deadline: .off) == 0)
    }
}
