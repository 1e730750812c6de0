import AudioGraph
import AudioSession

/// One entry of a scenario timeline: an action and when it happens.
public struct TimelineEntry: Sendable, Equatable {
    /// Seconds from the start of the render, finite and at least 0.
    public let time: Double
    public let action: TimelineAction
    /// Where the entry is in the file (`/timeline/3`).
    public let pointer: String
    public let line: Int?
    public let column: Int?
    /// The entry as written in the file, as compact JSON text (for the event log's "action" field).
    public let sourceJSON: String

    public init(time: Double, action: TimelineAction, pointer: String, line: Int? = nil, column: Int? = nil,
                sourceJSON: String) {
        self.time = time
        self.action = action
        self.pointer = pointer
        self.line = line
        self.column = column
        self.sourceJSON = sourceJSON
    }
}

/// What a timeline entry does.
public enum TimelineAction: Sendable, Equatable {
    /// An action for the session policy.
    case session(SessionAction)
    /// A MIDI message to an app with a MIDI input (`midi`): 1 to 3 bytes, status byte first.
    case midi(app: String, bytes: [UInt8])
    /// The host transport starts (`play`) or stops (`stop`).
    case transport(playing: Bool)
    /// A parameter change (`setParam`): `index` into the app's `type.parameters`, the value
    /// range-checked.
    case setParameter(app: String, index: Int, value: Float)
    /// A live connection (`connect`); whether Inter-App Audio allows it is the engine's decision.
    case connect(Connection)
    /// A live disconnection (`disconnect`); the connection may have been made earlier in the timeline.
    case disconnect(from: PortAddress, to: PortAddress)
}
