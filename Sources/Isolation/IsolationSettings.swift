/// How the engine runs isolated nodes: which binary is the child, how long a cycle may wait for
/// it, and when a faulting child is restarted or left off. Control side.
public struct IsolationSettings: Sendable {
    /// The `iaa` binary whose hidden `isolated-node` subcommand is the child.
    public var executable: String
    /// The share of the period the engine waits for the child each cycle (the deadline guard's
    /// share); used when `fixedTimeoutNanoseconds` is nil.
    public var share: Double
    /// A wait per cycle independent of the period: offline renders, which are not real-time,
    /// use one so that a slow machine is not taken for a hung child.
    public var fixedTimeoutNanoseconds: UInt64?
    /// Consecutive cycles without an answer that declare the child hung.
    public var strikes: Int
    /// Faults within `crashWindowSeconds` that leave the app off until `iaa enable`.
    public var maxCrashes: Int
    public var crashWindowSeconds: Double
    /// The first restart's delay, doubled after each fault up to `maximumBackoffSeconds`.
    public var firstBackoffSeconds: Double
    public var maximumBackoffSeconds: Double
    /// How long a child may take to create its node before it counts as a fault.
    public var startTimeoutSeconds: Double
    /// The child's address-space limit (RLIMIT_AS), bytes.
    public var memoryLimit: UInt64
    /// SCHED_FIFO priority for the child (nil: not real-time). Below the audio thread's, so that
    /// the thread preempts a hung child when both share a CPU (``CPUPlacement``).
    public var realtimePriority: Int32?
    /// Where the audio thread and the children run; nil (offline) leaves them to the scheduler.
    public var placement: CPUPlacement?

    public init(executable: String, share: Double = 0.5, fixedTimeoutNanoseconds: UInt64? = nil, strikes: Int = 3,
                maxCrashes: Int = 3, crashWindowSeconds: Double = 60, firstBackoffSeconds: Double = 0.1,
                maximumBackoffSeconds: Double = 5, startTimeoutSeconds: Double = 10, memoryLimit: UInt64 = 1 << 30) {
        self.executable = executable
        self.share = share
        self.fixedTimeoutNanoseconds = fixedTimeoutNanoseconds
        self.strikes = strikes
        self.maxCrashes = maxCrashes
        self.crashWindowSeconds = crashWindowSeconds
        self.firstBackoffSeconds = firstBackoffSeconds
        self.maximumBackoffSeconds = maximumBackoffSeconds
        self.startTimeoutSeconds = startTimeoutSeconds
        self.memoryLimit = memoryLimit
    }
}
