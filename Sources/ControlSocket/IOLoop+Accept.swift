#if canImport(Glibc)
import Glibc
#endif
import CPeerCredentials

/// Accepting clients, and refusing the ones that do not belong.
extension IOLoop {
    /// Accepts the waiting clients (a bounded batch, so a connection storm cannot starve the others).
    func acceptClients() {
        for _ in 0..<64 {
            let fd = CPeerCredentials_accept(listenFD)
            if fd < 0 {
                if errno == EINTR { continue }
                if errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM {
                    // The client stays in the backlog; retry when descriptors may have been freed.
                    acceptPausedUntil = .now + .milliseconds(100)
                    diagnostics?("control socket: cannot accept a client: \(String(cString: strerror(errno)))")
                }
                return
            }
            var uid: UInt32 = 0
            var pid: Int32 = 0
            guard CPeerCredentials_get(fd, &uid, &pid) == 0 else {
                _ = close(fd)
                continue
            }
            // Root is not special: the socket belongs to the engine's user and nobody else's.
            guard uid == self.uid else {
                diagnostics?("control socket: refused pid \(pid) of uid \(uid) (not the engine's uid \(self.uid))")
                refuse(fd, ControlError(.permissionDenied,
                    message: "this iaa engine accepts requests only from uid \(self.uid), its own user; you are uid \(uid)"))
                continue
            }
            if connections.count >= limits.maximumConnections, let idle = oldestWithoutRequest() {
                drop(idle, reason: "client pid \(idle.peer.pid) had sent no request; disconnected to make room for a new client (\(limits.maximumConnections) connections at most)")
            }
            guard connections.count < limits.maximumConnections else {
                refuse(fd, ControlError(.tooManyConnections,
                    message: "the engine already serves \(limits.maximumConnections) control connections; try again later"))
                continue
            }
            let connection = ControlConnection(id: nextID, fd: fd, peer: ControlPeer(uid: uid, pid: pid, executable: Self.executable(of: pid)))
            nextID &+= 1
            connections[connection.id] = connection
        }
    }

    /// `/proc/PID/exe` of the process that connected, read as it connects.
    static func executable(of pid: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/\(pid)/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The connection that has waited longest without sending a request, if any.
    private func oldestWithoutRequest() -> ControlConnection? {
        connections.values.filter { !$0.sentRequest }.min { $0.id < $1.id }
    }

    /// One error line and close. A fresh socket's buffer takes the short line without blocking.
    private func refuse(_ fd: Int32, _ error: ControlError) {
        let line = RequestDecoder.replyLine(id: .null, .error(error))
        _ = line.withUnsafeBytes { UnixSocket.send(fd, $0) }
        _ = close(fd)
    }
}
