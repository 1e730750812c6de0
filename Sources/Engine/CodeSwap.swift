import Isolation
import RenderCore
#if canImport(Glibc)
import Glibc
#endif

/// Swaps the node of an app whose plugin library was rebuilt without a click: the old node's
/// output fades to silence, the plan with the new node goes in, and the new node fades in.
///
/// The fades are the policy gain every slot already ramps on the audio thread (the same ramp a
/// disconnect uses), so nothing new runs in the cycle. Control side only; `fadeOut` blocks the
/// control queue until the audio thread has played the ramp (a few milliseconds), which keeps
/// `apply` and `reload` replies true: when they answer, the new code runs.
struct CodeSwap {
    /// Each swapped app's old and new slot, and the gain the old one was heading to.
    private let swaps: [(app: String, old: NodeSlot, new: NodeSlot, gain: Float)]

    /// The swaps `plan` makes for `apps` against `running` (the plan being rendered).
    init(apps: [String], running: RenderPlan?, plan: RenderPlan) {
        swaps = apps.compactMap { app in
            guard let old = running?.slot(for: app), let new = plan.slot(for: app), old !== new else { return nil }
            return (app, old, new, old.policyGainTargetValue)
        }
    }

    var isEmpty: Bool { swaps.isEmpty }

    /// Ramps the old nodes to silence and waits until `backend` has rendered the cycles that play
    /// the ramp (at most a quarter second); the new nodes will start silent.
    ///
    /// The cycles are counted rather than timed: a server whose cycles come late (a busy machine,
    /// a driver catching up) would otherwise get the new plan before the old node had faded, and
    /// the swap would click.
    func fadeOut(rampSeconds: Double, on backend: some ControlBackend) {
        guard !swaps.isEmpty else { return }
        let start = backend.renderedCycles
        for swap in swaps {
            swap.new.startPolicyGain(at: 0)
            swap.old.setPolicyGain(0)
        }
        guard let start else { return }
        // The cycle under way may have read the gain before it changed; the ramp plays in those after.
        let period = max(backend.currentBufferSize, 1)
        let cycles = 1 + (Int((rampSeconds * backend.sampleRate).rounded(.up)) + period - 1) / period
        let deadline = ContinuousClock.now + .milliseconds(250)
        while let now = backend.renderedCycles, now < start + Int64(cycles), ContinuousClock.now < deadline {
            usleep(500)
        }
    }

    /// Once the new plan is installed and the session policy has pushed its gains: the new nodes
    /// of apps the policy does not manage ramp to the gain the old ones had.
    func fadeIn(managed: (String) -> Bool) {
        for swap in swaps where !managed(swap.app) {
            swap.new.setPolicyGain(swap.gain)
        }
    }

    /// Once the new plan is installed: an isolated app's new node counts its late cycles on from
    /// the old one's, so the app's count (`status`, `isolatedLate` lines) keeps those the old
    /// child left silent up to the swap, the fade's included. (A cycle the old node renders after
    /// this is at gain 0, silent either way.)
    func continueCounts() {
        for swap in swaps {
            guard let new = swap.new.anyNode as? IsolatedNode, let old = swap.old.anyNode as? IsolatedNode else { continue }
            new.continueLateCycles(from: old)
        }
    }

    /// The new plan could not go in: the old nodes, still running, fade back in.
    func restore() {
        for swap in swaps { swap.old.setPolicyGain(swap.gain) }
    }
}
