#if canImport(Glibc)
import Glibc
#endif

/// The `NAME.lock` file an engine holds with `flock` for as long as it serves `NAME.sock`.
///
/// The lock, not the socket file, says whether an engine is alive: the kernel drops a flock when its
/// holder dies, even by SIGKILL, so a socket left behind by a killed engine is safe to remove, and
/// one whose lock is held is never touched. The holder's pid is written into the file for the
/// message the next engine prints.
final class SocketLock {
    private var fd: Int32

    /// Takes the lock without waiting, or fails naming the engine that holds it.
    init(path: String, engineName: String) throws(ControlSocketError) {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw .system("open", path) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            let holder = Self.readPID(fd)
            close(fd)
            guard code == EWOULDBLOCK else { throw .system("flock", path, errno: code) }
            let who = holder.map { " (pid \($0))" } ?? ""
            throw ControlSocketError(.engineRunning,
                "another iaa engine '\(engineName)' is running\(who); stop it, or start this one with another -n CLIENT or --socket PATH")
        }
        var text = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pwrite(fd, &text, text.count, 0)
        self.fd = fd
    }

    deinit { release() }

    /// Releases the lock (closing the descriptor is what releases a flock). Idempotent. The file
    /// stays: removing it could let two engines lock two different files of the same name.
    func release() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
    }

    private static func readPID(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(fd, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[..<count], as: UTF8.self)
        return text.split(whereSeparator: \.isWhitespace).first.flatMap { Int32($0) }
    }
}
