#if canImport(Glibc)
import Glibc
#endif

/// The CLI's end of the control socket: one blocking connection, one request at a time.
///
/// Transport failures throw ``ControlSocketError`` (the CLI exits 2); the engine's refusals come
/// back as `.failure(ControlError)`, so the CLI can map their codes to exit 1 or 3.
public final class ControlClient {
    public let path: String
    private let fd: Int32
    private let timeout: Duration?
    private var input: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)
    private var nextID = 1

    /// Connects to the engine at `path`.
    /// - Parameter timeout: how long ``call(_:params:)`` waits for a reply; nil waits forever.
    public init(path: String, timeout: Duration? = .seconds(30)) throws(ControlSocketError) {
        self.path = path
        self.timeout = timeout
        let address = try UnixSocket.address(path)
        fd = try UnixSocket.make(nonBlocking: false)
        var result: Int32
        repeat { result = UnixSocket.connect(fd, address) } while result != 0 && errno == EINTR
        guard result == 0 else {
            let code = errno
            _ = close(fd)
            switch code {
            case ENOENT, ECONNREFUSED, ENOTDIR:
                throw ControlSocketError(.notRunning, "no iaa engine is running on socket \(path) (start one with `iaa run GRAPH`)")
            case EACCES, EPERM:
                throw ControlSocketError(.system, "cannot reach the engine's socket \(path): permission denied (it belongs to another user)")
            default:
                throw .system("connect", path, errno: code)
            }
        }
    }

    deinit { _ = close(fd) }

    /// Sends one request and waits for its reply.
    public func call(_ method: String, params: ControlJSON = .object([])) throws(ControlSocketError) -> Result<ControlJSON, ControlError> {
        let id = nextID
        nextID += 1
        try setReceiveTimeout(timeout)
        try send(id: id, method: method, params: params)
        return try reply(to: id)
    }

    /// Sends a streaming request (`events.follow`, `top`), hands its initial result to `onStart`,
    /// then every following line, as JSON text, to `onLine` until it returns false or the engine
    /// closes the connection. Waits without a timeout: a quiet stream is not a dead engine.
    public func stream(_ method: String, params: ControlJSON = .object([]), onStart: (ControlJSON) -> Void = { _ in },
                       onLine: (String) -> Bool) throws(ControlSocketError) -> Result<Void, ControlError> {
        switch try begin(method, params: params) {
        case .failure(let error): return .failure(error)
        case .success(let initial): onStart(initial)
        }
        while let line = try readLine() {
            if !onLine(String(decoding: line, as: UTF8.self)) { break }
        }
        return .success(())
    }

    /// Sends a streaming request and returns its initial result; the stream's lines then come
    /// from ``readLine()``, without a timeout.
    public func begin(_ method: String, params: ControlJSON = .object([])) throws(ControlSocketError) -> Result<ControlJSON, ControlError> {
        let id = nextID
        nextID += 1
        try setReceiveTimeout(timeout)
        try send(id: id, method: method, params: params)
        let initial = try reply(to: id)
        if case .success = initial { try setReceiveTimeout(nil) }
        return initial
    }

    /// Ends the connection both ways; the one call another thread may make: a ``readLine()``
    /// waiting on it returns nil.
    public func shutdown() {
        _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Sends raw bytes as they are (for tests of what the server does with malformed input).
    public func sendRaw(_ bytes: [UInt8]) throws(ControlSocketError) {
        guard UnixSocket.sendAll(fd, bytes) else { throw .system("send", "to \(path)") }
    }

    /// The next line from the engine, without its newline; nil when the engine closed the connection.
    public func readLine() throws(ControlSocketError) -> [UInt8]? {
        var scanned = 0
        while true {
            if let newline = input[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(input[..<newline])
                input.removeFirst(newline + 1)
                return line
            }
            scanned = input.count
            let fd = fd
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                input.append(contentsOf: chunk[..<count])
            } else if count == 0 || errno == ECONNRESET {
                // ECONNRESET: the engine closed with our request unread, after its last line.
                return nil
            } else if errno == EINTR {
                continue
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                throw ControlSocketError(.timeout, "no reply from the engine on \(path) within \(timeout.map { "\($0)" } ?? "the timeout")")
            } else {
                throw .system("recv", "from \(path)")
            }
        }
    }

    private func send(id: Int, method: String, params: ControlJSON) throws(ControlSocketError) {
        let request = ControlJSON.object([("id", .number(Double(id))), ("method", .string(method)), ("params", params)])
        // A refused client's request may meet a socket the engine already closed; its error line
        // is still waiting to be read, so a failed send is not reported before reading.
        _ = UnixSocket.sendAll(fd, Array((request.text + "\n").utf8))
    }

    private func reply(to id: Int) throws(ControlSocketError) -> Result<ControlJSON, ControlError> {
        var reply: ControlJSON
        repeat {
            guard let line = try readLine() else {
                throw ControlSocketError(.protocolViolation, "the engine on \(path) closed the connection without replying")
            }
            guard let parsed = try? ControlJSONParser.parse(line), parsed.objectValue != nil else {
                throw ControlSocketError(.protocolViolation, "the engine on \(path) sent a line that is not a JSON object")
            }
            reply = parsed
            // A line without "id" belongs to a stream this connection follows (a program's events): not the reply.
        } while reply["id"] == nil
        let replyID = reply["id"]
        // A null id is the server answering the connection itself (permissionDenied, tooManyConnections).
        guard replyID == .number(Double(id)) || replyID == .null else {
            throw ControlSocketError(.protocolViolation, "the engine on \(path) answered request \(replyID?.text ?? "?") instead of \(id)")
        }
        if let error = reply["error"] {
            guard let parsed = ControlError(json: error) else {
                throw ControlSocketError(.protocolViolation, "the engine on \(path) sent a malformed error")
            }
            return .failure(parsed)
        }
        guard let result = reply["result"] else {
            throw ControlSocketError(.protocolViolation, "the engine on \(path) sent a reply without result or error")
        }
        return .success(result)
    }

    private func setReceiveTimeout(_ duration: Duration?) throws(ControlSocketError) {
        let parts = duration?.components ?? (seconds: 0, attoseconds: 0)
        var value = timeval(tv_sec: Int(parts.seconds), tv_usec: Int(parts.attoseconds / 1_000_000_000_000))
        guard setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size)) == 0 else {
            throw .system("setsockopt", "SO_RCVTIMEO on \(path)")
        }
    }
}
