@testable import AudioGraph
@testable import RenderCore
import Engine
import GraphFormat
import NodeKit
import OfflineBackend
import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Cycles split across threads (docs/parallel.md): the same output, sample for sample, whatever
/// the number of threads and whatever order the apps finish in, and the split decided from what
/// the steps cost.
@Suite("Parallel rendering")
struct ParallelRenderTests {
    /// `voices` oscillators, each through a filter and a delay into one mixer, and a chain of
    /// filters after it: wide, then narrow. A noise source and a feedback-free host mixer
    /// (its inputs summed in a fixed order) make it the kind of graph the engine runs.
    static func wideGraph(voices: Int) throws -> Graph {
        var apps: [String] = [], connections: [String] = []
        for voice in 1...voices {
            apps.append(#"{ "id": "osc\#(voice)", "plugin": "builtin:oscillator", "params": { "frequency": \#(110 * voice), "amplitude": 0.05 } }"#)
            apps.append(#"{ "id": "lp\#(voice)", "plugin": "builtin:filter", "params": { "cutoff": \#(400 + 90 * voice) } }"#)
            apps.append(#"{ "id": "echo\#(voice)", "plugin": "builtin:delay" }"#)
            connections.append(#"{ "from": "osc\#(voice):out", "to": "lp\#(voice):in" }"#)
            connections.append(#"{ "from": "lp\#(voice):out", "to": "echo\#(voice):in_L" }"#)
            connections.append(#"{ "from": "echo\#(voice):out_L", "to": "mix:in_\#(voice)", "gain": 0.\#(voice % 9 + 1) }"#)
            connections.append(#"{ "from": "osc\#(voice):out", "to": "mix:in_\#(voice)" }"#)
        }
        apps.append(#"{ "id": "mix", "plugin": "builtin:mixer", "params": { "inputs": \#(voices) } }"#)
        apps.append(#"{ "id": "noise", "plugin": "builtin:noise", "params": { "amplitude": 0.01 } }"#)
        apps.append(#"{ "id": "tail1", "plugin": "builtin:filter" }"#)
        apps.append(#"{ "id": "tail2", "plugin": "builtin:gain" }"#)
        connections.append(#"{ "from": "mix:out", "to": "tail1:in" }"#)
        connections.append(#"{ "from": "noise:out", "to": "tail1:in" }"#)
        connections.append(#"{ "from": "tail1:out", "to": "tail2:in" }"#)
        let text = """
            { "format": "iaa-graph/1", "name": "wide",
              "apps": [ \(apps.joined(separator: ",\n")) ],
              "connections": [ \(connections.joined(separator: ",\n")) ] }
            """
        let loaded = GraphFile.load(text: text, file: "wide.json", registry: GraphLoading.registry)
        return try #require(loaded.graph, "\(loaded.diagnostics.map(\.message))")
    }

    /// Renders `cycles` cycles of `graph` on `threads` threads, every cycle split (or none with
    /// one thread), and returns `tail2:out` and `mix:out` one after the other. `jitter` makes the
    /// filters of odd voices sleep a little in random amounts, so that apps finish in another
    /// order every cycle.
    static func render(_ graph: Graph, threads: Int, cycles: Int = 200, jitter: Bool = false) throws -> [Float] {
        let backend = try OfflineBackend(sampleRate: 48_000, blockSize: 128, threads: threads, splitting: .always)
        let builder = PlanBuilder(sampleRate: 48_000, maximumFrames: 128)
        if jitter {
            builder.instances.nodeFactory = { app in
                let node = try app.type.makeNode(app.configuration)
                return app.id.hasPrefix("lp") && (Int(app.id.dropFirst(2)) ?? 0) % 2 == 1 ? Jittery(node) : node
            }
        }
        let plan = try builder.plan(for: graph, fresh: true)
        backend.install(plan)
        var rendered: [Float] = []
        for _ in 0..<cycles {
            let plan = try #require(backend.renderCycle(frames: 128))
            #expect(threads == 1 || plan.isSplit, "the cycle was split")
            for port in [("tail2", "out"), ("mix", "out")] {
                let buffer = try #require(plan.outputBuffer(app: port.0, port: port.1))
                rendered.append(contentsOf: UnsafeBufferPointer(start: buffer, count: 128))
            }
        }
        // The workers took their share of the tickets.
        #expect(backend.workerSteps.count == threads - 1)
        #expect(backend.workerSteps.allSatisfy { $0 > 0 }, "steps run by each worker: \(backend.workerSteps)")
        return rendered
    }

    @Test("1, 2 and 4 threads render the same samples, bit for bit", arguments: [2, 4])
    func sameOutput(threads: Int) throws {
        let graph = try Self.wideGraph(voices: 12)
        let one = try Self.render(graph, threads: 1)
        let many = try Self.render(graph, threads: threads)
        #expect(one.contains { $0 != 0 }, "the graph makes sound")
        #expect(many.count == one.count)
        let first = zip(one, many).enumerated().first { $0.element.0.bitPattern != $0.element.1.bitPattern }
        #expect(first == nil, "first difference at sample \(first?.offset ?? -1)")
    }

    @Test("apps finishing in another order every cycle change nothing")
    func anyOrder() throws {
        let graph = try Self.wideGraph(voices: 8)
        let one = try Self.render(graph, threads: 1, cycles: 60)
        let shuffled = try Self.render(graph, threads: 3, cycles: 60, jitter: true)
        #expect(one == shuffled)
    }

    @Test("the work and the critical path of a plan, and when a split pays")
    func decision() throws {
        // Three costs: 10 µs, two 100 µs steps side by side, then 10 µs after both.
        let graph = try #require(GraphFile.load(text: """
            { "format": "iaa-graph/1", "name": "diamond",
              "apps": [ { "id": "a", "plugin": "builtin:oscillator" }, { "id": "b", "plugin": "builtin:gain" },
                        { "id": "c", "plugin": "builtin:gain" }, { "id": "d", "plugin": "builtin:mixer", "params": { "inputs": 2 } } ],
              "connections": [ { "from": "a:out", "to": "b:in" }, { "from": "a:out", "to": "c:in" },
                               { "from": "b:out", "to": "d:in_1" }, { "from": "c:out", "to": "d:in_2" } ] }
            """, file: "diamond.json", registry: GraphLoading.registry).graph)
        let plan = try PlanBuilder(sampleRate: 48_000, maximumFrames: 64).plan(for: graph)
        let costs: [String: Double] = ["a": 10_000, "b": 100_000, "c": 100_000, "d": 10_000]
        let work = plan.schedule.work { step in plan.steps[step].slot._withUnsafeGuaranteedRef { costs[$0.appID] ?? 0 } }
        #expect(work.total == 220_000)
        #expect(work.critical == 120_000)
        // Two threads bring 220 µs down to 120: a saving of 100 µs.
        #expect(StepSchedule.pays(total: 220_000, critical: 120_000, threads: 2, periodNanoseconds: nil, splitting: false))
        #expect(!StepSchedule.pays(total: 220_000, critical: 120_000, threads: 1, periodNanoseconds: nil, splitting: false))
        // Live at 64 frames (1333 µs): 220 µs is under a quarter of the period, so one thread
        // meets the deadline as well; once split, the split holds down to a sixth (222 µs).
        #expect(!StepSchedule.pays(total: 220_000, critical: 120_000, threads: 2, periodNanoseconds: 1_333_333, splitting: false))
        #expect(!StepSchedule.pays(total: 220_000, critical: 120_000, threads: 2, periodNanoseconds: 1_333_333, splitting: true))
        #expect(StepSchedule.pays(total: 400_000, critical: 210_000, threads: 2, periodNanoseconds: 1_333_333, splitting: false))
        // A chain saves nothing, however heavy.
        #expect(!StepSchedule.pays(total: 900_000, critical: 900_000, threads: 4, periodNanoseconds: nil, splitting: false))
    }

    /// Times the system took this thread off its CPU against its will so far.
    static func involuntarySwitches() -> Int {
        let status = (try? String(contentsOfFile: "/proc/thread-self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("nonvoluntary_ctxt_switches:") }
        return line.flatMap { Int($0.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") } ?? 0
    }

    @Test("a light graph is not split when the split is decided from its measured costs")
    func lightStaysWhole() throws {
        let graph = try Self.wideGraph(voices: 4)
        // A step's time is wall time, as the audio thread measures it: a step this thread was
        // preempted in (likely on a machine busy with other test lanes; a real-time audio thread
        // rarely is) measures the preemption. A split after such a run is taken again, up to
        // five times; one after a run with no preemption fails at once.
        for attempt in 1...5 {
            let backend = try OfflineBackend(sampleRate: 48_000, blockSize: 128, threads: 2)
            let plan = try PlanBuilder(sampleRate: 48_000, maximumFrames: 128).plan(for: graph, fresh: true)
            backend.install(plan)
            let before = Self.involuntarySwitches()
            for _ in 0..<(6 * RenderPlan.sampleInterval) { backend.renderCycle(frames: 128) }
            let preempted = Self.involuntarySwitches() - before
            guard plan.isSplit || plan.updateSplit(threads: 2, periodNanoseconds: nil) else { return }
            guard preempted > 0, attempt < 5 else {
                Issue.record("a few µs of work is not worth a hand-over, yet it split (take \(attempt), preempted \(preempted) times)")
                return
            }
        }
    }
}

extension ParallelRenderTests {
    /// `lp1` of a four-voice graph made by `make`, rendered split across two threads.
    static func splitPlan(_ make: @escaping () -> any AudioNode) throws -> (RenderPlan, RenderCrew) {
        let builder = PlanBuilder(sampleRate: 48_000, maximumFrames: 128)
        builder.instances.nodeFactory = { app in app.id == "lp1" ? make() : try app.type.makeNode(app.configuration) }
        let plan = try builder.plan(for: try wideGraph(voices: 4), fresh: true)
        let crew = try RenderCrew(threads: 2, splitting: .always, spawn: RenderCrew.plainThread)
        crew.decide(plan, periodNanoseconds: nil)
        return (plan, crew)
    }

    @Test("split cycles keep the deadline guard: a node over budget in 3 cycles running is faulted, on whichever thread it ran")
    func deadlineOnSplitCycles() throws {
        let (plan, crew) = try Self.splitPlan { Sleeper(microseconds: 3_000) }
        #expect(plan.isSplit)
        var tripped = 0
        for cycle in 0..<5 {
            tripped += Renderer.render(plan, RenderContext(frames: 128, sampleTime: Int64(cycle * 128)),
                                       deadline: DeadlineCheck(budget: 1_000_000, cycle: Int64(cycle)), crew: crew.handle)
        }
        #expect(tripped == 1)
        #expect(plan.slot(for: "lp1")?.isFaulted == true)
        #expect(plan.slot(for: "lp2")?.isFaulted == false)
    }

    @Test("a node stuck in a split cycle is named, whichever thread it is stuck on")
    func stallOnSplitCycles() throws {
        let gate = Gate()
        let (plan, crew) = try Self.splitPlan { gate }
        let done = Gate()
        let renderer = Thread {
            Renderer.render(plan, RenderContext(frames: 128, sampleTime: 0), crew: crew.handle)
            done.open.store(true, ordering: .releasing)
        }
        renderer.start()
        let deadline = ContinuousClock.now + .seconds(5)
        while plan.runningApp != "lp1" && ContinuousClock.now < deadline { usleep(1_000) }
        #expect(plan.runningApp == "lp1")
        gate.open.store(true, ordering: .releasing)
        while !done.open.load(ordering: .acquiring) && ContinuousClock.now < deadline + .seconds(5) { usleep(1_000) }
        let ended = done.open.load(ordering: .acquiring)
        #expect(ended, "the cycle ended once the node returned")
        #expect(plan.runningApp == nil)
    }
}

/// A node that takes `microseconds` every cycle: test only (it blocks).
private final class Sleeper: AudioNode {
    let microseconds: UInt32
    init(microseconds: UInt32) { self.microseconds = microseconds }
    func process(_ context: ProcessContext) {
        usleep(microseconds)
        for index in 0..<context.outputs.count { context.outputs[index].update(repeating: 0) }
    }
}

/// A node that does not return until it is let go (and a flag for the test's own thread): test only.
private final class Gate: AudioNode, @unchecked Sendable {
    let open = Atomic<Bool>(false)
    func process(_ context: ProcessContext) {
        while !open.load(ordering: .acquiring) { usleep(100) }
        for index in 0..<context.outputs.count { context.outputs[index].update(repeating: 0) }
    }
}

/// A node that sleeps 0 to 200 µs before its wrapped node's cycle: test only (it blocks).
private final class Jittery: AudioNode {
    let node: any AudioNode
    init(_ node: any AudioNode) { self.node = node }
    func prepare(sampleRate: Double, maximumFrames: Int) { node.prepare(sampleRate: sampleRate, maximumFrames: maximumFrames) }
    func process(_ context: ProcessContext) {
        usleep(UInt32.random(in: 0...200))
        node.process(context)
    }
    func reset() { node.reset() }
}
