import AudioGraph
import AudioSession

/// Links the session policy to the running nodes: applies actions to the policy and turns each
/// decision into per-app gain targets, suspension and microphone flags that the audio thread
/// follows (ramped, so no decision clicks). Control side only; one caller at a time.
public final class SessionController {
    public private(set) var policy: SessionPolicy
    private var slots: [String: NodeSlot] = [:]

    /// A controller for the graph's managed apps (those with a `session` block).
    public init(graph: Graph) {
        policy = SessionPolicy(apps: graph.apps.compactMap(\.session), configuration: graph.policy)
    }

    /// The ids of the apps the policy manages, in graph order.
    public var managedApps: [String] { policy.states.map(\.id) }

    /// Binds the controller to a plan's slots. The first time, gains start at the policy's values
    /// with no ramp (the slots have not rendered yet); later, they ramp.
    public func attach(_ plan: RenderPlan, initial: Bool) {
        slots = [:]
        for id in managedApps {
            guard let slot = plan.slot(for: id) else { continue }
            slots[id] = slot
            if initial, let state = policy.state(of: id) { slot.startPolicyGain(at: state.gain) }
        }
        push()
    }

    /// Applies one action at `time` (seconds on the engine's clock) and pushes the result.
    @discardableResult
    public func apply(_ action: SessionAction, at time: Double) -> SessionOutcome {
        let outcome = policy.apply(action, at: time)
        push()
        return outcome
    }

    /// The next time the policy needs the clock (a background task's warning or expiry).
    public var nextDeadline: Double? { policy.nextDeadline }

    /// Hands the policy's current decision to the audio thread.
    private func push() {
        for state in policy.states {
            guard let slot = slots[state.id] else { continue }
            slot.setPolicyGain(state.gain)
            slot.setSuspended(state.suspended)
            slot.setHearsOutsideInput(policy.hearsInput(state.id))
        }
    }
}
