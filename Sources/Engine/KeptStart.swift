import ControlSocket
import GraphFormat
import StateStore

/// What an engine's start made of the state kept for its client (docs/state.md): it resumed it,
/// the graph file won over it, or there was none; and what had to be discarded.
struct KeptStart {
    typealias Outcome = KeptStateStatus.Start.Outcome

    var outcome = Outcome.none
    /// Journal records replayed onto the snapshot.
    var replayed = 0
    /// What the kept state had that the changed graph file does not.
    var dropped: [String] = []
    /// What could not be read or used, and why.
    var discarded: [String] = []

    /// As `status` shows it.
    var status: KeptStateStatus.Start {
        KeptStateStatus.Start(outcome: outcome, replayed: replayed, dropped: dropped, discarded: discarded)
    }

    /// The graph to run and what the start made of the kept state: the snapshot's graph with the
    /// journal replayed when `fileText` is the text the state grew from, else the file's own.
    static func choose(_ opened: StateKeeper.Opened, path: String, fileText: String, file: GraphLoadResult,
                       grants: Grants?) -> (loaded: GraphLoadResult, held: [[String]], start: KeptStart) {
        var start = KeptStart(discarded: opened.discarded)
        guard let snapshot = opened.snapshot else { return (file, [], start) }
        var kept = KeptGraph(text: snapshot.graph, held: snapshot.held)
        if kept == nil { start.discarded.append("\(opened.keeper.snapshotPath): its graph is not a JSON object") }
        for (offset, record) in opened.records.enumerated() {
            guard let change = KeptChange(kind: record.kind, body: record.body) else {
                let later = opened.records.count - offset - 1
                start.discarded.append("journal record \(record.seq) (\(record.kind)) cannot be read by this iaa; it and the \(later) after it are discarded")
                break
            }
            kept?.apply(change)
            start.replayed += 1
        }
        guard let kept else { return (file, [], start) }
        let loaded = GraphFile.load(text: kept.text, file: path, registry: GraphLoading.registry, grants: grants)
        guard snapshot.sourceText == fileText else {
            start.outcome = .fileChanged
            start.replayed = 0
            if let keptGraph = loaded.graph, let fileGraph = file.graph {
                start.dropped = dropped(GraphDiff(old: keptGraph, new: fileGraph)) + kept.held.map { "the removal by hand of \($0[0]) -> \($0[1])" }
            } else {
                start.dropped = ["the kept state (\(opened.records.count) changes after its snapshot), which no longer loads"]
            }
            return (file, [], start)
        }
        guard loaded.graph != nil, loaded.description != nil else {
            start.replayed = 0
            start.discarded.append("the kept graph no longer loads, so the graph file runs:\n" + GraphLoading.report(loaded))
            return (file, [], start)
        }
        start.outcome = .resumed
        return (loaded, kept.held, start)
    }

    /// What running the file instead of the kept graph gives up, one line each.
    private static func dropped(_ diff: GraphDiff) -> [String] {
        diff.appsRemoved.map { "app \($0)" } + diff.appsChanged.map { "the parameters, session or configuration of \($0)" }
            + diff.connectionsRemoved.map { "connection \($0)" } + diff.jackConnectionsRemoved.map { "JACK connection \($0)" }
    }

    /// The lines stderr gets at start.
    var report: [String] {
        var lines = discarded.map { "kept state: discarded: \($0)" }
        switch outcome {
        case .none: break
        case .resumed: lines.append("kept state: resumed, with \(replayed) \(replayed == 1 ? "change" : "changes") after the snapshot")
        case .fileChanged:
            lines.append("kept state: the graph file changed since the state was kept, so the file runs"
                         + (dropped.isEmpty ? "" : "; dropped: " + dropped.joined(separator: "; ")))
        }
        return lines
    }
}
