import CIsolation

/// What `iaa status` shows for an isolated app.
public struct IsolationStatus: Sendable {
    public enum State: String, Sendable {
        /// The child is being started (first start or restart) and not ready yet.
        case starting
        case running
        /// It faulted; a new child starts after the backoff.
        case restarting
        /// It faulted too often (or its node cannot be created): off until `iaa enable`.
        case off
    }

    public var state: State
    public var pid: Int32?
    /// Children started after the first one.
    public var restarts: Int
    /// The last fault, if any.
    public var fault: ChildFault?
    /// The IAA_RESTRICT_* bits the running child applied to itself.
    public var restrictions: UInt32
    /// What the child could not restrict, or why the app is off.
    public var note: String?
    /// Cycles since the app started in which its child did not answer within its share of the
    /// period, so the app was silent in them (a hang is 3 in a row; single ones are a slow child).
    public var lateCycles: UInt64 = 0

    /// `["no-new-privs", "landlock", "seccomp"]`, as far as applied.
    public var restrictionNames: [String] {
        var names: [String] = []
        if restrictions & IAA_RESTRICT_NO_NEW_PRIVS != 0 { names.append("no-new-privs") }
        if restrictions & IAA_RESTRICT_LANDLOCK != 0 { names.append("landlock") }
        if restrictions & IAA_RESTRICT_SECCOMP != 0 { names.append("seccomp") }
        return names
    }
}

/// What the supervisor reports to the engine as it happens (an event line, a log line).
public struct IsolationEvent: Sendable {
    public enum Kind: Sendable {
        /// A child is ready and renders the app (`restart` 0 for the first).
        case started(pid: Int32, restart: Int)
        /// The child faulted; a new one starts after `restartIn` seconds, or never (nil: off
        /// until `iaa enable`).
        case faulted(ChildFault, restartIn: Double?)
        /// The shared memory or the child could not be set up at all.
        case setupFailed(String)
    }

    public let app: String
    public let kind: Kind

    public init(app: String, kind: Kind) {
        self.app = app
        self.kind = kind
    }
}
