#if canImport(Glibc)
import Glibc
#endif
import ControlSocket
import Foundation
import Testing
import TestKit

@Suite("Control socket: location, lock and peer check", .serialized)
struct SocketSecurityTests {
    @Test("the server creates its directory 0700 and its socket 0600, and records its pid in the lock")
    func permissions() throws {
        let parent = try makeTemporaryDirectory("cs")
        defer { removeTree(parent) }
        let path = "\(parent)/iaa/studio.sock"
        let server = try ControlServer(path: path) { _ in .result(.null) }
        server.start()
        var info = stat()
        #expect(stat("\(parent)/iaa", &info) == 0 && info.st_mode & 0o7777 == 0o700)
        #expect(lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK && info.st_mode & 0o7777 == 0o600)
        let lock = try String(contentsOfFile: "\(parent)/iaa/studio.lock", encoding: .utf8)
        #expect(lock == "\(getpid())\n")
        server.stop()
        #expect(access(path, F_OK) != 0)
    }

    @Test("a directory open to others, owned by another user, or a symlink is refused with the fix")
    func insecureDirectories() throws {
        let parent = try makeTemporaryDirectory("cs")
        defer { removeTree(parent) }
        let open = "\(parent)/open"
        mkdir(open, 0o755)
        chmod(open, 0o755)
        let error = #expect(throws: ControlSocketError.self) { try ControlServer(path: "\(open)/a.sock") { _ in .result(.null) } }
        #expect(error?.code == .insecureDirectory)
        #expect(error?.message == "socket directory \(open) has mode 0755; it must be private (chmod 700 \(open))")

        symlink(parent, "\(parent)/link")
        let linked = #expect(throws: ControlSocketError.self) { try ControlServer(path: "\(parent)/link/a.sock") { _ in .result(.null) } }
        #expect(linked?.code == .insecureDirectory)

        if geteuid() == 0 {
            let foreign = "\(parent)/foreign"
            mkdir(foreign, 0o700)
            chown(foreign, 65534, 65534)
            let owned = #expect(throws: ControlSocketError.self) { try ControlServer(path: "\(foreign)/a.sock") { _ in .result(.null) } }
            #expect(owned?.code == .insecureDirectory)
            #expect(owned?.message.contains("is owned by uid 65534, not by you (uid 0)") == true)
        }
    }

    @Test("a socket left by a killed engine is reclaimed")
    func staleSocketReclaimed() throws {
        let directory = try makeTemporaryDirectory("cs")
        defer { removeTree(directory) }
        let path = "\(directory)/stale.sock"
        // What SIGKILL leaves: a bound socket file nobody listens on, and an unheld lock naming a dead pid.
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8))
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        close(fd)
        try "999999\n".write(toFile: "\(directory)/stale.lock", atomically: false, encoding: .utf8)
        #expect(throws: ControlSocketError.self) { try ControlClient(path: path) }

        let server = try ControlServer(path: path) { _ in .result("reclaimed") }
        server.start()
        #expect(try ControlClient(path: path).call("anything").get() == "reclaimed")
    }

    @Test("a live engine's socket is never stolen")
    func liveSocketKept() throws {
        let server = try TestServer(name: "live")
        let error = #expect(throws: ControlSocketError.self) { try ControlServer(path: server.path) { _ in .result(.null) } }
        #expect(error?.code == .engineRunning)
        #expect(error?.message.hasPrefix("another iaa engine 'live' is running (pid \(getpid()))") == true)
        #expect(try server.client().call("echo", params: ["still": "mine"]).get() == ["still": "mine"])
        server.server.stop()
        let successor = try ControlServer(path: server.path) { _ in .result("next") }
        successor.start()
        #expect(try ControlClient(path: server.path).call("x").get() == "next")
    }

    @Test("a file in the socket's place that is not a socket is refused, not deleted")
    func nonSocketKept() throws {
        let directory = try makeTemporaryDirectory("cs")
        defer { removeTree(directory) }
        try "precious".write(toFile: "\(directory)/x.sock", atomically: false, encoding: .utf8)
        #expect(throws: ControlSocketError.self) { try ControlServer(path: "\(directory)/x.sock") { _ in .result(.null) } }
        #expect(try String(contentsOfFile: "\(directory)/x.sock", encoding: .utf8) == "precious")
    }

    @Test("the default path is the runtime directory's iaa folder, named after the client")
    func defaultPath() {
        let path = ControlServer.defaultPath(client: "studio")
        if let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            #expect(path == "\(runtime)/iaa/studio.sock".replacingOccurrences(of: "//", with: "/"))
        } else {
            #expect(path == "/tmp/iaa-\(geteuid())/studio.sock")
        }
    }

    @Test("a client running as another user is refused with permissionDenied",
          .enabled(if: geteuid() == 0, "needs root to run a client as another user (nobody, uid 65534)"))
    func otherUserRefused() throws {
        let server = try TestServer()
        // With the permissions the server sets, the file system already keeps nobody out.
        #expect(connectAsNobody(server.path) == .connectFailed(EACCES))
        // Opened up by mistake, the socket still refuses: SO_PEERCRED is the second wall.
        chmod(server.directory, 0o711)
        chmod(server.path, 0o666)
        guard case .replied(let line) = connectAsNobody(server.path) else {
            Issue.record("nobody's client did not get a reply")
            return
        }
        let reply = json(Array(line.utf8))
        #expect(reply?["id"] == .null)
        #expect(reply?["error"]?["code"] == "permissionDenied")
        #expect(waitUntil(seconds: 5) { server.probe.diagnostics.withLock { $0.contains { $0.contains("refused pid") && $0.contains("uid 65534") } } })
        #expect(server.probe.calls.load(ordering: .relaxed) == 0)
        #expect(try server.client().call("echo").get() == [:])
    }
}
