import RenderCore
#if canImport(Glibc)
import Glibc
#endif

/// Swaps the node of an app whose plugin library was rebuilt without a click: the old node's
/// output fades to silence, the plan with the new node goes in, and the new node fades in.
///
/// The fades are the policy gain every slot already ramps on the audio thread (the same ramp a
/// disconnect uses), so nothing new runs in the cycle. Control side only; `fadeOut` blocks the
/// control queue for the ramp (a few milliseconds), which keeps `apply` and `reload` replies true:
/// when they answer, the new code runs.
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

    /// Ramps the old nodes to silence and waits until the ramp has played (at most a quarter
    /// second); the new nodes will start silent.
    func fadeOut(rampSeconds: Double, periodSeconds: Double) {
        guard !swaps.isEmpty else { return }
        for swap in swaps {
            swap.new.startPolicyGain(at: 0)
            swap.old.setPolicyGain(0)
        }
        let wait = min(0.25, rampSeconds + 2 * periodSeconds)
        usleep(UInt32(wait * 1_000_000))
    }

    /// Once the new plan is installed and the session policy has pushed its gains: the new nodes
    /// of apps the policy does not manage ramp to the gain the old ones had.
    func fadeIn(managed: (String) -> Bool) {
        for swap in swaps where !managed(swap.app) {
            swap.new.setPolicyGain(swap.gain)
        }
    }

    /// The new plan could not go in: the old nodes, still running, fade back in.
    func restore() {
        for swap in swaps { swap.old.setPolicyGain(swap.gain) }
    }
}
