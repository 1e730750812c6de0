import AudioGraph
import RenderCore
import GraphFormat
import NodeKit
import Nodes
import OfflineBackend
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Loads graph text against the built-in nodes, recording every diagnostic when it does not validate.
func loadGraph(_ json: String, registry: NodeRegistry = NodeRegistry(BuiltinNodes.types)) throws -> Graph {
    let result = GraphFile.load(text: json, file: "test.json", registry: registry)
    return try #require(result.graph, "graph did not validate:\n\(result.diagnostics.map(\.formatted).joined(separator: "\n"))")
}

/// A graph document with `apps` and `connections` (JSON array bodies) and optional JACK connections.
func graphJSON(apps: String, connections: String = "", jack: String? = nil) -> String {
    let jackPart = jack.map { ", \"jack\": { \"connections\": [ \($0) ] }" } ?? ""
    return """
        { "format": "iaa-graph/1", "name": "test",
          "apps": [ \(apps) ],
          "connections": [ \(connections) ]\(jackPart) }
        """
}

/// sin(2π·`cycles`) from libm, as the reference the oscillator is measured against.
func referenceSine(cycles: Double) -> Double {
    sin(2 * Double.pi * cycles.truncatingRemainder(dividingBy: 1))
}

/// One offline engine: node instances, a backend and the plan it runs, compiled the way
/// `PlanBuilder` does but from the public AudioGraph pieces, so each piece is what is tested.
final class PlanHarness {
    let sampleRate: Double
    let blockSize: Int
    let instances: NodeInstances
    let backend: OfflineBackend
    private(set) var plan: RenderPlan
    private(set) var graph: Graph
    private var generation: UInt64 = 1

    /// `nodeFactory` replaces how the apps' nodes are made (`NodeInstances.nodeFactory`).
    init(_ json: String, sampleRate: Double = 48_000, blockSize: Int = 256,
         nodeFactory: ((App) throws -> any AudioNode)? = nil) throws {
        self.sampleRate = sampleRate
        self.blockSize = blockSize
        instances = NodeInstances(sampleRate: sampleRate, maximumFrames: blockSize)
        if let nodeFactory { instances.nodeFactory = nodeFactory }
        backend = OfflineBackend(sampleRate: sampleRate, blockSize: blockSize)
        graph = try loadGraph(json)
        plan = PlanCompiler.compile(graph, slots: try instances.slots(for: graph), sampleRate: sampleRate,
                                    maximumFrames: blockSize, generation: generation)
        backend.install(plan)
    }

    /// Compiles `json` with the same node instances (running nodes are reused) and installs it.
    func replace(with json: String) throws {
        graph = try loadGraph(json)
        generation += 1
        plan = PlanCompiler.compile(graph, slots: try instances.slots(for: graph), sampleRate: sampleRate,
                                    maximumFrames: blockSize, generation: generation)
        backend.install(plan)
    }

    /// Renders `frames` frames in cycles of at most `block` frames (the harness's block size by
    /// default) and returns, per `APP:PORT` in `ports`, the output it produced in each cycle.
    func render(frames: Int, ports: [String], block: Int? = nil) throws -> [[Float]] {
        let cycle = min(block ?? blockSize, blockSize)
        var result = Array(repeating: [Float](), count: ports.count)
        for index in result.indices { result[index].reserveCapacity(frames) }
        var done = 0
        while done < frames {
            let count = min(cycle, frames - done)
            let rendered = try #require(backend.renderCycle(frames: count), "no plan installed")
            for (index, port) in ports.enumerated() {
                let parts = port.split(separator: ":", maxSplits: 1).map(String.init)
                let buffer = try #require(rendered.outputBuffer(app: parts[0], port: parts[1]), "no output \(port)")
                result[index].append(contentsOf: UnsafeBufferPointer(start: buffer, count: count))
            }
            done += count
        }
        return result
    }

    /// Renders `frames` frames of a single port.
    func render(frames: Int, port: String, block: Int? = nil) throws -> [Float] {
        try render(frames: frames, ports: [port], block: block)[0]
    }
}
