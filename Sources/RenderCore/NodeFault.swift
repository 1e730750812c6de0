/// Why the engine stopped calling a node's `process`. Set by the audio thread, cleared only by
/// an explicit `iaa enable`.
public enum NodeFault: UInt8, Sendable {
    case none = 0
    /// Its output held NaN or infinity: muted in the same cycle.
    case nonFinite = 1
    /// Its `process` kept overrunning its share of the period: bypassed (inputs pass through to
    /// outputs when the node has as many of each) or muted.
    case deadline = 2
}
