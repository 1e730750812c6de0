import CIsolation
#if canImport(Glibc)
import Glibc
#endif

/// One started child: its pid, a pidfd to see it end, the read end of its output pipe, and
/// whether it was reaped (after which its pid may belong to someone else, so nothing signals it
/// any more). Supervisor thread only.
final class ChildProcess {
    let pid: Int32
    let pidfd: Int32
    /// The child's stdout and stderr (non-blocking); its lines reach the engine's log through
    /// ``ChildOutput``, tagged.
    let output: Int32
    private var waitStatus: Int32?

    private init(pid: Int32, pidfd: Int32, output: Int32) {
        self.pid = pid
        self.pidfd = pidfd
        self.output = output
    }

    deinit {
        kill()
        if pidfd >= 0 { close(pidfd) }
        close(output)
    }

    /// Forks and execs `argv` with the segment as descriptor 3 and a new pipe as its stdout and
    /// stderr (see iaa_isolation_spawn); the pipe's write end is then only in the child.
    /// How long the child's threads have run on a CPU (ns, `/proc/PID/task/*/schedstat`) and
    /// whether one of them is runnable now (state `R`: running, or waiting for a CPU); nil once
    /// it is gone.
    func schedulerState() -> (ran: UInt64, runnable: Bool)? {
        guard let tasks = opendir("/proc/\(pid)/task") else { return nil }
        defer { closedir(tasks) }
        var ran: UInt64 = 0, runnable = false
        while let entry = readdir(tasks) {
            let task = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard task.first?.isNumber == true else { continue }
            if let times = Self.read("/proc/\(pid)/task/\(task)/schedstat"), let first = times.split(separator: " ").first {
                ran &+= UInt64(first) ?? 0
            }
            // `PID (COMM) STATE …`: the state follows the command's closing parenthesis.
            if let stat = Self.read("/proc/\(pid)/task/\(task)/stat"), let close = stat.lastIndex(of: ")"),
               stat[stat.index(after: close)...].dropFirst().first == "R" {
                runnable = true
            }
        }
        return (ran, runnable)
    }

    private static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = Glibc.read(fd, &buffer, buffer.count)
        return count > 0 ? String(decoding: buffer.prefix(count), as: UTF8.self) : nil
    }

    static func spawn(_ argv: [String], segment: Int32, memoryLimit: UInt64) throws(IsolationError) -> ChildProcess {
        var pipe: [Int32] = [-1, -1]
        guard iaa_isolation_output_pipe(&pipe) == 0 else {
            throw IsolationError("cannot make the output pipe for \(argv[0]): \(String(cString: strerror(errno)))")
        }
        var cStrings: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for pointer in cStrings { free(pointer) } }
        var limits = iaa_child_limits(address_space: memoryLimit, open_files: 64)
        var pidfd: Int32 = -1
        let pid = cStrings.withUnsafeMutableBufferPointer { buffer in
            iaa_isolation_spawn(argv[0], buffer.baseAddress, segment, pipe[1], &limits, &pidfd)
        }
        let failure = errno
        close(pipe[1])
        guard pid > 0 else {
            close(pipe[0])
            throw IsolationError("cannot start \(argv[0]): \(String(cString: strerror(failure)))")
        }
        return ChildProcess(pid: pid, pidfd: pidfd, output: pipe[0])
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
        let signal = iaa_wait_signal(status)
        return signal != 0 ? .crashed(signal: signal) : .exited(status: iaa_wait_exit_code(status))
    }

    /// SIGKILL to the child's process group, then reaps it (no zombie). Safe to repeat. Its exit
    /// runs off the audio thread's CPU and only when a CPU is idle (``iaa_retire_process``): the
    /// teardown of a child on the CPU it shared with the audio thread took a whole cycle from the
    /// children still running (a reload's old build).
    func kill() {
        guard waitStatus == nil else { return }
        _ = iaa_retire_process(pid)
        _ = Glibc.kill(-pid, SIGKILL)
        _ = Glibc.kill(pid, SIGKILL)
        _ = reapFault()
    }

    /// Asks the child to exit at its next wake-up, gives it 100 ms, then kills it; retired first,
    /// as ``kill()`` retires it.
    func stop(segment: Segment) {
        _ = iaa_retire_process(pid)
        iaa_isolation_store(segment.stop, 1)
        iaa_futex_wake(segment.request)
        if pidfd >= 0 { _ = iaa_isolation_poll_exit(pidfd, 100) }
        kill()
    }
}
