/// What one `SessionPolicy.apply` decided: the refusal if any, and what the apps are told.
public struct SessionOutcome: Sendable, Equatable {
    /// Nil when the action was accepted. Every error but `isBusy` means nothing changed.
    public let error: SessionError?
    /// In delivery order, each stamped with the session time it happened at.
    public let events: [SessionEvent]
    /// Accepted but worth saying, such as a mode the category does not support.
    public let warnings: [String]

    public var ok: Bool { error == nil }

    public init(error: SessionError? = nil, events: [SessionEvent] = [], warnings: [String] = []) {
        self.error = error
        self.events = events
        self.warnings = warnings
    }
}
