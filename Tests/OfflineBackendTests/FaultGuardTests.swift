import AudioGraph
import GraphFormat
import NodeKit
import OfflineBackend
import SignalAnalysis
import Testing

/// A node that writes NaN is muted within the cycle and stays muted until re-enabled.
@Suite("Fault guard")
struct FaultGuardTests {
    /// Writes 0.5 until told to fail, then NaN (and infinity) forever.
    final class Faulty: AudioNode {
        nonisolated(unsafe) static var failFromCycle = 3
        var cycle = 0
        func process(_ context: ProcessContext) {
            let value: Float = cycle >= Self.failFromCycle ? (cycle % 2 == 0 ? .nan : .infinity) : 0.5
            for frame in 0..<context.frames { context.outputs[0][frame] = frame == 7 ? value : 0.5 }
            cycle += 1
        }
        func reset() { cycle = 0; Self.failFromCycle = Int.max }
    }

    static let faultyType = NodeType(
        id: "test:faulty", displayName: "Faulty", summary: "Writes NaN on purpose.",
        layout: { _ in NodeLayout(inputs: [], outputs: [.output("out")]) }, make: { _ in Faulty() })

    @Test("a node writing NaN or infinity is muted in that very cycle, stays muted, and runs again when enabled")
    func nanIsMuted() throws {
        Faulty.failFromCycle = 3
        var registry = NodeRegistry([Self.faultyType])
        registry.register(Self.faultyType)
        let loaded = GraphFile.load(text: """
            {"format": "iaa-graph/1", "name": "f", "apps": [{"id": "bad", "plugin": "test:faulty"}]}
            """, file: "f.json", registry: registry)
        let graph = try #require(loaded.graph, "\(loaded.diagnostics)")
        let instances = NodeInstances(sampleRate: 48_000, maximumFrames: 64)
        let plan = PlanCompiler.compile(graph, slots: try instances.slots(for: graph), sampleRate: 48_000,
                                        maximumFrames: 64, generation: 1)
        let backend = OfflineBackend(sampleRate: 48_000, blockSize: 64)
        backend.install(plan)
        let output = try #require(plan.outputBuffer(app: "bad", port: "out"))
        for cycle in 0..<8 {
            backend.renderCycle(frames: 64)
            let samples = Array(UnsafeBufferPointer(start: output, count: 64))
            let finite = samples.allSatisfy { $0.isFinite }
            #expect(finite, "cycle \(cycle) let a non-finite sample through")
            if cycle < 3 { #expect(samples.allSatisfy { $0 == 0.5 }) } else { #expect(SignalAnalysis.isExactlySilent(samples)) }
        }
        let slot = try #require(plan.slot(for: "bad"))
        #expect(slot.isFaulted)
        slot.clearFault()
        backend.renderCycle(frames: 64)
        #expect(!slot.isFaulted)
        let recovered = UnsafeBufferPointer(start: output, count: 64).allSatisfy { $0 == 0.5 }
        #expect(recovered)
    }

    /// Multiplies two small numbers whose product is denormal (about 1e-40).
    final class Tiny: AudioNode {
        nonisolated(unsafe) static var factors: [Float] = [1e-20, 1e-20]
        func process(_ context: ProcessContext) {
            for frame in 0..<context.frames { context.outputs[0][frame] = Self.factors[0] * Self.factors[1] }
        }
        func reset() {}
    }

    @inline(never) static func product(_ a: Float, _ b: Float) -> Float { a * b }

    @Test("offline rendering flushes denormals as the JACK thread does, and gives the caller's thread back as it was")
    func denormalsFlushed() throws {
        let type = NodeType(id: "test:tiny", displayName: "Tiny", summary: "Writes a denormal product.",
                            layout: { _ in NodeLayout(inputs: [], outputs: [.output("out")]) }, make: { _ in Tiny() })
        var registry = NodeRegistry([type])
        registry.register(type)
        let loaded = GraphFile.load(text: #"{"format": "iaa-graph/1", "name": "t", "apps": [{"id": "tiny", "plugin": "test:tiny"}]}"#,
                                    file: "t.json", registry: registry)
        let graph = try #require(loaded.graph)
        let plan = PlanCompiler.compile(graph, slots: try NodeInstances(sampleRate: 48_000, maximumFrames: 64).slots(for: graph),
                                        sampleRate: 48_000, maximumFrames: 64, generation: 1)
        let backend = OfflineBackend(sampleRate: 48_000, blockSize: 64)
        backend.install(plan)
        #expect(Self.product(1e-20, 1e-20) != 0, "this thread flushes denormals before rendering")
        backend.renderCycle(frames: 64)
        let output = try #require(plan.outputBuffer(app: "tiny", port: "out"))
        #expect(UnsafeBufferPointer(start: output, count: 64).allSatisfy { $0 == 0 })
        #expect(Self.product(1e-20, 1e-20) != 0, "rendering left denormals flushed on the caller's thread")
        #expect(Self.product(1e-20, 1e-20).isSubnormal)
    }
}
