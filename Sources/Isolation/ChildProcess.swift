import CIsolation
#if canImport(Glibc)
import Glibc
#endif

/// One started child: its pid, a pidfd to see it end, and whether it was reaped (after which
/// its pid may belong to someone else, so nothing signals it any more). Supervisor thread only.
final class ChildProcess {
    let pid: Int32
    let pidfd: Int32
    private var waitStatus: Int32?

    private init(pid: Int32, pidfd: Int32) {
        self.pid = pid
        self.pidfd = pidfd
    }

    deinit {
        kill()
        if pidfd >= 0 { close(pidfd) }
    }

    /// Forks and execs `argv` with the segment as descriptor 3 (see iaa_isolation_spawn).
    static func spawn(_ argv: [String], segment: Int32, memoryLimit: UInt64) throws(IsolationError) -> ChildProcess {
        var cStrings: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for pointer in cStrings { free(pointer) } }
        var limits = iaa_child_limits(address_space: memoryLimit, open_files: 64)
        var pidfd: Int32 = -1
        let pid = cStrings.withUnsafeMutableBufferPointer { buffer in
            iaa_isolation_spawn(argv[0], buffer.baseAddress, segment, &limits, &pidfd)
        }
        guard pid > 0 else {
            throw IsolationError("cannot start \(argv[0]): \(String(cString: strerror(errno)))")
        }
        return ChildProcess(pid: pid, pidfd: pidfd)
    }

    /// Reaps the child if it ended; true when it has.
    func hasEnded() -> Bool {
        if waitStatus != nil { return true }
        var status: Int32 = 0
        guard iaa_isolation_reap(pid, &status) == 1 else { return false }
        waitStatus = status
        return true
    }

    /// Waits for the ended child and says how it ended.
    func reapFault() -> ChildFault {
        if waitStatus == nil {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            waitStatus = status
        }
        let status = waitStatus ?? 0
        // WIFSIGNALED / WTERMSIG / WEXITSTATUS, which Swift's Glibc does not import (macros).
        let signal = status & 0x7f
        if signal != 0 && signal != 0x7f { return .crashed(signal: signal) }
        return .exited(status: (status >> 8) & 0xff)
    }

    /// SIGKILL to the child's process group, then reaps it (no zombie). Safe to repeat.
    func kill() {
        guard waitStatus == nil else { return }
        _ = Glibc.kill(-pid, SIGKILL)
        _ = Glibc.kill(pid, SIGKILL)
        _ = reapFault()
    }

    /// Asks the child to exit at its next wake-up, gives it 100 ms, then kills it.
    func stop(segment: Segment) {
        iaa_isolation_store(segment.stop, 1)
        iaa_futex_wake(segment.request)
        if pidfd >= 0 { _ = iaa_isolation_poll_exit(pidfd, 100) }
        kill()
    }
}
