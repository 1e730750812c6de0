import AudioGraph

/// Compiles graphs into plans for one backend, reusing running nodes, and numbers generations.
public final class PlanBuilder {
    public let instances: NodeInstances
    private var generation: UInt64 = 0

    /// `gainRampSeconds` is the graph's `policy.rampTime`: how long session gain changes take.
    public init(sampleRate: Double, maximumFrames: Int, rampSeconds: Double = 0.010, gainRampSeconds: Double = 0.010) {
        instances = NodeInstances(sampleRate: sampleRate, maximumFrames: maximumFrames, rampSeconds: rampSeconds,
                                  gainRampSeconds: gainRampSeconds)
    }

    /// A plan for `graph`, ready to publish.
    public func plan(for graph: Graph) throws -> RenderPlan {
        let slots = try instances.slots(for: graph)
        generation += 1
        return PlanCompiler.compile(graph, slots: slots, sampleRate: instances.sampleRate,
                                    maximumFrames: instances.maximumFrames, generation: generation)
    }

    /// Renders the first plan once off the audio thread, so lazy globals and generic metadata exist
    /// before the first real cycle, then resets every node so the real output starts clean.
    /// Only for a plan whose nodes are not yet running.
    public static func warmUp(_ plan: RenderPlan) {
        Renderer.render(plan, RenderContext(frames: plan.maximumFrames, sampleTime: 0))
        for slot in plan.appSlots { slot.anyNode.reset() }
    }
}
