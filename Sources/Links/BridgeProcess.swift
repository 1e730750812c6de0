import CIsolation
import Foundation
import Synchronization

/// A running bridge as the engine holds it: ``BridgeProcess``, or a stand-in in tests.
public protocol Bridge: AnyObject, Sendable {
    /// Ends the bridge and whatever keeps it running.
    func stop()
    /// Ends a pause before the next start now.
    func retryNow()
    /// Ends the running process (as `stop` does) and starts it again after the usual pause.
    func restart()
}

/// Keeps one link's bridge program running: starts it, hands each line it prints and each exit
/// to `report`, starts it again after a pause that doubles while it keeps failing (0.5 s up to
/// 10 s; back to 0.5 s after a run of 10 s), and stops it when asked.
///
/// Each bridge has a thread of its own, which starts the process and outlives it: the process
/// is killed when that thread ends (PR_SET_PDEATHSIG), so a bridge never outlives an engine
/// that crashed, and its UDP port is free for the engine that comes back. The bridge's output
/// goes through `stdbuf -oL` when it is there: zita-njbridge writes with stdio, which would
/// hold a pipe's lines back by the page.
public final class BridgeProcess: Bridge {
    public let executable: String
    public let arguments: [String]
    private let report: @Sendable (BridgeEvent) -> Void
    private let stopping = Atomic<Bool>(false)
    private let restarting = Atomic<Bool>(false)
    private let wakeup: Int32
    private let finished = Mutex<Bool>(false)

    public static let firstPause = 0.5
    public static let longestPause = 10.0
    /// A run this long counts as healthy: the next pause starts again from `firstPause`.
    public static let healthyRun = 10.0

    /// Starts the thread, which starts the process.
    public init(executable: String, arguments: [String], report: @escaping @Sendable (BridgeEvent) -> Void) {
        self.executable = executable
        self.arguments = arguments
        self.report = report
        wakeup = iaa_wakeup_make()
        let thread = Thread { [self] in run() }
        thread.name = "iaa-link"
        thread.start()
    }

    deinit {
        if wakeup >= 0 { close(wakeup) }
    }

    /// Asks the thread to end the process (SIGTERM, then SIGKILL after 3 s) and to end; waits
    /// for it up to 4 s.
    public func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        iaa_wakeup_signal(wakeup)
        let deadline = ContinuousClock.now + .seconds(4)
        while !finished.withLock({ $0 }) && ContinuousClock.now < deadline { usleep(2_000) }
    }

    /// Ends a pause before the next start now (the JACK server it could not reach is back).
    public func retryNow() {
        iaa_wakeup_signal(wakeup)
    }

    /// Ends the process with SIGTERM (SIGKILL 3 s later) and starts it again after the pause a
    /// failed run gets: a bridge locked to the wrong sender, or stuck locking.
    public func restart() {
        restarting.store(true, ordering: .sequentiallyConsistent)
        iaa_wakeup_signal(wakeup)
    }

    private var isStopping: Bool { stopping.load(ordering: .sequentiallyConsistent) }

    private func run() {
        defer { finished.withLock { $0 = true } }
        var failures = 0
        while !isStopping {
            let started = ContinuousClock.now
            runOnce()
            if isStopping { break }
            let ran = ContinuousClock.now - started
            failures = ran >= .seconds(Self.healthyRun) ? 0 : failures + 1
            let pause = min(Self.firstPause * Double(1 << min(max(failures - 1, 0), 10)), Self.longestPause)
            report(.restartScheduled(after: pause))
            _ = iaa_isolation_poll_child_output(-1, wakeup, -1, Int32(pause * 1000))
        }
    }

    /// One life of the process: started, its lines read, its end reported.
    private func runOnce() {
        let stdbuf = "/usr/bin/stdbuf"
        let argv = FileManager.default.isExecutableFile(atPath: stdbuf)
            ? [stdbuf, "-oL", "-eL", executable] + arguments : [executable] + arguments
        var pipe: [Int32] = [-1, -1]
        guard iaa_isolation_output_pipe(&pipe) == 0 else {
            report(.exited("cannot make a pipe for \(executable): \(String(cString: strerror(errno)))"))
            return
        }
        var cStrings: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for pointer in cStrings { free(pointer) } }
        var pidfd: Int32 = -1
        let pid = cStrings.withUnsafeMutableBufferPointer { iaa_isolation_spawn(argv[0], $0.baseAddress, -1, pipe[1], nil, &pidfd) }
        let failure = errno
        close(pipe[1])
        let output = pipe[0]
        defer {
            close(output)
            if pidfd >= 0 { close(pidfd) }
        }
        guard pid > 0 else {
            report(.exited("cannot start \(executable): \(String(cString: strerror(failure)))"))
            return
        }
        report(.started(pid: pid))
        var lastWords: String?
        let take = { [report] (line: Substring) in
            let signal = BridgeSignal(line: line)
            if case .statistics = signal {} else if !line.isEmpty { lastWords = String(line) }
            report(.line(signal))
        }
        var lines = LineBuffer()
        var open = true
        var status: Int32 = 0
        while true {
            let seen = iaa_isolation_poll_child_output(pidfd, wakeup, open ? output : -1, 1000)
            if seen > 0 && seen & IAA_POLL_CHILD_OUTPUT != 0 {
                open = lines.read(output, take)
            }
            if isStopping {
                end(pid, pidfd: pidfd)
                return
            }
            if restarting.exchange(false, ordering: .sequentiallyConsistent) {
                end(pid, pidfd: pidfd)
                report(.exited("ended by the engine to be started again"))
                return
            }
            if iaa_isolation_reap(pid, &status) == 1 { break }
        }
        _ = lines.read(output, take)
        report(.exited(Self.describe(status, of: executable, lastLine: lastWords)))
    }

    /// SIGTERM to the process group, 3 s to go, then SIGKILL; reaped either way. A bridge closes
    /// its JACK client on SIGTERM in milliseconds, longer on a busy machine; killed while it
    /// closes, it can leave jack2's metadata database (one per user, every server's) locked,
    /// and every later client of every server of the user then hangs.
    private func end(_ pid: Int32, pidfd: Int32) {
        kill(-pid, SIGTERM)
        if pidfd >= 0 { _ = iaa_isolation_poll_exit(pidfd, 3_000) }
        var status: Int32 = 0
        if iaa_isolation_reap(pid, &status) != 1 {
            kill(-pid, SIGKILL)
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
    }

    static func describe(_ status: Int32, of executable: String, lastLine: String?) -> String {
        let name = executable.split(separator: "/").last.map(String.init) ?? executable
        let signal = iaa_wait_signal(status)
        let how = signal != 0 ? "was killed by signal \(signal)" : "exited with status \(iaa_wait_exit_code(status))"
        return "\(name) \(how)" + (lastLine.map { " (its last words: \"\($0)\")" } ?? "")
    }
}

/// Whole lines out of a non-blocking pipe, each cut at 500 bytes.
struct LineBuffer {
    private var pending: [UInt8] = []

    /// Reads what is there and hands over each whole line; false at the pipe's end.
    mutating func read(_ descriptor: Int32, _ take: (Substring) -> Void) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                pending += buffer[0..<count]
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[..<newline].prefix(500), as: UTF8.self)
                    pending.removeSubrange(...newline)
                    take(Substring(line))
                }
                if pending.count > 4096 { pending.removeAll() }
            } else if count == 0 {
                return false
            } else if errno != EINTR {
                return true
            }
        }
    }
}
