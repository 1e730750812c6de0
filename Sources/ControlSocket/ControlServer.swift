#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import Synchronization

/// The engine's end of the control socket: accepts clients of the engine's own user, reads
/// newline-delimited JSON requests, runs them one at a time on the control queue, and writes the
/// replies and any published stream lines back. The protocol is in PROTOCOL.md beside this file.
///
/// Threads: one I/O thread (``start()``) owns every socket and never blocks on a client; the handler
/// runs on the serial control queue, in arrival order across all clients; ``publish(_:topic:)`` may be
/// called from any thread.
public final class ControlServer: Sendable {
    /// Bounds that keep one client from costing the engine unbounded memory or time.
    public struct Limits: Sendable {
        /// The longest request line; a longer one gets `requestTooLarge` and the connection is closed.
        public var maximumRequestBytes = 1 << 20
        /// Bytes waiting for a client beyond which it is disconnected (a stream subscriber that stopped
        /// reading, or a huge reply to one that never reads).
        public var maximumOutputBytes = 4 << 20
        /// Waiting bytes above which the client's further requests are not read until it catches up.
        public var outputHighWater = 256 << 10
        /// Requests of one client on the control queue at once; more wait in its socket.
        public var maximumInFlight = 64
        public var maximumConnections = 256
        /// How long a request line may take to arrive whole once its first byte has.
        public var lineTimeout = Duration.seconds(10)
        /// Bytes waiting across all clients that fell behind (beyond `outputHighWater` each):
        /// past it, a laggard that would get more is disconnected, so 200 stream followers that
        /// never read cost this much, not 200 × `maximumOutputBytes`.
        public var maximumLaggingOutputBytes = 32 << 20
        /// How long a connection being closed after an error waits for the client to read it.
        public var closeLinger = Duration.seconds(2)

        public init() {}
    }

    /// The socket's path.
    public let path: String
    private let loop: IOLoop
    private let thread = Mutex<ThreadState>(.notStarted)

    private enum ThreadState {
        case notStarted
        case running(DispatchSemaphore)
        case stopped
    }

    /// Creates the socket's directory (0700) if needed, takes `NAME.lock`, removes a stale socket
    /// left by a dead engine, and binds and listens (0600). Clients may connect from here on; they
    /// are served once ``start()`` runs.
    ///
    /// - Parameters:
    ///   - queue: the serial control queue the handler runs on; a private one when nil. Pass the
    ///     engine's own queue so socket requests serialize with its other control work.
    ///   - diagnostics: told about refused and dropped clients, for the engine's log.
    ///   - handler: answers one request; called on `queue`, one request at a time.
    ///   - disconnected: told on `queue` that a connection closed (its id, as requests carry it),
    ///     after the replies to everything it sent: the engine ends what a program held.
    public init(path: String, limits: Limits = Limits(), queue: DispatchQueue? = nil,
                diagnostics: (@Sendable (String) -> Void)? = nil,
                disconnected: (@Sendable (UInt64) -> Void)? = nil,
                handler: @escaping @Sendable (ControlRequest) -> ControlReply) throws(ControlSocketError) {
        self.path = path
        try SocketLocation.preparePrivateDirectory(SocketLocation.directory(of: path))
        let lock = try SocketLock(path: SocketLocation.lockPath(forSocket: path),
                                  engineName: SocketLocation.engineName(forSocket: path))
        let address = try UnixSocket.address(path)
        try Self.removeStaleSocket(path)
        let listenFD = try UnixSocket.make(nonBlocking: true)
        var pipeFDs: [Int32] = [0, 0]
        do throws(ControlSocketError) {
            guard UnixSocket.bind(listenFD, address) == 0 else { throw .system("bind", path) }
            // bind() creates the file with the umask's mode; the private directory covers the
            // moment before this chmod, and the peer check covers everything.
            guard chmod(path, 0o600) == 0 else { throw .system("chmod", path) }
            guard listen(listenFD, 128) == 0 else { throw .system("listen", path) }
            guard pipe(&pipeFDs) == 0 else { throw .system("pipe", "for the control socket") }
            for fd in pipeFDs {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
        } catch {
            _ = close(listenFD)
            _ = unlink(path)
            throw error
        }
        loop = IOLoop(listenFD: listenFD, wakeReadFD: pipeFDs[0], wakeWriteFD: pipeFDs[1], path: path, lock: lock,
                      limits: limits, queue: queue ?? DispatchQueue(label: "iaa.control"),
                      diagnostics: diagnostics, disconnected: disconnected, handler: handler)
    }

    /// Stops serving and removes the socket (see ``stop()``).
    deinit { stop() }

    /// The default socket path for a JACK client name (see ``SocketLocation/defaultPath(client:)``).
    public static func defaultPath(client: String) -> String { SocketLocation.defaultPath(client: client) }

    /// Starts the I/O thread. Calling it again, or after ``stop()``, does nothing.
    public func start() {
        thread.withLock { state in
            guard case .notStarted = state else { return }
            let finished = DispatchSemaphore(value: 0)
            let loop = loop
            let ioThread = Thread {
                loop.run()
                finished.signal()
            }
            ioThread.name = "iaa-control-io"
            ioThread.start()
            state = .running(finished)
        }
    }

    /// Closes every connection and the socket, removes the socket file and releases the lock, then
    /// returns. Replies still on the control queue are dropped. Do not call it from the handler's
    /// queue while a handler waits on it. Idempotent.
    public func stop() {
        let previous = thread.withLock { state in
            defer { state = .stopped }
            return state
        }
        switch previous {
        case .notStarted: loop.shutdown()
        case .running(let finished):
            loop.mailbox.requestStop()
            finished.wait()
        case .stopped: break
        }
    }

    /// Sends `line` (one line of JSON text, without its newline) to every connection following
    /// `topic`, after anything queued for them before. A subscriber that has stopped reading and
    /// would hold more than ``Limits/maximumOutputBytes`` is disconnected. Callable from any thread.
    public func publish(_ line: String, topic: String) {
        guard subscriberCount(topic: topic) > 0 else { return }
        var bytes = Array(line.utf8)
        bytes.removeAll { $0 == UInt8(ascii: "\n") }
        bytes.append(UInt8(ascii: "\n"))
        loop.mailbox.post(.publish(topic: topic, line: bytes))
    }

    /// Sends a JSON value to every connection following `topic` (see ``publish(_:topic:)-(String,_)``).
    public func publish(_ value: ControlJSON, topic: String) {
        guard subscriberCount(topic: topic) > 0 else { return }
        publish(value.text, topic: topic)
    }

    /// How many connections follow `topic` now, so the engine can skip building lines nobody reads.
    public func subscriberCount(topic: String) -> Int {
        loop.mailbox.subscriberCounts.withLock { $0[topic] ?? 0 }
    }

    /// Removes a socket file left by an engine that died; the lock we hold proves it is not live.
    private static func removeStaleSocket(_ path: String) throws(ControlSocketError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw ControlSocketError(.system, "\(path) exists and is not a socket; remove it or choose another --socket PATH")
        }
        guard unlink(path) == 0 else { throw .system("unlink", "stale socket \(path)") }
    }
}
