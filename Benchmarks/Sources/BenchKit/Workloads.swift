import AudioGraph
import RenderCore
import GraphFormat
import CVoiceReference
import Nodes
import OfflineBackend

public let sampleRate = 48_000.0

/// One generated voice graph compiled to a real `RenderPlan` and installed in an `OfflineBackend`.
public final class EngineRender {
    public let voices: Int
    public let frames: Int
    public let appCount: Int
    public let connectionCount: Int
    public let backend: OfflineBackend
    public let plan: RenderPlan
    private let bus: UnsafePointer<Float>

    /// `probe` is `.fromEnvironment()` for the allocation pass, `.disabled` for timing.
    public init(voices: Int, frames: Int, probe: RealtimeProbe = .disabled) {
        self.voices = voices
        self.frames = frames
        let graph = GraphGenerator.load(GraphGenerator.voiceGraph(voices: voices), file: "voices-\(voices).json")
        appCount = graph.apps.count
        connectionCount = graph.connections.count
        let instances = NodeInstances(sampleRate: sampleRate, maximumFrames: frames)
        let slots: [NodeSlot]
        do { slots = try instances.slots(for: graph) } catch { fatalError("slots: \(error)") }
        plan = PlanCompiler.compile(graph, slots: slots, sampleRate: sampleRate, maximumFrames: frames, generation: 1)
        backend = OfflineBackend(sampleRate: sampleRate, blockSize: frames, probe: probe)
        backend.install(plan)
        guard let bus = plan.outputBuffer(app: GraphGenerator.busID(voices: voices), port: "out") else {
            fatalError("no bus output")
        }
        self.bus = bus
    }

    /// One cycle through `OfflineBackend.renderCycle` (plan exchange, probe hooks, `Renderer`).
    @inline(__always)
    public func cycle() {
        backend.renderCycle(frames: frames)
    }

    /// One cycle through `Renderer.render` alone, to separate the backend's own cost.
    @inline(__always)
    public func renderOnly() {
        Renderer.render(plan, RenderContext(frames: frames, sampleTime: 0))
    }

    /// The summed bus after the last cycle.
    public var output: UnsafeBufferPointer<Float> { UnsafeBufferPointer(start: bus, count: frames) }
}

/// The same voices rendered by the hand-written C reference.
public final class CReference {
    public let voices: Int
    public let frames: Int
    private let state: UnsafeMutableBufferPointer<cvr_voice>
    private let out: UnsafeMutableBufferPointer<Float>

    public init(voices: Int, frames: Int) {
        self.voices = voices
        self.frames = frames
        state = .allocate(capacity: voices)
        for index in 0..<voices {
            let v = GraphGenerator.voice(index)
            var voice = cvr_voice()
            voice.increment = Float(Double(v.frequency) / sampleRate)
            voice.amplitude = v.amplitude
            voice.gain = v.gain
            cvr_voice_set_cutoff(&voice, Double(v.cutoff), sampleRate)
            state[index] = voice
        }
        out = .allocate(capacity: frames)
        out.initialize(repeating: 0)
    }

    deinit {
        state.deallocate()
        out.deallocate()
    }

    @inline(__always) public func scalarCycle() {
        cvr_render_scalar(state.baseAddress, Int32(voices), out.baseAddress, Int32(frames))
    }

    @inline(__always) public func vectorCycle() {
        cvr_render_vector(state.baseAddress, Int32(voices), out.baseAddress, Int32(frames))
    }

    public var output: UnsafeBufferPointer<Float> { UnsafeBufferPointer(out) }

    public static var hasAVX2: Bool { cvr_has_avx2() != 0 }
}

/// Compile and publish costs of the 1,000-app, ~5,000-connection graph.
public final class CompileWorkload {
    public let graph: Graph
    public let maximumFrames: Int

    /// 983 oscillators × 5 mixer inputs each, 16 mixers, 1 master: 1,000 apps, 4,931 connections.
    public init(maximumFrames: Int = 256) {
        graph = GraphGenerator.load(GraphGenerator.denseGraph(sources: 983, mixers: 16, fanOut: 5), file: "dense.json")
        self.maximumFrames = maximumFrames
    }

    /// Fresh slots (every node created and prepared), as for a newly loaded graph.
    public func makeSlots(_ instances: NodeInstances? = nil) -> [NodeSlot] {
        let pool = instances ?? NodeInstances(sampleRate: sampleRate, maximumFrames: maximumFrames)
        do { return try pool.slots(for: graph) } catch { fatalError("slots: \(error)") }
    }

    public func compile(_ slots: [NodeSlot], generation: UInt64) -> RenderPlan {
        PlanCompiler.compile(graph, slots: slots, sampleRate: sampleRate, maximumFrames: maximumFrames,
                             generation: generation)
    }
}

/// `iaa apply` of a one-connection change to the 1,000-app dense graph, on the control side:
/// validate the changed text, reuse every running node, compile and publish the plan.
public final class ApplyWorkload: @unchecked Sendable {
    public let changedText: String
    let pool: NodeInstances
    let exchange = PlanExchange()
    var generation: UInt64 = 1

    public init(sampleRate: Double = 48_000, maximumFrames: Int = 256) {
        let text = GraphGenerator.denseGraph(sources: 983, mixers: 16, fanOut: 5)
        let dropped = #"{ "from": "bus0:out", "to": "master:in_1" },"#
        precondition(text.contains(dropped), "the dense graph changed shape")
        changedText = text.replacing(dropped, with: "")
        pool = NodeInstances(sampleRate: sampleRate, maximumFrames: maximumFrames)
        let running = GraphGenerator.load(text)
        exchange.publish(PlanCompiler.compile(running, slots: try! pool.slots(for: running), sampleRate: sampleRate,
                                              maximumFrames: maximumFrames, generation: generation))
    }

    /// One apply; returns the new plan's step count so the work is not optimized away.
    @discardableResult
    public func run() -> Int {
        let loaded = GraphFile.load(text: changedText, file: "changed.json", registry: NodeRegistry(BuiltinNodes.types))
        guard let graph = loaded.graph else { fatalError("the changed graph is invalid: \(loaded.diagnostics)") }
        generation &+= 1
        let plan = PlanCompiler.compile(graph, slots: try! pool.slots(for: graph), sampleRate: pool.sampleRate,
                                        maximumFrames: pool.maximumFrames, generation: generation)
        exchange.publish(plan)
        exchange.collect(audioStopped: true)
        return graph.apps.count
    }
}
