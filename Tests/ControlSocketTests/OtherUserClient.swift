#if canImport(Glibc)
import Glibc
#endif

/// What a client running as `nobody` experienced.
enum OtherUserOutcome: Equatable {
    case couldNotBecomeNobody
    case connectFailed(Int32)
    case replied(String)
}

/// Forks a child that becomes uid/gid 65534, connects to `path`, sends a request and reports the
/// first line it reads. SO_PEERCRED records the credentials at connect(), so the child must switch
/// users before connecting. Everything the child touches is allocated before fork(): after fork in a
/// multi-threaded process only async-signal-safe calls are allowed.
func connectAsNobody(_ path: String) -> OtherUserOutcome {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        raw.copyBytes(from: Array(path.utf8))
    }
    let request = Array("{\"id\":1,\"method\":\"echo\"}\n".utf8)
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: 4096, alignment: 16)
    defer { buffer.deallocate() }
    var pipeFDs: [Int32] = [0, 0]
    guard pipe(&pipeFDs) == 0 else { return .couldNotBecomeNobody }
    let addressLength = socklen_t(MemoryLayout<sockaddr_un>.size)

    let child = fork()
    if child == 0 {
        var status: Int32 = 0
        if setgroups(0, nil) != 0 || setgid(65534) != 0 || setuid(65534) != 0 {
            status = -1
            _ = write(pipeFDs[1], &status, 4)
            _exit(0)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, addressLength) }
        }
        status = connected == 0 ? 0 : errno
        _ = write(pipeFDs[1], &status, 4)
        if connected == 0 {
            _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            var total = 0
            while total < 4096 {
                let count = recv(fd, buffer + total, 4096 - total, 0)
                if count <= 0 { break }
                total += count
            }
            _ = write(pipeFDs[1], buffer, total)
        }
        _exit(0)
    }
    close(pipeFDs[1])
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = read(pipeFDs[0], &chunk, chunk.count)
        if count <= 0 { break }
        bytes += chunk[..<count]
    }
    close(pipeFDs[0])
    var exitStatus: Int32 = 0
    _ = waitpid(child, &exitStatus, 0)
    guard bytes.count >= 4 else { return .couldNotBecomeNobody }
    let status = bytes[0..<4].withUnsafeBytes { $0.loadUnaligned(as: Int32.self) }
    if status == -1 { return .couldNotBecomeNobody }
    if status != 0 { return .connectFailed(status) }
    let text = String(decoding: bytes[4...], as: UTF8.self)
    return .replied(String(text.split(separator: "\n").first ?? ""))
}
