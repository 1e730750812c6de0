#if canImport(Glibc)
import Glibc
#endif
import CPeerCredentials
import Dispatch

/// The I/O thread: one poll(2) loop over the listening socket, a wake-up pipe and every client.
///
/// poll rather than one DispatchSource per client: all connection state then lives on one thread
/// without locks, the order of replies and published lines is the order of one mailbox, and a
/// client's cost is a pollfd, not a source and its queue hops. The loop never blocks except in
/// poll: sockets are non-blocking, and the handler runs on the control queue, not here.
final class IOLoop: @unchecked Sendable {
    // @unchecked: everything mutable below is touched only by the I/O thread (or before it starts
    // and after it ends); other threads reach the loop only through `mailbox`.
    let listenFD: Int32
    let wakeReadFD: Int32
    let wakeWriteFD: Int32
    let path: String
    let lock: SocketLock
    let limits: ControlServer.Limits
    let queue: DispatchQueue
    let handler: @Sendable (ControlRequest) -> ControlReply
    let diagnostics: (@Sendable (String) -> Void)?
    let disconnected: (@Sendable (UInt64) -> Void)?
    let mailbox: ServerMailbox
    let uid = geteuid()

    var connections: [UInt64: ControlConnection] = [:]
    var subscribers: [String: Set<UInt64>] = [:]
    var nextID: UInt64 = 1
    /// After EMFILE, accepting pauses briefly instead of spinning on a listen socket poll keeps reporting.
    var acceptPausedUntil: ContinuousClock.Instant?
    private var closed = false
    private var scratch = [UInt8](repeating: 0, count: 1 << 16)

    init(listenFD: Int32, wakeReadFD: Int32, wakeWriteFD: Int32, path: String, lock: SocketLock,
         limits: ControlServer.Limits, queue: DispatchQueue, diagnostics: (@Sendable (String) -> Void)?,
         disconnected: (@Sendable (UInt64) -> Void)? = nil,
         handler: @escaping @Sendable (ControlRequest) -> ControlReply) {
        self.listenFD = listenFD
        self.wakeReadFD = wakeReadFD
        self.wakeWriteFD = wakeWriteFD
        self.path = path
        self.lock = lock
        self.limits = limits
        self.queue = queue
        self.diagnostics = diagnostics
        self.disconnected = disconnected
        self.handler = handler
        self.mailbox = ServerMailbox(wakeFD: wakeWriteFD)
    }

    /// Serves until `mailbox.requestStop()`, then closes everything.
    func run() {
        var fds: [pollfd] = []
        var owners: [ControlConnection?] = []
        while true {
            let (items, stopping) = mailbox.take()
            for item in items { deliver(item) }
            if stopping { break }

            fds.removeAll(keepingCapacity: true)
            owners.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: wakeReadFD, events: Int16(POLLIN), revents: 0))
            owners.append(nil)
            let now = ContinuousClock.now
            if let until = acceptPausedUntil, until <= now { acceptPausedUntil = nil }
            if acceptPausedUntil == nil {
                fds.append(pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0))
                owners.append(nil)
            }
            var timeout: Duration? = acceptPausedUntil.map { $0 - now }
            for connection in connections.values where !connection.peerGone {
                var events: Int16 = 0
                if wantsInput(connection) { events |= Int16(POLLIN) }
                if connection.pendingOutput > 0 { events |= Int16(POLLOUT) }
                fds.append(pollfd(fd: connection.fd, events: events, revents: 0))
                owners.append(connection)
                for deadline in [connection.deadline, connection.partialSince.map { $0 + limits.lineTimeout }].compactMap({ $0 }) {
                    timeout = min(timeout ?? .seconds(3600), max(.zero, deadline - now))
                }
            }
            let milliseconds = timeout.map { Int32(clamping: $0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000 + 1) } ?? -1
            let ready = poll(&fds, nfds_t(fds.count), milliseconds)
            if ready < 0, errno != EINTR { diagnostics?("control socket: poll failed: \(String(cString: strerror(errno)))") }
            if ready > 0 {
                for (index, entry) in fds.enumerated() where entry.revents != 0 {
                    if let connection = owners[index] {
                        serviceConnection(connection, revents: entry.revents)
                    } else if entry.fd == wakeReadFD {
                        drainWakePipe()
                    } else {
                        acceptClients()
                    }
                }
            }
            closeExpired()
        }
        shutdown()
    }

    /// Closes every socket, removes the socket file while the lock still says it is ours, then
    /// releases the lock. Safe to call twice and without `run`.
    func shutdown() {
        guard !closed else { return }
        closed = true
        for connection in connections.values { connection.close() }
        connections.removeAll()
        subscribers.removeAll()
        mailbox.subscriberCounts.withLock { $0.removeAll() }
        _ = close(listenFD)
        _ = unlink(path)
        lock.release()
        _ = close(wakeReadFD)
        _ = close(wakeWriteFD)
    }

    private func drainWakePipe() {
        while scratch.withUnsafeMutableBytes({ read(wakeReadFD, $0.baseAddress, 256) }) > 0 {}
    }

    /// Reads while the connection is allowed more work: backpressure is simply not reading, so a
    /// client that floods requests and ignores replies fills its own socket and stalls itself only.
    func wantsInput(_ connection: ControlConnection) -> Bool {
        !connection.readingStopped && !connection.sawEndOfInput && !connection.closeWhenFlushed
            && connection.inFlight < limits.maximumInFlight
            && connection.pendingOutput < limits.outputHighWater
            && connection.input.count <= limits.maximumRequestBytes
    }

    private func serviceConnection(_ connection: ControlConnection, revents: Int16) {
        guard connections[connection.id] != nil else { return }
        if revents & Int16(POLLNVAL | POLLERR) != 0 { return drop(connection, reason: nil) }
        if revents & Int16(POLLOUT) != 0, !connection.flush() { connection.markGone() }
        if revents & Int16(POLLIN) != 0 || revents & Int16(POLLHUP) != 0 {
            // POLLHUP on a Unix stream socket means the peer closed both directions: read what it
            // sent before vanishing, but nothing more will reach it.
            if revents & Int16(POLLHUP) != 0 { connection.markGone() }
            readInput(connection)
        } else {
            // Draining output may have lifted the high-water mark that held buffered lines back.
            processLines(connection)
        }
        settle(connection)
    }

    /// Reads what the socket holds, up to the request limit, and hands complete lines on.
    private func readInput(_ connection: ControlConnection) {
        while !connection.sawEndOfInput, !connection.readingStopped {
            let room = limits.maximumRequestBytes + 1 - connection.input.count
            guard room > 0 else { break }
            let count = scratch.withUnsafeMutableBytes { read(connection.fd, $0.baseAddress, min(room, $0.count)) }
            if count > 0 {
                connection.input.append(contentsOf: scratch[..<count])
                if count < min(room, scratch.count) { break }
                continue
            }
            if count == 0 { connection.sawEndOfInput = true; break }
            if errno == EINTR { continue }
            if errno != EAGAIN && errno != EWOULDBLOCK { connection.markGone(); connection.sawEndOfInput = true }
            break
        }
        processLines(connection)
    }
}
