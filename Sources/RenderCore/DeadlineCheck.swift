/// What the renderer checks each step against this cycle: jack2 never evicts a slow client, so the
/// engine guards itself. `budget == 0` means the check is off (offline, or no recent overrun).
///
/// The backend turns the check on only after a whole cycle overran the budget, so steps are timed
/// only while something is slow: a node over budget in `strikes` consecutive cycles is faulted.
///
/// This guards nodes in process, after the fact: their `process` cannot be interrupted. An
/// isolated node (Isolation's `IsolatedNode`) is bounded before the fact by the same share: the
/// audio thread waits for its child at most that long, is silent for that cycle when it has no
/// answer, and `strikes` such cycles in a row get the child killed and restarted.
public struct DeadlineCheck: BitwiseCopyable, Sendable {
    /// Nanoseconds one step may take (a share of the period).
    public let budget: UInt64
    /// The backend's cycle counter, so a streak counts only consecutive cycles.
    public let cycle: Int64
    /// Consecutive cycles over budget that fault the node.
    public let strikes: Int

    public static let off = DeadlineCheck(budget: 0, cycle: 0, strikes: 0)

    public init(budget: UInt64, cycle: Int64, strikes: Int = 3) {
        self.budget = budget
        self.cycle = cycle
        self.strikes = strikes
    }
}
