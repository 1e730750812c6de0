#if canImport(Glibc)
import Glibc
#endif

/// One accepted client. Only the I/O thread touches it, so it needs no lock.
final class ControlConnection {
    let id: UInt64
    let fd: Int32
    let peer: ControlPeer

    /// Bytes read but not yet split into lines; never longer than the request limit plus one byte.
    var input: [UInt8] = []
    /// How far `input` is known to hold no newline, so a long partial line is scanned once.
    var scanned = 0
    /// Reply and stream bytes not yet accepted by the kernel, from `outputStart` on.
    private(set) var output: [UInt8] = []
    private var outputStart = 0
    /// Requests handed to the control queue whose replies have not come back yet.
    var inFlight = 0
    var topics: Set<String> = []

    /// The client shut down its sending side: answer what it sent, then close.
    var sawEndOfInput = false
    /// The client is gone altogether (POLLHUP or a failed send): its replies are discarded.
    var peerGone = false
    /// Input is no longer read (after `requestTooLarge`): the connection only drains and closes.
    var readingStopped = false
    /// Close once the output is flushed, or at `deadline` if the client does not read it.
    var closeWhenFlushed = false
    var deadline: ContinuousClock.Instant?
    /// Whether it has sent a request: one that has not gives its place to a new client when every
    /// place is taken (a client may connect early and ask later, but not hold a place for nothing).
    var sentRequest = false
    /// Since when part of a line has waited for its end: a line must arrive whole within
    /// `Limits.lineTimeout`, so a client writing a byte a second holds nothing for long.
    var partialSince: ContinuousClock.Instant?

    init(id: UInt64, fd: Int32, peer: ControlPeer) {
        self.id = id
        self.fd = fd
        self.peer = peer
    }

    var pendingOutput: Int { output.count - outputStart }

    /// The client cannot read any more: forget what was meant for it.
    func markGone() {
        peerGone = true
        output = []
        outputStart = 0
    }

    /// Queues bytes; the caller has checked the limit.
    func append(_ bytes: [UInt8]) {
        if peerGone { return }
        if outputStart == output.count {
            output.removeAll(keepingCapacity: output.capacity <= 1 << 16)
            outputStart = 0
        }
        output.append(contentsOf: bytes)
    }

    /// Writes as much as the kernel takes without blocking. Returns false when the peer is gone.
    func flush() -> Bool {
        while outputStart < output.count {
            let sent = output.withUnsafeBytes { raw in
                UnixSocket.send(fd, UnsafeRawBufferPointer(rebasing: raw[outputStart...]))
            }
            if sent < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { break }
                return false
            }
            outputStart += sent
        }
        if outputStart == output.count {
            // A big reply (a dump) should not pin its buffer for the connection's life.
            output.removeAll(keepingCapacity: output.capacity <= 1 << 16)
            outputStart = 0
        } else if outputStart > 1 << 16, outputStart > output.count / 2 {
            output.removeFirst(outputStart)
            outputStart = 0
        }
        return true
    }

    /// The next complete line (without its newline or a trailing CR), consumed from `input`.
    /// Lines are sliced out in place and the consumed prefix removed once per batch by `compact`.
    func nextLine(from start: inout Int) -> ArraySlice<UInt8>? {
        let from = max(start, scanned)
        guard let newline = input[from...].firstIndex(of: UInt8(ascii: "\n")) else {
            scanned = input.count
            return nil
        }
        var end = newline
        if end > start, input[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        let line = input[start..<end]
        start = newline + 1
        scanned = start
        return line
    }

    /// Drops the first `count` bytes of `input` (the lines already handled).
    func compact(consumed count: Int) {
        guard count > 0 else { return }
        if count == input.count {
            input.removeAll(keepingCapacity: input.capacity <= 1 << 16)
        } else {
            input.removeFirst(count)
        }
        scanned = max(0, scanned - count)
    }

    func close() { _ = Glibc.close(fd) }
}
