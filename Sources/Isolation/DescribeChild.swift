import RenderCore
import CIsolation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a short-lived child that opens one plugin library under the load phase's restrictions
/// and writes what it found on descriptor 3 (docs/isolation.md, "The describe child"), so
/// the engine learns a library's node types without running the library's code itself.
///
/// The child is started like an isolated app's (``ChildProcess/spawn(_:segment:memoryLimit:)``:
/// own process group, parent-death signal, every other descriptor closed, limits), with the write
/// end of a pipe where the segment would be. What it prints reaches the engine's log tagged
/// `iaa: plugin library "PATH" (describe child PID) says: `. Its answer is capped at
/// ``maximumAnswerBytes``; a child that has not ended after `timeoutSeconds` is killed; a crash
/// is reported with its signal's name. Control side only.
///
/// The answer has a descriptor of its own rather than stdout, which the library's constructors
/// share: what they print is log, never part of the description.
public enum DescribeChild {
    /// More than any real library's description (1024 descriptors of 1024 parameters would not fit,
    /// nor would they be useful).
    public static let maximumAnswerBytes = 8 << 20

    /// The bytes the child wrote on descriptor 3, else why there are none. `library` names the
    /// library in messages and in the tag of the child's lines.
    public static func run(_ argv: [String], library: String, timeoutSeconds: Double = 5,
                           memoryLimit: UInt64 = 1 << 30) -> Result<[UInt8], IsolationError> {
        let source = "plugin library \"\(ChildOutput.escaped(Array(library.utf8)))\""
        var answerPipe: [Int32] = [-1, -1]
        // Non-blocking at both ends like an output pipe; the child makes its end blocking.
        guard iaa_isolation_output_pipe(&answerPipe) == 0 else {
            return .failure(IsolationError("cannot describe \(source): no pipe: \(String(cString: strerror(errno)))"))
        }
        defer { close(answerPipe[0]) }
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(argv, segment: answerPipe[1], memoryLimit: memoryLimit)
        } catch {
            close(answerPipe[1])
            return .failure(IsolationError("cannot describe \(source): \(error)"))
        }
        // From here the child holds the only write end: the pipe ends when the child does.
        close(answerPipe[1])
        let output = ChildOutput(descriptor: child.output, source: "\(source) (describe child \(child.pid))")
        var answer: [UInt8] = []
        var answerOpen = true
        let deadline = MonotonicClock.nanoseconds() &+ UInt64(timeoutSeconds * 1e9)
        while true {
            let now = MonotonicClock.nanoseconds()
            if now >= deadline {
                child.kill()
                output.finish()
                return .failure(IsolationError("\(source) did not finish describing itself within \(formatted(timeoutSeconds)) s (a constructor or iaa_plugin_entry that hangs?); its describe child was killed"))
            }
            // Without a pidfd only the pipes wake this loop: look for the exit every few ms then.
            let remaining = Int32(min((deadline - now) / 1_000_000 + 1, child.pidfd < 0 && !answerOpen ? 5 : 1000))
            var entries = [pollfd(fd: child.pidfd, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: answerOpen ? answerPipe[0] : -1, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: output.pollDescriptor, events: Int16(POLLIN), revents: 0)]
            _ = poll(&entries, nfds_t(entries.count), remaining)
            output.drain()
            if answerOpen {
                switch readAll(answerPipe[0], into: &answer) {
                case .open: break
                case .ended: answerOpen = false
                case .tooLong:
                    child.kill()
                    output.finish()
                    return .failure(IsolationError("\(source) described itself in more than \(maximumAnswerBytes >> 20) MiB; its describe child was killed"))
                }
            }
            // The kernel closes an exiting process's descriptors before its pidfd turns readable,
            // so once it has ended the answer's end has been seen too.
            if !answerOpen && child.hasEnded() { break }
        }
        let fault = child.reapFault()
        output.finish()
        switch fault {
        case .crashed:
            return .failure(IsolationError("\(source) crashed while it was opened in its describe child (\(fault.signalName ?? "a signal")); the engine did not load it"))
        case .exited(let status) where status != 0 && answer.isEmpty:
            return .failure(IsolationError("\(source) could not be described: its describe child exited with status \(status) and no answer"))
        default:
            return .success(answer)
        }
    }

    private enum ReadState { case open, ended, tooLong }

    /// Reads what `descriptor` holds now (non-blocking) onto `answer`.
    private static func readAll(_ descriptor: Int32, into answer: inout [UInt8]) -> ReadState {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                answer += buffer[0..<count]
                if answer.count > maximumAnswerBytes { return .tooLong }
            } else if count == 0 {
                return .ended
            } else if errno != EINTR {
                return .open  // EAGAIN: nothing more now
            }
        }
    }

    private static func formatted(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
