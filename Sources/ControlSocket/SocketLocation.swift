#if canImport(Glibc)
import Glibc
#endif

/// Where control sockets live, and the checks that keep their directory private.
public enum SocketLocation {
    /// `$XDG_RUNTIME_DIR/iaa/CLIENT.sock`, or `/tmp/iaa-$UID/CLIENT.sock` without a runtime directory.
    /// Named after the JACK client, so several engines (one per client name) coexist.
    public static func defaultPath(client: String) -> String {
        "\(defaultDirectory())/\(client).sock"
    }

    /// `$XDG_RUNTIME_DIR/iaa`, or `/tmp/iaa-$UID`. A relative XDG_RUNTIME_DIR is ignored, as the
    /// XDG Base Directory specification says it must be.
    public static func defaultDirectory() -> String {
        if let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), runtime.hasPrefix("/") {
            return runtime.hasSuffix("/") ? "\(runtime)iaa" : "\(runtime)/iaa"
        }
        return "/tmp/iaa-\(geteuid())"
    }

    /// The lock file beside a socket: `NAME.sock` → `NAME.lock`, any other path gets `.lock` appended.
    static func lockPath(forSocket path: String) -> String {
        path.hasSuffix(".sock") ? String(path.dropLast(5)) + ".lock" : path + ".lock"
    }

    /// The engine name shown in messages: the socket's file name without `.sock`.
    static func engineName(forSocket path: String) -> String {
        let file = path.split(separator: "/").last.map(String.init) ?? path
        return file.hasSuffix(".sock") ? String(file.dropLast(5)) : file
    }

    /// The directory part of a path (`.` for a bare file name).
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Creates `path` as a 0700 directory if it is missing, then insists it is a real directory,
    /// owned by us and closed to group and others. The check runs on what exists, not only on what
    /// we create, because `/tmp/iaa-$UID` can be planted by another user before we first run.
    static func preparePrivateDirectory(_ path: String) throws(ControlSocketError) {
        if mkdir(path, 0o700) == 0 {
            // mkdir's mode passes through the umask; a umask can only remove bits, but say it anyway.
            _ = chmod(path, 0o700)
        } else if errno != EEXIST {
            throw .system("mkdir", path)
        }
        var info = stat()
        guard lstat(path, &info) == 0 else { throw .system("lstat", path) }
        let me = geteuid()
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw ControlSocketError(.insecureDirectory,
                "socket directory \(path) is not a directory (a symlink or file is in the way); remove it")
        }
        guard info.st_uid == me else {
            throw ControlSocketError(.insecureDirectory,
                "socket directory \(path) is owned by uid \(info.st_uid), not by you (uid \(me)); remove it, or use XDG_RUNTIME_DIR or --socket PATH")
        }
        let mode = info.st_mode & 0o7777
        guard mode & 0o077 == 0 else {
            throw ControlSocketError(.insecureDirectory,
                "socket directory \(path) has mode 0\(String(mode, radix: 8)); it must be private (chmod 700 \(path))")
        }
    }
}
