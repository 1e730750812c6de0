/// One line of the `meters` stream (PROTOCOL.md, `meters`): each app's output level since the
/// previous line, 20 lines a second. The engine writes it from this type and readers (the
/// dashboard's page aside) read it back into it.
public struct MetersUpdate: Sendable, Equatable {
    public struct Level: Sendable, Equatable {
        public var id: String
        /// dBFS over the app's outputs, nil for exact silence.
        public var peak: Double?
        public var rms: Double?

        public init(id: String, peak: Double?, rms: Double?) {
            self.id = id
            self.peak = peak
            self.rms = rms
        }
    }

    /// Seconds on the engine's clock.
    public var time: Double
    public var levels: [Level]

    public init(time: Double, levels: [Level]) {
        self.time = time
        self.levels = levels
    }

    /// The interval between lines, in seconds.
    public static let interval = 0.05

    /// The line as the protocol carries it; silence is ``TopUpdate/silence`` (JSON has no -∞).
    public var json: ControlJSON {
        .object([
            ("t", .number(time)),
            ("meters", .array(levels.map { level in
                .object([("id", .string(level.id)), ("peak", .number(level.peak ?? TopUpdate.silence)),
                         ("rms", .number(level.rms ?? TopUpdate.silence))])
            })),
        ])
    }

    /// Reads a line; nil when it is not a `meters` line.
    public init?(json: ControlJSON) {
        guard let time = json["t"]?.doubleValue, let elements = json["meters"]?.arrayValue else { return nil }
        var levels: [Level] = []
        for element in elements {
            guard let id = element["id"]?.stringValue else { return nil }
            func level(_ key: String) -> Double? { element[key]?.doubleValue.flatMap { $0 > TopUpdate.silence ? $0 : nil } }
            levels.append(Level(id: id, peak: level("peak"), rms: level("rms")))
        }
        self.init(time: time, levels: levels)
    }
}
