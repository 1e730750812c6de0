/// What makes an app a program app: which outside process it is (a JACK client name pattern,
/// optionally a user and an executable) and what the engine does about its connections.
/// The graph's `program` block; docs/programs.md has the design.
public struct ProgramBinding: Sendable, Hashable {
    /// What the engine does with a connection between the program's ports and ports that are
    /// not the engine's (`system:playback_1`): such a connection is heard without the session.
    public enum DirectConnections: String, Sendable, Hashable, CaseIterable {
        /// Disconnect it as soon as JACK reports it, with an event (the default).
        case undo
        /// Leave it: the session then governs only what goes through the engine.
        case allow
    }

    /// The JACK client name, exact or a glob (`mpv*`: JACK renames a second `mpv` to `mpv-01`);
    /// nil for a program that only speaks for its session and is not routed.
    public let jackClient: String?
    /// Only processes of this user are the app (nil: any of the engine's user's processes).
    public let uid: UInt32?
    /// Only this binary (`/proc/PID/exe`) is the app.
    public let executable: String?
    public let outputs: Int
    public let inputs: Int
    public let directConnections: DirectConnections
    /// The app is not in the graph file: the engine admitted it under the graph's
    /// `programs.admit` block when its program appeared, and removes it when the program leaves.
    public let admitted: Bool

    public init(jackClient: String?, uid: UInt32? = nil, executable: String? = nil, outputs: Int = 2, inputs: Int = 0,
                directConnections: DirectConnections = .undo, admitted: Bool = false) {
        self.jackClient = jackClient
        self.uid = uid
        self.executable = executable
        self.outputs = outputs
        self.inputs = inputs
        self.directConnections = directConnections
        self.admitted = admitted
    }

    /// Whether a JACK client called `name` is a candidate for this app.
    public func matches(client name: String) -> Bool {
        guard let jackClient else { return false }
        return PortGlob(jackClient).matches(name)
    }

    /// Why a process (its uid and executable path) may not be this app, or nil when it may.
    public func refusal(uid processUID: UInt32?, executable processExecutable: String?) -> String? {
        if let uid, processUID != uid {
            return "it runs as uid \(processUID.map(String.init) ?? "unknown"); the app's program.uid is \(uid)"
        }
        if let executable, processExecutable != executable {
            return "its executable is \(processExecutable ?? "unknown"); the app's program.executable is \(executable)"
        }
        return nil
    }
}
