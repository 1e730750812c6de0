import AudioGraph
import Nodes

/// Loads graph files against every node type the engine knows.
public enum GraphLoading {
    /// The node types graphs may use: the built-ins (plugins join here later).
    public static var registry: NodeRegistry { BuiltinNodes.registry }

    public static func load(_ path: String) -> GraphLoadResult {
        GraphFile.load(path: path, registry: registry)
    }

    /// Every diagnostic in GCC form, one per line (hints on their own line).
    public static func report(_ result: GraphLoadResult) -> String {
        result.diagnostics.map(\.formatted).joined(separator: "\n")
    }
}
