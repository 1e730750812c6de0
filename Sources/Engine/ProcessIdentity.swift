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

    /// The process that is JACK client `name` of this engine's server, or nil when it cannot be
    /// told apart from every other process.
    ///
    /// jack2 does not tell one client another's pid (`jack_get_client_pid` is server-side only).
    /// Two things a jack2 client holds together name it: the Unix socket it listens on for the
    /// server's notifications, bound to `…/jack_NAME_UID_0`, and the futex file of the server it
    /// joined, `/dev/shm/jack_sem.UID_SERVER_NAME`, which it keeps open. The socket's path has
    /// no server in it, so a client of the same name on another server of the same user binds
    /// the same path: only the process holding such a socket *and* this server's futex file for
    /// that name is this server's client. None, or more than one: nil (the caller
    /// refuses where an identity is required). PipeWire's JACK has neither: nil.
    static func ofJackClient(_ name: String, server: JackServerTag) -> ProcessIdentity? {
        let file = JackServerTag.fileName(name)
        guard let table = ProcFile.read("/proc/net/unix") else { return nil }
        var sockets: [String: String] = [:]  // "socket:[INODE]" -> the uid in the path
        let prefix = "jack_" + file + "_"
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 8, let path = fields.last, let slash = path.lastIndex(of: "/") else { continue }
            let base = path[path.index(after: slash)...]
            guard base.hasPrefix(prefix), base.hasSuffix("_0") else { continue }
            let uid = base.dropFirst(prefix.count).dropLast(2)
            guard !uid.isEmpty, uid.allSatisfy(\.isNumber) else { continue }
            sockets["socket:[\(fields[6])]"] = String(uid)
        }
        guard !sockets.isEmpty else { return nil }
        var found: Set<Int32> = []
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in processes {
            guard let pid = Int32(entry), pid != getpid() else { continue }
            let folder = "/proc/\(entry)/fd"
            guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
            var uids: Set<String> = [], files: Set<String> = []
            for descriptor in descriptors {
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + descriptor) else { continue }
                if let uid = sockets[target] { uids.insert(uid) } else if target.hasPrefix("/dev/shm/jack_sem.") { files.insert(target) }
            }
            if uids.contains(where: { files.contains("/dev/shm/jack_sem.\($0)_\(server.name)_\(file)") }) { found.insert(pid) }
        }
        return found.count == 1 ? found.first.map { ProcessIdentity(pid: $0) } : nil
    }

    private static func uid(of pid: Int32) -> UInt32? {
        guard let status = ProcFile.read("/proc/\(pid)/status"),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Uid:") }) else { return nil }
        return line.split(whereSeparator: { $0 == "\t" || $0 == " " }).dropFirst().first.flatMap { UInt32($0) }
    }
}

/// The name jack2 gives this engine's server in the files its clients share
/// (`/dev/shm/jack_sem.UID_SERVER_CLIENT`): read back from the engine's own futex file, which
/// spells it exactly as libjack does; else the name the engine asked for.
struct JackServerTag: Sendable, Equatable {
    let name: String

    init(ownClient: String, requested: String?) {
        name = Self.fromOwnFiles(ownClient: ownClient) ?? requested ?? ProcessInfo.processInfo.environment["JACK_DEFAULT_SERVER"] ?? "default"
    }

    init(name: String) {
        self.name = name
    }

    /// jack2 writes '/' and '\\' in a client name as '_' in its file names.
    static func fileName(_ client: String) -> String {
        String(client.map { $0 == "/" || $0 == "\\" ? "_" : $0 })
    }

    /// The SERVER of the engine's own `jack_sem.UID_SERVER_CLIENT` among its descriptors. A
    /// client holds every client's file of its server, so a name with '_' in it could be read
    /// two ways: the server is the one that also has jack2's own `…_freewheel` file.
    private static func fromOwnFiles(ownClient: String) -> String? {
        let folder = "/proc/self/fd"
        guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return nil }
        let prefix = "/dev/shm/jack_sem.\(getuid())_"
        let files = Set(descriptors.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + $0) }
            .filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) })
        let suffix = "_" + fileName(ownClient)
        return files.filter { $0.hasSuffix(suffix) && $0.count > suffix.count }.map { String($0.dropLast(suffix.count)) }
            .first { files.contains($0 + "_freewheel") }
    }
}

/// A file under /proc, read whole: Foundation's `String(contentsOfFile:)` stops after 4 KiB of a
/// file whose size the kernel reports as 0, which cut off `/proc/net/unix` on a busy machine.
public enum ProcFile {
    public static func read(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return count == 0 ? String(decoding: bytes, as: UTF8.self) : nil }
            bytes += chunk[..<count]
        }
    }
}
