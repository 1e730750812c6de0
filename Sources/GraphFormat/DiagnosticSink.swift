import AudioGraph

/// Collects diagnostics for one file, locating each by its JSON pointer through a ``SourceMap``.
struct DiagnosticSink {
    let file: String
    let sourceMap: SourceMap
    private(set) var diagnostics: [Diagnostic] = []

    init(file: String, sourceMap: SourceMap) {
        self.file = file
        self.sourceMap = sourceMap
    }

    /// Reports at the value `pointer` names (or at the key, for key errors such as `unknownKey`).
    mutating func error(_ code: GraphErrorCode, at pointer: String, atKey: Bool = false,
                        _ message: String, hint: String? = nil) {
        add(.error, code, pointer, atKey, message, hint)
    }

    mutating func warning(_ code: GraphErrorCode, at pointer: String, atKey: Bool = false,
                          _ message: String, hint: String? = nil) {
        add(.warning, code, pointer, atKey, message, hint)
    }

    private mutating func add(_ severity: Diagnostic.Severity, _ code: GraphErrorCode, _ pointer: String,
                              _ atKey: Bool, _ message: String, _ hint: String?) {
        let location = atKey ? sourceMap.keyLocation(of: pointer) : sourceMap.location(of: pointer)
        diagnostics.append(Diagnostic(severity: severity, code: code, file: file, line: location?.line,
                                      column: location?.column, pointer: pointer, message: message, hint: hint))
    }

    /// The diagnostics in document order.
    var sorted: [Diagnostic] { diagnostics.inDocumentOrder() }
}

extension [Diagnostic] {
    /// Sorted by line and column, stably; diagnostics without a location go last, in their order.
    func inDocumentOrder() -> [Diagnostic] {
        enumerated().sorted { lhs, rhs in
            let left = (lhs.element.line ?? Int.max, lhs.element.column ?? Int.max, lhs.offset)
            let right = (rhs.element.line ?? Int.max, rhs.element.column ?? Int.max, rhs.offset)
            return left < right
        }.map(\.element)
    }
}
