import Foundation
import Isolation
import PluginHost
import Synchronization

/// Describes untrusted native plugin libraries through a sandboxed child
/// (`iaa isolated-node --describe`), so their code never runs in the engine while it checks a
/// graph (docs/isolation.md, "The describe child"). Descriptions are kept per path and
/// file identity: a graph with many apps of one library, or a second `apply` of an unchanged one,
/// starts one child. Control side.
public enum LibraryDescriber {
    /// How long a describe child may take before it is killed.
    public static let timeoutSeconds = 5.0

    private static let described = Mutex<[String: LibraryDescription]>([:])

    /// The sandbox ``GraphLoading`` and the inspection commands resolve plugins with: the trust
    /// rule of ``IsolationPolicy``, and ``describe(_:)`` for everything it does not trust.
    public static var sandbox: PluginResolver.Sandbox {
        PluginResolver.Sandbox(trust: .fromEnvironment(), describe: describe)
    }

    /// The description of the library at `path` (a file): the one kept for the file as it is now,
    /// else a new one from a describe child.
    @Sendable public static func describe(_ path: String) -> Result<LibraryDescription, PluginLoadError> {
        guard let identity = LibraryFileIdentity(path: path) else {
            return .failure(PluginLoadError(.notAPlugin, "\(path) could not be read: \(String(cString: strerror(errno)))",
                                            hint: "check the file's permissions"))
        }
        if let known = described.withLock({ $0[path] }), known.identity == identity { return .success(known) }
        let argv = [IsolationPolicy.childExecutable(), "isolated-node", "--describe",
                    "--plugin", PluginResolver.absolute(path), "--directory", "/"]
        switch DescribeChild.run(argv, library: path, timeoutSeconds: timeoutSeconds) {
        case .failure(let error):
            return .failure(PluginLoadError(.notAPlugin, error.description,
                                            hint: "the engine opens a library outside its trusted folders only in a sandboxed child (docs/isolation.md); the child's lines above, if any, say what the library tried"))
        case .success(let answer):
            do {
                let description = try LibraryDescriptionWire.decode(answer, path: path, identity: identity)
                // Kept only when the file did not change while it was described.
                if LibraryFileIdentity(path: path) == identity { described.withLock { $0[path] = description } }
                return .success(description)
            } catch {
                return .failure(error)
            }
        }
    }
}
