import AudioGraph

/// A graph that was refused, with every reason, for callers that throw (`iaa apply`, the engine's
/// control commands). The running graph is left as it was.
public struct GraphError: Error, Sendable {
    public typealias Code = GraphErrorCode

    /// Every diagnostic of the refused graph, errors and warnings, in document order.
    public let diagnostics: [Diagnostic]

    public init(diagnostics: [Diagnostic]) {
        self.diagnostics = diagnostics
    }

    /// The code of the first error, for replies that carry one code.
    public var code: Code? { diagnostics.first(where: \.isError)?.code }
}

extension GraphLoadResult {
    /// The graph, or a ``GraphError`` holding every diagnostic.
    public func get() throws(GraphError) -> Graph {
        guard let graph else { throw GraphError(diagnostics: diagnostics) }
        return graph
    }
}
