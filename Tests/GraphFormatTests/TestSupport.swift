import AudioGraph
import GraphFormat
import Foundation
import NodeKit
import TestKit
import Testing

/// A node that copies its first input to its first output, for registries built in tests.
final class CopyNode: AudioNode {
    func process(_ context: ProcessContext) {}
}

/// Graphs shared by the graph-format tests.
enum TestSupport {
    /// Graph files (and timelines of graphs) that load with the built-in node types alone: those
    /// naming LV2 or LADSPA plugins need the plugin host (PluginHost), which this target does not
    /// link; PluginHostTests and EngineTests validate and render them with the engine's resolver.
    static func loadsWithBuiltins(_ path: String) -> Bool {
        let graph = path.hasSuffix(".timeline.json") ? path.replacing(".timeline.json", with: ".json") : path
        let text = Repository.read(graph) ?? ""
        return !text.contains("\"lv2:") && !text.contains("\"ladspa:")
    }

    /// Graphs naming LV2 or LADSPA plugins need the plugin host (PluginHost), which this target
    /// does not link; EngineTests validates and renders them with the engine's resolver.
    static func needsPluginHost(_ path: String) -> Bool {
        !loadsWithBuiltins(path)
    }

    /// Loads a file given relative to the package root, naming it relatively in diagnostics.
    static func load(_ relativePath: String, registry: NodeRegistry = registry) -> GraphLoadResult {
        guard let text = Repository.read(relativePath) else {
            return GraphLoadResult(graph: nil, description: nil, diagnostics: [
                Diagnostic(code: .io, file: relativePath, message: "test could not read the file"),
            ])
        }
        return GraphFile.load(text: text, file: relativePath, registry: registry)
    }

    /// A timeline refused for exactly one mistake, with that code, pointer and hint, on `line`.
    static func expectOnlyError(of result: TimelineLoadResult, code: GraphErrorCode, pointer: String, hint: String?,
                                line: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(result.entries == nil, sourceLocation: sourceLocation)
        #expect(result.errors.count == 1, sourceLocation: sourceLocation)
        let error = try #require(result.errors.first, sourceLocation: sourceLocation)
        #expect(error.code == code, sourceLocation: sourceLocation)
        #expect(error.pointer == pointer, sourceLocation: sourceLocation)
        #expect(error.hint == hint, sourceLocation: sourceLocation)
        #expect(error.line == line && error.column != nil, sourceLocation: sourceLocation)
    }

    static func load(json: String, registry: NodeRegistry = registry) -> GraphLoadResult {
        GraphFile.load(text: json, file: "test.json", registry: registry)
    }
}
