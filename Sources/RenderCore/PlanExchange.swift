import Synchronization

/// Hands compiled plans to the audio thread with one atomic exchange, and tells the control side
/// when an old plan is no longer in use.
///
/// The audio thread loads the current plan once per cycle and acknowledges its generation. A plan
/// replaced by generation n may be freed once the acknowledgement reaches n: the audio thread has
/// started a later cycle, so it has finished with the old one.
public final class PlanExchange: @unchecked Sendable {
    private let current = Atomic<UnsafeMutableRawPointer?>(nil)
    private let acknowledged = Atomic<UInt64>(0)
    /// Plans swapped out but possibly still in use; touched only by the control side.
    private var retired: [(plan: RenderPlan, replacedBy: UInt64)] = []
    private let retiredLock = Mutex(())

    public init() {}

    deinit {
        if let raw = current.load(ordering: .acquiring) {
            Unmanaged<RenderPlan>.fromOpaque(raw).release()
        }
    }

    /// Makes `plan` the one the audio thread renders from its next cycle on. Control side.
    public func publish(_ plan: RenderPlan) {
        let old = current.exchange(Unmanaged.passRetained(plan).toOpaque(), ordering: .acquiringAndReleasing)
        if let old {
            let oldPlan = Unmanaged<RenderPlan>.fromOpaque(old).takeRetainedValue()
            retiredLock.withLock { _ in retired.append((oldPlan, plan.generation)) }
        }
    }

    /// Frees the retired plans the audio thread has moved past. With `audioStopped`, frees them all
    /// (the backend guarantees no cycle is running). Returns how many plans are still waiting.
    @discardableResult
    public func collect(audioStopped: Bool = false) -> Int {
        let seen = acknowledged.load(ordering: .acquiring)
        return retiredLock.withLock { _ in
            retired.removeAll { audioStopped || $0.replacedBy <= seen }
            return retired.count
        }
    }

    /// The generation the audio thread last picked up.
    public var acknowledgedGeneration: UInt64 { acknowledged.load(ordering: .acquiring) }

    /// The plan currently published (control side: for lookups, not for rendering).
    public var currentPlan: RenderPlan? {
        current.load(ordering: .acquiring).map { Unmanaged<RenderPlan>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Runs `body` with the current plan without retaining it, and acknowledges its generation.
    /// Returns false when no plan is published.
    /// - Realtime: safe.
    @inline(__always)
    public func withCurrentPlan(_ context: RenderContext, _ body: (borrowing RenderPlan) -> Void) -> Bool {
        guard let raw = current.load(ordering: .acquiring) else { return false }
        Unmanaged<RenderPlan>.fromOpaque(raw)._withUnsafeGuaranteedRef { plan in
            acknowledged.store(plan.generation, ordering: .releasing)
            body(plan)
        }
        return true
    }
}
