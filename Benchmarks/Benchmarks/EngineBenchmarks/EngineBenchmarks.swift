import AudioGraph
import RenderCore
import BenchKit
import Benchmark
import GraphFormat
import Nodes

/// The suite for `swift package benchmark` (ordo-one): the same workloads as `iaa-bench`, with
/// ordo-one's malloc counts, so baselines can be saved and compared in CI. `run.sh` prints the
/// table with the C ratios; this target is for regressions.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        warmupIterations: 10,
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 1_000_000
    )

    // Render: scaledIterations cycles per iteration, so wallClock per iteration is per 1,000 cycles
    // and mallocCountTotal must stay 0.
    for voices in [1, 10, 100, 1_000] {
        for frames in [64, 128, 256] {
            let scale: BenchmarkScalingFactor = voices >= 100 ? .one : .kilo
            let configuration = Benchmark.Configuration(scalingFactor: scale)
            Benchmark("render voices=\(voices) frames=\(frames)", configuration: configuration) { benchmark, engine in
                for _ in benchmark.scaledIterations { engine.cycle() }
            } setup: {
                EngineRender(voices: voices, frames: frames)
            }
            Benchmark("C scalar voices=\(voices) frames=\(frames)", configuration: configuration) { benchmark, reference in
                for _ in benchmark.scaledIterations { reference.scalarCycle() }
            } setup: {
                CReference(voices: voices, frames: frames)
            }
            Benchmark("C vector voices=\(voices) frames=\(frames)", configuration: configuration) { benchmark, reference in
                for _ in benchmark.scaledIterations { reference.vectorCycle() }
            } setup: {
                CReference(voices: voices, frames: frames)
            }
        }
    }

    let control = Benchmark.Configuration(metrics: [.wallClock, .mallocCountTotal], scalingFactor: .one,
                                          maxDuration: .seconds(3))
    Benchmark("slots+compile 1000 apps ~5000 connections", configuration: control) { benchmark, workload in
        for _ in benchmark.scaledIterations {
            blackHole(workload.compile(workload.makeSlots(), generation: 2))
        }
    } setup: {
        CompileWorkload()
    }
    Benchmark("PlanExchange.publish", configuration: .init(metrics: [.wallClock], scalingFactor: .kilo)) { (benchmark: Benchmark, plans: [RenderPlan]) in
        let exchange = PlanExchange()
        for index in benchmark.scaledIterations { exchange.publish(plans[index & 1]) }
        exchange.collect(audioStopped: true)
    } setup: {
        let workload = CompileWorkload()
        let slots = workload.makeSlots()
        return [workload.compile(slots, generation: 1), workload.compile(slots, generation: 2)]
    }
    Benchmark("GraphFile.load 1 MB", configuration: control) { benchmark, text in
        for _ in benchmark.scaledIterations {
            blackHole(GraphFile.load(text: text, file: "big.json", registry: NodeRegistry(BuiltinNodes.types)))
        }
    } setup: {
        GraphGenerator.graphText(atLeast: 1 << 20).text
    }
    Benchmark("apply one-connection change 1000 apps", configuration: control) { benchmark, workload in
        for _ in benchmark.scaledIterations { blackHole(workload.run()) }
    } setup: {
        ApplyWorkload()
    }
}
