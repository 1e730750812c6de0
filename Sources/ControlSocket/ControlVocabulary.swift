/// The control protocol's words, typed: every method a client may call and every error code the
/// transport answers with. PROTOCOL.md lists exactly these (a test reads it against them).
public enum ControlMethod: String, CaseIterable, Sendable {
    case status, dump, ports, graph, connect, disconnect, get, set
    case setCategory = "session.setCategory"
    case activate = "session.activate"
    case deactivate = "session.deactivate"
    case startAudio = "session.startAudio"
    case stopAudio = "session.stopAudio"
    case preferredBuffer = "session.preferredBuffer"
    /// The calling program's app's session (programs; see "Programs" in PROTOCOL.md).
    case sessionGet = "session.get"
    /// Binds the connection to a program app; a stream private to that app follows.
    case attach = "program.attach"
    case foreground = "app.foreground"
    case background = "app.background"
    case task = "app.task"
    case device, interrupt, remote, apply, reload, enable
    /// Streams: one reply, then lines until the client closes.
    case events, top, meters

    /// The methods that are one audio-session action (their reply is an Outcome).
    public var isSessionAction: Bool {
        switch self {
        case .setCategory, .activate, .deactivate, .startAudio, .stopAudio, .foreground, .background, .task, .device,
             .interrupt: true
        default: false
        }
    }

    /// The session actions that act for one app (`app`); `device` and `interrupt` act for all.
    public var isOneAppSessionAction: Bool {
        isSessionAction && self != .device && self != .interrupt
    }
}

/// Codes the transport itself answers with, before a request reaches the engine.
public enum TransportErrorCode: String, CaseIterable, Sendable {
    /// The line is not JSON (the reply's id is null, since none could be read).
    case parseError
    /// JSON, but not a request: no or wrong-typed `id`, `method` or `params`, or an unknown member.
    case invalidRequest
    /// A line longer than ``ControlServer/Limits/maximumRequestBytes``; the connection is closed.
    case requestTooLarge
    /// The peer runs as another user; the connection is closed.
    case permissionDenied
    /// The server already holds its maximum number of connections; the connection is closed.
    case tooManyConnections
}
