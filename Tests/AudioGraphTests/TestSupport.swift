import AudioGraph
import Foundation
import NodeKit

/// A node that copies its first input to its first output, for registries built in tests.
final class CopyNode: AudioNode {
    func process(_ context: ProcessContext) {}
}

/// Paths and graphs shared by the AudioGraph tests.
enum TestSupport {
    /// The package root, found from this file's path so that tests run from any directory.
    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// The graph files of a folder relative to the package root, as sorted relative paths: its JSON
    /// files except the schema and timelines (`NAME.timeline.json`, which drive graph `NAME.json`).
    static func jsonFiles(in folder: String) -> [String] {
        allJSONFiles(in: folder).filter { !$0.hasSuffix(".timeline.json") && !$0.hasSuffix(".grants.json") }
    }

    /// The timelines of a folder (`NAME.timeline.json`), as sorted relative paths.
    static func timelineFiles(in folder: String) -> [String] {
        allJSONFiles(in: folder).filter { $0.hasSuffix(".timeline.json") }
    }

    /// Graph files (and timelines of graphs) that load with the built-in node types alone: those
    /// naming LV2 or LADSPA plugins need the plugin host (PluginHost), which this target does not
    /// link; PluginHostTests and EngineTests validate and render them with the engine's resolver.
    static func loadsWithBuiltins(_ path: String) -> Bool {
        let graph = path.hasSuffix(".timeline.json") ? path.replacing(".timeline.json", with: ".json") : path
        let text = read(graph) ?? ""
        return !text.contains("\"lv2:") && !text.contains("\"ladspa:")
    }

    private static func allJSONFiles(in folder: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: packageRoot + "/" + folder)) ?? []
        return names.filter { $0.hasSuffix(".json") && $0 != "graph.schema.json" }.sorted().map { folder + "/" + $0 }
    }

    /// Graphs naming LV2 or LADSPA plugins need the plugin host (PluginHost), which this target
    /// does not link; EngineTests validates and renders them with the engine's resolver.
    static func needsPluginHost(_ path: String) -> Bool {
        let text = read(path) ?? ""
        return text.contains("\"lv2:") || text.contains("\"ladspa:")
    }

    static func read(_ relativePath: String) -> String? {
        try? String(contentsOfFile: packageRoot + "/" + relativePath, encoding: .utf8)
    }

    /// Loads a file given relative to the package root, naming it relatively in diagnostics.
    static func load(_ relativePath: String, registry: NodeRegistry = registry) -> GraphLoadResult {
        guard let text = read(relativePath) else {
            return GraphLoadResult(graph: nil, description: nil, diagnostics: [
                Diagnostic(code: .io, file: relativePath, message: "test could not read the file"),
            ])
        }
        return GraphFile.load(text: text, file: relativePath, registry: registry)
    }

    static func load(json: String, registry: NodeRegistry = registry) -> GraphLoadResult {
        GraphFile.load(text: json, file: "test.json", registry: registry)
    }
}
