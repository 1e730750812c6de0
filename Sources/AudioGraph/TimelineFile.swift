/// Loads scenario timelines, `{"timeline": [{"at": SECONDS, "do": ACTION, …}]}`, against the graph
/// they drive.
///
/// Parsed as strictly as graph files, with the same located diagnostics, so that `iaa render
/// --timeline` reports every mistake in one run. Apps must be apps of the graph that have a
/// session; what the policy may refuse at run time (an option the category does not accept) is
/// left to the policy, since a scenario may test exactly that refusal.
public enum TimelineFile {
    /// Loads the file at `path`; a missing or unreadable file is an `io` diagnostic.
    public static func load(path: String, graph: Graph) -> TimelineLoadResult {
        switch GraphDecoder.read(path: path) {
        case .text(let text):
            return load(text: text, file: path, graph: graph)
        case .failure(let diagnostic):
            return TimelineLoadResult(entries: nil, diagnostics: [diagnostic])
        }
    }

    /// Loads timeline text; `file` names it in diagnostics, and a `.yaml`/`.yml` name reads YAML.
    public static func load(text: String, file: String, graph: Graph) -> TimelineLoadResult {
        let decoded = GraphDecoder.decode(text: text, file: file,
                                          emptyHint: "a timeline is a JSON object: { \"timeline\": [ … ] }")
        guard let root = decoded.root else {
            return TimelineLoadResult(entries: nil, diagnostics: decoded.diagnostics)
        }
        var reader = TimelineReader(file: file, root: root, graph: graph)
        let entries = reader.read(root)
        let diagnostics = (decoded.diagnostics + reader.sink.diagnostics).inDocumentOrder()
        return TimelineLoadResult(entries: entries, diagnostics: diagnostics)
    }
}
