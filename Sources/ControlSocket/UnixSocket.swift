#if canImport(Glibc)
import Glibc
#endif

/// The few system calls both ends share, with Glibc's awkward types converted once.
enum UnixSocket {
    /// A stream socket, close-on-exec, optionally non-blocking.
    static func make(nonBlocking: Bool) throws(ControlSocketError) -> Int32 {
        var type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        if nonBlocking { type |= Int32(SOCK_NONBLOCK.rawValue) }
        let fd = socket(AF_UNIX, type, 0)
        guard fd >= 0 else { throw .system("socket", "(AF_UNIX)") }
        return fd
    }

    /// Fills a `sockaddr_un` with `path`; Linux gives paths 107 bytes plus the terminating NUL.
    static func address(_ path: String) throws(ControlSocketError) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else {
            throw ControlSocketError(.pathTooLong,
                "socket path \(path) is \(bytes.count) bytes; Unix sockets allow at most \(capacity - 1) (choose a shorter --socket PATH)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }

    static func bind(_ fd: Int32, _ address: sockaddr_un) -> Int32 {
        withUnsafePointer(to: address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }

    static func connect(_ fd: Int32, _ address: sockaddr_un) -> Int32 {
        withUnsafePointer(to: address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }

    /// `send` without SIGPIPE: a vanished client must cost an EPIPE, not the engine.
    static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
        Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
    }

    /// Writes all of `bytes` to a blocking socket.
    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = send(fd, UnsafeRawBufferPointer(rebasing: raw[offset...]))
                if sent < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += sent
            }
            return true
        }
    }
}
