import AudioGraph
import AudioSession

/// One entry of a scenario timeline: an action and when it happens.
public struct TimelineEntry: Sendable, Equatable {
    /// Seconds from the start of the render, finite and at least 0.
    public let time: Double
    public let action: EngineCommand
    /// Where the entry is in the file (`/timeline/3`).
    public let pointer: String
    public let line: Int?
    public let column: Int?
    /// The entry as written in the file, as compact JSON text (for the event log's "action" field).
    public let sourceJSON: String

    public init(time: Double, action: EngineCommand, pointer: String, line: Int? = nil, column: Int? = nil,
                sourceJSON: String) {
        self.time = time
        self.action = action
        self.pointer = pointer
        self.line = line
        self.column = column
        self.sourceJSON = sourceJSON
    }
}
