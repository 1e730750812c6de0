#if canImport(Glibc)
import Glibc
#endif
import ControlSocket
import Dispatch
import Foundation
import Synchronization
import TestKit

/// A server in a fresh private directory, with a handler that knows a few test methods:
/// `echo` (returns its params), `sleep` (`ms`), `big` (`bytes` of text), `follow` (streams `topic`),
/// `fail` (an error naming a field). It also checks that handler calls never overlap.
final class TestServer: Sendable {
    let directory: String
    let path: String
    let server: ControlServer
    let probe = Probe()

    /// What the handler and the diagnostics callback saw.
    final class Probe: Sendable {
        let active = Atomic<Int>(0)
        let overlapping = Atomic<Bool>(false)
        let calls = Atomic<Int>(0)
        let diagnostics = Mutex<[String]>([])
    }

    init(name: String = "test", limits: ControlServer.Limits = .init()) throws {
        directory = try makeTemporaryDirectory("cs")
        path = "\(directory)/\(name).sock"
        let probe = probe
        server = try ControlServer(path: path, limits: limits, diagnostics: { message in
            probe.diagnostics.withLock { $0.append(message) }
        }) { request in
            if probe.active.add(1, ordering: .sequentiallyConsistent).newValue > 1 {
                probe.overlapping.store(true, ordering: .relaxed)
            }
            defer { probe.active.subtract(1, ordering: .sequentiallyConsistent) }
            probe.calls.add(1, ordering: .relaxed)
            return TestServer.answer(request)
        }
        server.start()
    }

    deinit {
        server.stop()
        removeTree(directory)
    }

    static func answer(_ request: ControlRequest) -> ControlReply {
        switch request.method {
        case "echo": return .result(request.params)
        case "sleep":
            usleep(UInt32(request["ms"]?.intValue ?? 0) * 1000)
            return .result(.string("slept"))
        case "big": return .result(.string(String(repeating: "x", count: request["bytes"]?.intValue ?? 0)))
        case "follow": return .stream(topic: request["topic"]?.stringValue ?? "events", initial: nil)
        case "whoami": return .result(.object([("uid", .number(Double(request.peer.uid))), ("pid", .number(Double(request.peer.pid)))]))
        default: return .error(code: "unknownMethod", message: "no method \(request.method)", field: "method")
        }
    }

    func client() throws -> ControlClient { try ControlClient(path: path, timeout: .seconds(20)) }
}

func removeTree(_ path: String) {
    try? FileManager.default.removeItem(atPath: path)
}

/// Decodes one reply line.
func json(_ line: [UInt8]?) -> ControlJSON? {
    guard let line else { return nil }
    return try? ControlJSONParser.parse(line)
}

/// The error code of a reply line.
func errorCode(_ line: [UInt8]?) -> String? { json(line)?["error"]?["code"]?.stringValue }

/// Resident set size in bytes, from /proc/self/statm.
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// The sockets bound to `path`: the server's listening socket and every connection it accepted
/// (the kernel lists an accepted socket under its listener's path in /proc/net/unix). Unlike the
/// process's descriptor count, other tests running at the same time do not move it.
func socketsBound(to path: String) -> Int {
    guard let table = try? String(contentsOfFile: "/proc/net/unix", encoding: .utf8) else { return -1 }
    return table.split(separator: "\n").filter { $0.hasSuffix(" " + path) }.count
}

/// Runs `count` blocking bodies on their own threads (not the cooperative pool, which blocking
/// socket calls would starve) and waits for all of them.
func runThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            body(index)
            group.leave()
        }
        thread.start()
    }
    group.wait()
}

/// A raw blocking client socket connected to `path`, for tests that misbehave on purpose.
func rawConnect(_ path: String) -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        let bytes = Array(path.utf8)
        raw.copyBytes(from: bytes)
        raw[bytes.count] = 0
    }
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
    return result == 0 ? fd : -1
}

func rawSend(_ fd: Int32, _ text: String) {
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
        if sent <= 0 { return }
        offset += sent
    }
}
