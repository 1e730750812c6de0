import AudioGraph
import RenderCore
import BenchKit
import GraphFormat
import Nodes

/// Section 2 of the run: compile, publish, validate, load and apply on the control side.
///
/// Measured in a process without the allocation counter: it interposes `swift_retain` and
/// `malloc` for the render tables' allocation columns, which made control-side code (which
/// retains and allocates freely, as it may) about a tenth slower than it runs in the engine.
func controlSide() {
    print("")
    print("## Control side")
    print("")
    row(["operation", "graph", "median", "p99", "min", "samples"])
    row(Array(repeating: "---", count: 6))
    func controlRow(_ name: String, _ graph: String, _ stats: Stats, unit: Double = 1e6, suffix: String = " ms") {
        row([name, graph, f(stats.median / unit, 3) + suffix, f(stats.p99 / unit, 3) + suffix,
             f(stats.minimum / unit, 3) + suffix, "\(stats.count)"])
    }
    let compile = CompileWorkload()
    let denseName = "\(compile.graph.apps.count) apps, \(compile.graph.connections.count) connections"
    let controlBudget: Duration = quick ? .milliseconds(300) : .seconds(2)
    controlRow("NodeInstances.slots (all new)", denseName, measure(warmup: 2, minimumSamples: 5, budget: controlBudget) {
        _ = compile.makeSlots()
    })
    let pool = NodeInstances(sampleRate: sampleRate, maximumFrames: compile.maximumFrames)
    _ = compile.makeSlots(pool)
    controlRow("NodeInstances.slots (all reused)", denseName, measure(warmup: 2, minimumSamples: 5, budget: controlBudget) {
        _ = compile.makeSlots(pool)
    })
    let slots = compile.makeSlots()
    var generation: UInt64 = 1
    controlRow("PlanCompiler.compile", denseName, measure(warmup: 2, minimumSamples: 5, budget: controlBudget) {
        generation &+= 1
        _ = compile.compile(slots, generation: generation)
    })
    controlRow("slots (new) + compile", denseName, measure(warmup: 2, minimumSamples: 5, budget: controlBudget) {
        generation &+= 1
        _ = compile.compile(compile.makeSlots(), generation: generation)
    })
    do {
        // Publishing the same two plans in turn: the retired list keeps its capacity after collect,
        // so the batch measures the exchange and the retire-append, not array growth.
        let exchange = PlanExchange()
        let plans = [compile.compile(slots, generation: 1), compile.compile(slots, generation: 2)]
        let batch = 100
        let clock = ContinuousClock()
        var samples: [Double] = []
        for round in 0..<2_000 {
            let start = clock.now
            for index in 0..<batch { exchange.publish(plans[index & 1]) }
            let elapsed = nanoseconds(clock.now - start)
            exchange.collect(audioStopped: true)
            if round >= 20 { samples.append(elapsed / Double(batch)) }
        }
        controlRow("PlanExchange.publish", "(per call)", Stats(samples), unit: 1, suffix: " ns")
        let empty = measure(budget: .milliseconds(50)) {}
        print("| (clock read overhead per sample, for scale) | | \(f(empty.median, 0)) ns | | | |")
    }
    do {
        let (text, sources) = GraphGenerator.graphText(atLeast: 1 << 20)
        let graph = GraphGenerator.load(text)
        let name = "\(f(Double(text.utf8.count) / 1_048_576, 2)) MiB: \(graph.apps.count) apps, \(graph.connections.count) connections"
        _ = sources
        controlRow("GraphFile.load(text:) 1 MB", name, measure(warmup: 1, minimumSamples: 5, budget: controlBudget * 2) {
            _ = GraphFile.load(text: text, file: "big.json", registry: NodeRegistry(BuiltinNodes.types))
        })
        let denseText = GraphGenerator.denseGraph(sources: 983, mixers: 16, fanOut: 5)
        controlRow("GraphFile.load(text:)", "\(denseName) (\(denseText.utf8.count / 1024) KiB)",
                   measure(warmup: 1, minimumSamples: 5, budget: controlBudget) {
            _ = GraphFile.load(text: denseText, file: "dense.json", registry: NodeRegistry(BuiltinNodes.types))
        })
    }
    do {
        // What `iaa apply` does on the control side for a one-connection change: validate the new
        // text, reuse every running node, compile, publish. (The engine adds the diff, a few
        // microseconds, and JACK's connect calls for JACK connections that changed: none here.)
        let apply = ApplyWorkload()
        controlRow("apply: one connection removed", "\(denseName) (validate + reuse + compile + publish)",
                   measure(warmup: 1, minimumSamples: 5, budget: controlBudget) { apply.run() })
    }
}
