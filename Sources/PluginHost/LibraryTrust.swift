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
    /// trusted for who alone can write it, not for its name. The file must be owned by root or
    /// this user and writable by neither group nor others; every folder above it must be owned
    /// by root or this user and writable by group or others only when sticky (`/tmp`), where no
    /// one else can replace what is there. A 0777 folder under /usr/local/lib is not trusted.
    public static func ownershipProblem(_ path: String) -> String? {
        let me = geteuid()
        var info = stat()
        guard stat(path, &info) == 0 else { return "\(path): \(String(cString: strerror(errno)))" }
        if info.st_uid != me && info.st_uid != 0 { return "\(path) is owned by uid \(info.st_uid), not by root or this user" }
        if info.st_mode & 0o022 != 0 { return "\(path) has mode 0\(String(info.st_mode & 0o7777, radix: 8)): group or others may change it" }
        var folder = (path as NSString).deletingLastPathComponent
        while !folder.isEmpty {
            guard stat(folder, &info) == 0 else { return "\(folder): \(String(cString: strerror(errno)))" }
            if info.st_uid != me && info.st_uid != 0 { return "\(folder) is owned by uid \(info.st_uid), who could replace what is in it" }
            if info.st_mode & 0o022 != 0 && info.st_mode & S_ISVTX == 0 {
                return "\(folder) has mode 0\(String(info.st_mode & 0o7777, radix: 8)): group or others could replace what is in it"
            }
            if folder == "/" { break }
            folder = (folder as NSString).deletingLastPathComponent
        }
        return nil
    }
}
