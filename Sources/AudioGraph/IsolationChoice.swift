/// Where an app's node runs (the graph's `isolation` field; docs/isolation.md).
public enum IsolationChoice: String, Sendable, CaseIterable {
    /// In a child process of its own: a crash, hang or NaN silences only this app.
    case process
    /// Inside the engine, on the audio thread.
    case none
    /// `none` for code the engine trusts (built-in, system plugin folders), `process` otherwise.
    case auto
}

/// The graph's `isolation` block.
public struct IsolationConfiguration: Sendable, Hashable {
    /// Apps without an `isolation` field of their own take this; nil: the engine's default.
    public var defaultChoice: IsolationChoice?
    /// Faults within `crashWindowSeconds` after which an isolated app stays off until `iaa enable`.
    public var maxCrashes: Int
    public var crashWindowSeconds: Double

    public init(defaultChoice: IsolationChoice? = nil, maxCrashes: Int = 3, crashWindowSeconds: Double = 60) {
        self.defaultChoice = defaultChoice
        self.maxCrashes = maxCrashes
        self.crashWindowSeconds = crashWindowSeconds
    }
}
