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
        allJSONFiles(in: folder).filter { !$0.hasSuffix(".timeline.json") }
    }

    /// The timelines of a folder (`NAME.timeline.json`), as sorted relative paths.
    static func timelineFiles(in folder: String) -> [String] {
        allJSONFiles(in: folder).filter { $0.hasSuffix(".timeline.json") }
    }

    private static func allJSONFiles(in folder: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: packageRoot + "/" + folder)) ?? []
        return names.filter { $0.hasSuffix(".json") && $0 != "graph.schema.json" }.sorted().map { folder + "/" + $0 }
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

    /// The built-in types' contract (ids, ports, parameters, configuration), independent of the
    /// Nodes module so that a change there cannot hide a validator bug.
    static let registry = NodeRegistry([
        NodeType(id: "builtin:oscillator", displayName: "Oscillator", summary: "A sine.",
                 parameters: [
                     ParameterSpec(name: "frequency", range: 0.01...20000, defaultValue: 440, unit: .hertz),
                     ParameterSpec(name: "amplitude", range: 0...1, defaultValue: 0.5, unit: .linearGain),
                 ],
                 layout: { _ in NodeLayout(inputs: [], outputs: [.output("out")]) },
                 make: { _ in CopyNode() }),
        NodeType(id: "builtin:noise", displayName: "Noise", summary: "White noise.",
                 parameters: [ParameterSpec(name: "amplitude", range: 0...1, defaultValue: 0.25, unit: .linearGain)],
                 configuration: [ConfigurationSpec(name: "seed", range: 0...2147483647, defaultValue: 1)],
                 layout: { _ in NodeLayout(inputs: [], outputs: [.output("out")]) },
                 make: { _ in CopyNode() }),
        NodeType(id: "builtin:gain", displayName: "Gain", summary: "A gain.",
                 parameters: [ParameterSpec(name: "gain", range: 0...8, defaultValue: 1, unit: .linearGain)],
                 layout: { _ in NodeLayout(inputs: [.input("in")], outputs: [.output("out")]) },
                 make: { _ in CopyNode() }),
        NodeType(id: "builtin:mixer", displayName: "Mixer", summary: "Sums its inputs.",
                 parameters: [ParameterSpec(name: "gain", range: 0...8, defaultValue: 1, unit: .linearGain)],
                 configuration: [ConfigurationSpec(name: "inputs", range: 1...64, defaultValue: 2)],
                 layout: { configuration in
                     let count = configuration.value("inputs", default: 2)
                     return NodeLayout(inputs: (1...max(1, count)).map { .input("in_\($0)") }, outputs: [.output("out")])
                 },
                 make: { _ in CopyNode() }),
        NodeType(id: "builtin:passthrough", displayName: "Passthrough", summary: "Copies.",
                 layout: { _ in NodeLayout(inputs: [.input("in")], outputs: [.output("out")]) },
                 make: { _ in CopyNode() }),
    ])
}
