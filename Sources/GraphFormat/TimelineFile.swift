import AudioGraph

/// Loads scenario timelines, `{"timeline": [{"at": SECONDS, "do": ACTION, …}]}`, against the graph
/// they drive.
///
/// Parsed as strictly as graph files, with the same located diagnostics, so that `iaa render
/// --timeline` reports every mistake in one run. The session policy's actions name apps of the
/// graph that have a session; `midi`, `setParam`, `connect` and `disconnect` name any app (MIDI
/// only one with a MIDI input); `apply` replaces the graph, and later entries name its apps.
/// What may be refused at run time is left to run time, since a scenario may test exactly that
/// refusal: an option the category does not accept (the policy),
/// a connection Inter-App Audio forbids or a disconnection of nothing (the engine).
public enum TimelineFile {
    /// Loads the file at `path`; a missing or unreadable file is an `io` diagnostic. `registry`
    /// validates the graphs `apply` entries name; without it they are refused.
    public static func load(path: String, graph: Graph, registry: NodeRegistry? = nil) -> TimelineLoadResult {
        switch GraphDecoder.read(path: path) {
        case .text(let text):
            return load(text: text, file: path, graph: graph, registry: registry)
        case .failure(let diagnostic):
            return TimelineLoadResult(entries: nil, diagnostics: [diagnostic])
        }
    }

    /// Loads timeline text; `file` names it in diagnostics, and a `.yaml`/`.yml` name reads YAML.
    public static func load(text: String, file: String, graph: Graph, registry: NodeRegistry? = nil) -> TimelineLoadResult {
        let decoded = GraphDecoder.decode(text: text, file: file,
                                          emptyHint: "a timeline is a JSON object: { \"timeline\": [ … ] }")
        guard let root = decoded.root else {
            return TimelineLoadResult(entries: nil, diagnostics: decoded.diagnostics)
        }
        var reader = TimelineReader(file: file, root: root, graph: graph, registry: registry)
        let entries = reader.read(root)
        let diagnostics = (decoded.diagnostics + reader.sink.diagnostics).inDocumentOrder()
        return TimelineLoadResult(entries: entries, diagnostics: diagnostics)
    }
}
