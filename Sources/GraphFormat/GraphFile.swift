import AudioGraph

/// Loads `iaa-graph/1` files: decode with locations, read the description, validate.
///
/// What `iaa validate`, `iaa run` and `iaa render` call. Every error in the file is reported,
/// not just the first; the graph is produced only when there is none.
public enum GraphFile {
    /// Loads the file at `path`; a missing or unreadable file is an `io` diagnostic. Diagnostics
    /// name the file as `path` is written, so that relative paths print relative.
    public static func load(path: String, registry: NodeRegistry, grants: Grants? = nil) -> GraphLoadResult {
        switch GraphDecoder.read(path: path) {
        case .text(let text):
            return load(text: text, file: path, registry: registry, grants: grants)
        case .failure(let diagnostic):
            return GraphLoadResult(graph: nil, description: nil, diagnostics: [diagnostic])
        }
    }

    /// Loads graph text; `file` names it in diagnostics, and a `.yaml`/`.yml` name reads YAML
    /// instead of strict JSON. With `grants`, the graph may grant no entitlement they do not allow.
    public static func load(text: String, file: String, registry: NodeRegistry, grants: Grants? = nil) -> GraphLoadResult {
        let decoded = GraphDecoder.decode(text: text, file: file)
        guard let root = decoded.root else {
            return GraphLoadResult(graph: nil, description: nil, diagnostics: decoded.diagnostics)
        }
        var reader = DescriptionReader(file: file, root: root)
        guard let description = reader.read(root) else {
            return GraphLoadResult(graph: nil, description: nil, diagnostics: (decoded.diagnostics + reader.sink.diagnostics).inDocumentOrder())
        }
        let validated = Validator.validate(description, file: file, registry: registry, grants: grants)
        let diagnostics = (decoded.diagnostics + reader.sink.diagnostics + validated.diagnostics).inDocumentOrder()
        return GraphLoadResult(graph: validated.graph, description: description, diagnostics: diagnostics)
    }
}
