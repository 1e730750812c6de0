import FileTrust
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

    /// Whether the library at `path`, its symbolic links resolved, lies beneath a trusted folder
    /// and no one but root or this user can have put it there (``ownershipProblem(_:)``).
    public func trusts(library path: String) -> Bool {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let beneath = folders.contains { folder in
            let prefix = folder.hasSuffix("/") ? folder : folder + "/"
            return resolved.hasPrefix(prefix)
        }
        return beneath && Self.ownershipProblem(resolved) == nil
    }

    /// Why a library at `path` (resolved) may be someone else's, or nil: a trusted folder is
    /// trusted for who alone can write it, not for its name (``OwnershipRule``). A 0777 folder
    /// under /usr/local/lib is not trusted.
    public static func ownershipProblem(_ path: String) -> String? {
        switch OwnershipRule.problem(path, isFile: true) {
        case nil: nil
        case .owner(let owned, let uid) where owned == path: "\(path) is owned by uid \(uid), not by root or this user"
        case .mode(let owned, let mode) where owned == path: "\(path) has mode \(OwnershipRule.octal(mode)): group or others may change it"
        case .owner(let folder, let uid): "\(folder) is owned by uid \(uid), who could replace what is in it"
        case .mode(let folder, let mode): "\(folder) has mode \(OwnershipRule.octal(mode)): group or others could replace what is in it"
        case .unreadable(let unread, let code): "\(unread): \(String(cString: strerror(code)))"
        }
    }
}
