import Foundation

/// Which process is at the other end: a JACK client's or a socket peer's pid, user and
/// executable, read from /proc. Control side only (it reads files).
struct ProcessIdentity: Sendable, Equatable {
    let pid: Int32
    /// The real uid of the process (`/proc/PID/status`), nil when it could not be read.
    let uid: UInt32?
    /// `/proc/PID/exe`, nil when it could not be read (the process is gone).
    let executable: String?

    init(pid: Int32) {
        self.pid = pid
        uid = Self.uid(of: pid)
        executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
    }

    init(pid: Int32, uid: UInt32?, executable: String?) {
        self.pid = pid
        self.uid = uid
        self.executable = executable
    }

    /// The process that owns JACK client `name`, or nil when it cannot be told.
    ///
    /// jack2 does not tell one client another's pid (`jack_get_client_pid` is server-side only),
    /// but every jack2 client listens for the server's notifications on a Unix socket bound to
    /// `…/jack_NAME_UID_0`: `/proc/net/unix` gives that socket's inode, and the process holding
    /// it has `socket:[INODE]` among its `/proc/PID/fd`. (PipeWire's JACK has no such socket: nil.)
    /// The path has no server name, so a client of the same name on another server (or one that
    /// just exited) binds the same path: every such socket is a candidate, and the one a living
    /// process holds wins.
    static func ofJackClient(_ name: String) -> ProcessIdentity? {
        guard let table = try? String(contentsOfFile: "/proc/net/unix", encoding: .utf8) else { return nil }
        var targets: Set<String> = []
        let prefix = "jack_" + name + "_"
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 8, let path = fields.last, let slash = path.lastIndex(of: "/") else { continue }
            let file = path[path.index(after: slash)...]
            guard file.hasPrefix(prefix), file.hasSuffix("_0") else { continue }
            let uid = file.dropFirst(prefix.count).dropLast(2)
            guard !uid.isEmpty, uid.allSatisfy(\.isNumber) else { continue }
            targets.insert("socket:[\(fields[6])]")
        }
        guard !targets.isEmpty else { return nil }
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in processes {
            guard let pid = Int32(entry), pid != getpid() else { continue }
            let folder = "/proc/\(entry)/fd"
            guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
            for descriptor in descriptors
            where (try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + descriptor)).map(targets.contains) == true {
                return ProcessIdentity(pid: pid)
            }
        }
        return nil
    }

    private static func uid(of pid: Int32) -> UInt32? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Uid:") }) else { return nil }
        return line.split(whereSeparator: { $0 == "\t" || $0 == " " }).dropFirst().first.flatMap { UInt32($0) }
    }
}
