/// One request read from a control connection, as the handler sees it.
public struct ControlRequest: Sendable {
    /// The client's id (a number or a string), echoed in the reply.
    public let id: ControlJSON
    /// The method name, never empty.
    public let method: String
    /// The `params` object's members (empty when the request had none), in the client's order.
    public let params: ControlJSON
    /// Who sent it, as the kernel vouches (SO_PEERCRED at connect time).
    public let peer: ControlPeer
    /// The connection it came on; stable for the connection's life, never reused by this server.
    public let connection: UInt64

    public init(id: ControlJSON, method: String, params: ControlJSON = .object([]), peer: ControlPeer, connection: UInt64) {
        self.id = id
        self.method = method
        self.params = params
        self.peer = peer
        self.connection = connection
    }

    /// The parameter named `name`, or `nil`.
    public subscript(name: String) -> ControlJSON? { params[name] }
}

/// The process at the other end of a control connection.
public struct ControlPeer: Sendable, Equatable {
    public let uid: UInt32
    public let pid: Int32
    /// The program the process ran when it connected (`/proc/PID/exe` then), nil when it could
    /// not be read: a process that connects and then `exec`s another program is still the one
    /// that connected (docs/programs.md, "What the identity check guarantees").
    public let executable: String?

    public init(uid: UInt32, pid: Int32, executable: String? = nil) {
        self.uid = uid
        self.pid = pid
        self.executable = executable
    }
}
