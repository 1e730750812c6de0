import AudioGraph
import RenderCore

/// Compiles graphs into plans for one backend, reusing running nodes and compensation lines,
/// and numbers generations.
public final class PlanBuilder {
    public let instances: NodeInstances
    private var generation: UInt64 = 0
    private let compensation = CompensationLines()

    /// `gainRampSeconds` is the graph's `policy.rampTime`: how long session gain changes take.
    public init(sampleRate: Double, maximumFrames: Int, rampSeconds: Double = 0.010, gainRampSeconds: Double = 0.010) {
        instances = NodeInstances(sampleRate: sampleRate, maximumFrames: maximumFrames, rampSeconds: rampSeconds,
                                  gainRampSeconds: gainRampSeconds)
    }

    /// A plan for `graph`, ready to publish, aligned for the latency each node reports now.
    /// `fresh`: nothing has played yet, so new compensation lines start at their delay instead
    /// of fading to it. `keepingParameters`: the graph already plays, and the values `set` gave
    /// its running nodes stay (``NodeInstances/slots(for:keepingParameters:)``).
    public func plan(for graph: Graph, fresh: Bool = false, keepingParameters: Bool = false) throws -> RenderPlan {
        let slots = try instances.slots(for: graph, keepingParameters: keepingParameters)
        generation += 1
        let latency = GraphLatency(graph, own: slots.map(\.reportedLatency), compensates: graph.latency.compensate)
        let lines = compensation.lines(for: graph, latency: latency, maximumFrames: instances.maximumFrames, aligned: fresh)
        return PlanCompiler.compile(graph, slots: slots, sampleRate: instances.sampleRate,
                                    maximumFrames: instances.maximumFrames, generation: generation,
                                    latency: latency, lines: lines)
    }

    /// Renders the first plan once off the audio thread, so lazy globals and generic metadata exist
    /// before the first real cycle (and every node has reported its latency), then resets every
    /// node so the real output starts clean. Only for a plan whose nodes are not yet running.
    public static func warmUp(_ plan: RenderPlan) {
        Renderer.render(plan, RenderContext(frames: plan.maximumFrames, sampleTime: 0))
        for slot in plan.appSlots { slot.anyNode.reset() }
    }
}
