import AudioGraph
import GraphFormat
import Nodes
import PluginHost

/// Loads graph files against every node type the engine knows.
public enum GraphLoading {
    /// The node types graphs may use: the built-ins, and plugin libraries named by path (relative
    /// to the graph file's folder) or by a name found on `IAA_PLUGIN_PATH`. A native library the
    /// engine does not trust is described by a sandboxed child, never opened here.
    public static var registry: NodeRegistry {
        registry(resolver: resolver)
    }

    /// `IAA_PLUGIN_PATH`, with untrusted native libraries described by a sandboxed child
    /// (``LibraryDescriber``): what the engine and the inspection commands open libraries with.
    public static var resolver: PluginResolver {
        PluginResolver.fromEnvironment().sandboxed(LibraryDescriber.sandbox)
    }

    /// The built-ins and the plugins `resolver` finds. The isolated child passes a resolver
    /// without a sandbox: it is the sandbox, and opens its one library itself.
    public static func registry(resolver: PluginResolver) -> NodeRegistry {
        var registry = NodeRegistry(BuiltinNodes.types)
        registry.resolver = { plugin, directory in
            resolver.resolve(plugin, graphDirectory: directory).mapError(resolutionError)
        }
        return registry
    }

    /// A plugin library's load error as the validator reports it, under the error code of the
    /// same name.
    public static func resolutionError(_ error: PluginLoadError) -> PluginResolutionError {
        PluginResolutionError(code: GraphErrorCode(rawValue: error.code.rawValue) ?? .notAPlugin, message: error.message, hint: error.hint)
    }

    public static func load(_ path: String, grants: Grants? = nil) -> GraphLoadResult {
        GraphFile.load(path: path, registry: registry, grants: grants)
    }

    /// The grants file at `path` (ownership checked, StrictModes-style), or the diagnostics that
    /// refuse it, already reported on stderr.
    public static func loadGrants(_ path: String) -> Grants? {
        let loaded = GrantsFile.load(path: path)
        if !loaded.diagnostics.isEmpty { StandardError.write(loaded.diagnostics.map(\.formatted).joined(separator: "\n"), level: .error) }
        return loaded.grants
    }

    /// Every diagnostic in GCC form, one per line (hints on their own line).
    public static func report(_ result: GraphLoadResult) -> String {
        result.diagnostics.map(\.formatted).joined(separator: "\n")
    }
}
