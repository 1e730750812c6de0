import AudioGraph

/// What loading a graph file gives: the validated graph when there is no error, the description
/// when the text could be read as one, and every diagnostic in document order.
public struct GraphLoadResult: Sendable {
    /// Nil exactly when ``errors`` is not empty.
    public let graph: Graph?
    public let description: GraphDescription?
    public let diagnostics: [Diagnostic]

    public init(graph: Graph?, description: GraphDescription?, diagnostics: [Diagnostic]) {
        let failed = diagnostics.contains(where: \.isError)
        self.graph = failed ? nil : graph
        self.description = description
        self.diagnostics = diagnostics
    }

    public var errors: [Diagnostic] { diagnostics.filter(\.isError) }
    public var warnings: [Diagnostic] { diagnostics.filter { !$0.isError } }
}
