#if canImport(Glibc)
import Glibc
#endif

/// The rule every file the engine trusts because of who can write it is held to: the grants
/// file, a plugin library in a trusted folder, the kept state's folder. Whoever can write such a
/// file decides what the engine grants or runs, so it and every folder above it must be owned by
/// root or this user and writable by neither group nor others; a folder above may be writable
/// when it is sticky (`/tmp`), where no one else can rename or remove what is this user's. Each
/// caller words the refusal for what it protects.
public enum OwnershipRule {
    /// What breaks the rule, at which path.
    public enum Problem: Equatable, Sendable {
        /// Owned by someone other than root and this user.
        case owner(path: String, uid: UInt32)
        /// Writable by group or others (and, for a folder, not sticky).
        case mode(path: String, mode: UInt32)
        /// `stat` failed.
        case unreadable(path: String, errno: Int32)

        public var path: String {
            switch self {
            case .owner(let path, _), .mode(let path, _), .unreadable(let path, _): path
            }
        }
    }

    /// The first problem of `path` (itself held to the file rule when `isFile`, else to the folder
    /// rule) and then of every folder above it, or nil. `path` is taken as resolved.
    public static func problem(_ path: String, isFile: Bool) -> Problem? {
        let me = geteuid()
        var current = path
        var file = isFile
        while true {
            var info = stat()
            guard stat(current, &info) == 0 else { return .unreadable(path: current, errno: errno) }
            if info.st_uid != me && info.st_uid != 0 { return .owner(path: current, uid: info.st_uid) }
            if info.st_mode & 0o022 != 0 && (file || info.st_mode & S_ISVTX == 0) {
                return .mode(path: current, mode: UInt32(info.st_mode & 0o7777))
            }
            if current == "/" { return nil }
            file = false
            current = parent(of: current)
        }
    }

    /// `mode` as `chmod` takes it: `0755`.
    public static func octal(_ mode: UInt32) -> String { "0" + String(mode, radix: 8) }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}
