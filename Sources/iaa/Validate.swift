import ArgumentParser
import AudioGraph
import GraphFormat
import Engine

/// `iaa validate GRAPH… [--timeline FILE]`: every error, located, in the form compilers use.
struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check graph files and print every error with file:line:column and a hint.",
        discussion: """
            Exits 1 when any file has an error. Warnings do not fail. With --timeline, the timeline is \
            checked against the one graph named, as `iaa render --timeline` reads it (the graphs its \
            `apply` entries name included), without rendering.
            """)

    @Argument(help: "Graph files.", completion: .file(extensions: ["json"]))
    var graphs: [String]

    @Flag(help: "Print the diagnostics as one JSON array on stdout.")
    var json = false

    @Option(help: ArgumentHelp("Hold the graphs to this grants file, as `iaa run --grants` would.", valueName: "file"),
            completion: .file(extensions: ["json"]))
    var grants: String?

    @Option(help: ArgumentHelp("Check this timeline against the graph, as `iaa render --timeline` would.", valueName: "file"),
            completion: .file(extensions: ["json"]))
    var timeline: String?

    func validate() throws {
        if graphs.isEmpty { throw ValidationError("name at least one graph file") }
        if timeline != nil, graphs.count > 1 {
            throw ValidationError("a timeline is checked against one graph: name only the graph it drives")
        }
    }

    func run() throws {
        var failed = false
        var all: [Diagnostic] = []
        var bound: Grants?
        if let grants {
            let loaded = GrantsFile.load(path: grants)
            guard let allowed = loaded.grants else {
                if json { print("[" + loaded.diagnostics.map(\.json).joined(separator: ",") + "]") } else {
                    StandardError.write(loaded.diagnostics.map(\.formatted).joined(separator: "\n"), level: .error)
                }
                throw ExitCode(1)
            }
            bound = allowed
        }
        var loadedGraph: Graph?
        for path in graphs {
            let result = GraphLoading.load(path, grants: bound)
            all += result.diagnostics
            loadedGraph = result.graph
            if result.graph == nil { failed = true }
            guard !json else { continue }
            if !result.diagnostics.isEmpty { StandardError.write(GraphLoading.report(result), level: .error) }
            if let graph = result.graph {
                // programs.admit: which programs the graph will add as apps while it runs.
                let admits = graph.admission.map { ", admits up to \($0.limit) programs \($0.binding.jackClient ?? "")" } ?? ""
                print("\(path): valid (\(graph.apps.count) apps, \(graph.connections.count) connections, \(graph.externalConnections.count) JACK connections\(admits))")
            }
        }
        if let timeline {
            // A timeline names the graph's apps, so it is read only against a graph that loaded.
            if let graph = loadedGraph {
                let result = TimelineFile.load(path: timeline, graph: graph, registry: GraphLoading.registry)
                all += result.diagnostics
                if result.entries == nil { failed = true }
                if !json { report(result, of: timeline) }
            } else if !json {
                StandardError.write("\(timeline): not checked: the graph it drives has errors", level: .error)
            }
        }
        if json { print("[" + all.map(\.json).joined(separator: ",") + "]") }
        if failed { throw ExitCode(1) }
    }

    private func report(_ result: TimelineLoadResult, of timeline: String) {
        if !result.diagnostics.isEmpty {
            StandardError.write(result.diagnostics.map(\.formatted).joined(separator: "\n"), level: .error)
        }
        guard let entries = result.entries else { return }
        // Seconds as written in timelines: `2`, `0.5`.
        let last = entries.last.map { ", the last at \($0.time.rounded() == $0.time ? String(Int($0.time)) : String($0.time)) s" } ?? ""
        print("\(timeline): valid (\(entries.count) entries\(last))")
    }
}
