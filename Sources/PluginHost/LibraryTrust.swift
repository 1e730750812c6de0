import Foundation

/// Which native plugin libraries the engine trusts with its own process (docs/isolation.md,
/// "Trusted code"): those whose resolved path lies under a folder only root writes
/// (``systemFolders``) or under a folder of `IAA_TRUSTED_PATH`. One rule for two decisions: where
/// `auto` runs a library's nodes (``IsolationPolicy``), and whether the engine may open the
/// library to read its descriptors or must ask a sandboxed describe child (``PluginResolver``).
public struct LibraryTrust: Sendable, Hashable {
    /// Folders only root writes.
    public static let systemFolders = ["/usr/lib", "/usr/lib64", "/usr/local/lib"]

    /// The trusted folders, in no particular order.
    public let folders: [String]

    public init(folders: [String]) {
        self.folders = folders
    }

    /// The system folders and those of `IAA_TRUSTED_PATH`.
    public static func fromEnvironment() -> LibraryTrust {
        LibraryTrust(folders: systemFolders + PluginResolver.searchPath(from: ProcessInfo.processInfo.environment["IAA_TRUSTED_PATH"]))
    }

    /// Whether the library at `path`, its symbolic links resolved, lies beneath a trusted folder.
    public func trusts(library path: String) -> Bool {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        return folders.contains { folder in
            let prefix = folder.hasSuffix("/") ? folder : folder + "/"
            return resolved.hasPrefix(prefix)
        }
    }
}
