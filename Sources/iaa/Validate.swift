import ArgumentParser
import AudioGraph
import GraphFormat
import Engine

/// `iaa validate GRAPH…`: every error, located, in the form compilers use.
struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check graph files and print every error with file:line:column and a hint.",
        discussion: "Exits 1 when any file has an error. Warnings do not fail.")

    @Argument(help: "Graph files.", completion: .file(extensions: ["json"]))
    var graphs: [String]

    @Flag(help: "Print the diagnostics as one JSON array on stdout.")
    var json = false

    @Option(help: ArgumentHelp("Hold the graphs to this grants file, as `iaa run --grants` would.", valueName: "file"),
            completion: .file(extensions: ["json"]))
    var grants: String?

    func validate() throws {
        if graphs.isEmpty { throw ValidationError("name at least one graph file") }
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
        for path in graphs {
            let result = GraphLoading.load(path, grants: bound)
            all += result.diagnostics
            if result.graph == nil { failed = true }
            guard !json else { continue }
            if !result.diagnostics.isEmpty { StandardError.write(GraphLoading.report(result), level: .error) }
            if let graph = result.graph {
                // programs.admit: which programs the graph will add as apps while it runs.
                let admits = graph.admission.map { ", admits up to \($0.limit) programs \($0.binding.jackClient ?? "")" } ?? ""
                print("\(path): valid (\(graph.apps.count) apps, \(graph.connections.count) connections, \(graph.externalConnections.count) JACK connections\(admits))")
            }
        }
        if json { print("[" + all.map(\.json).joined(separator: ",") + "]") }
        if failed { throw ExitCode(1) }
    }
}
