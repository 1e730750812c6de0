/// What loading a timeline gives: its entries when there is no error, and every diagnostic in
/// document order.
public struct TimelineLoadResult: Sendable {
    /// Sorted by time, entries with equal times in file order; nil exactly when there is an error.
    public let entries: [TimelineEntry]?
    public let diagnostics: [Diagnostic]

    public init(entries: [TimelineEntry]?, diagnostics: [Diagnostic]) {
        self.entries = diagnostics.contains(where: \.isError) ? nil : entries
        self.diagnostics = diagnostics
    }

    public var errors: [Diagnostic] { diagnostics.filter(\.isError) }
    public var warnings: [Diagnostic] { diagnostics.filter { !$0.isError } }
}
