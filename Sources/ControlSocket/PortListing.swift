/// One element of the `ports` reply (PROTOCOL.md, `ports`): one of the engine's JACK ports as
/// `jack_lsp` shows it. The engine writes it from this type and `iaa ports` reads it back.
public struct PortListing: Sendable, Equatable {
    public enum Direction: String, Sendable {
        case input, output
    }

    /// The full JACK name, `CLIENT:APP.PORT`.
    public var name: String
    public var app: String
    public var port: String
    /// JACK's type string (`32 bit float mono audio`, `8 bit raw midi`).
    public var type: String
    public var direction: Direction
    /// The ports it is connected to, by full name.
    public var connections: [String]
    /// Its latency ranges in frames, as JACK holds them: how long ago what it carries was
    /// captured, and how long until it is played (docs/latency.md).
    public var capture: ClosedRange<Int>
    public var playback: ClosedRange<Int>

    public init(name: String, app: String, port: String, type: String, direction: Direction, connections: [String],
                capture: ClosedRange<Int>, playback: ClosedRange<Int>) {
        self.name = name
        self.app = app
        self.port = port
        self.type = type
        self.direction = direction
        self.connections = connections
        self.capture = capture
        self.playback = playback
    }

    public var json: ControlJSON {
        .object([
            ("name", .string(name)), ("app", .string(app)), ("port", .string(port)), ("type", .string(type)),
            ("direction", .string(direction.rawValue)), ("connections", .array(connections.map(ControlJSON.string))),
            ("latency", .object([("capture", Self.json(capture)), ("playback", Self.json(playback))])),
        ])
    }

    /// Reads one element; nil when it is not a port.
    public init?(json: ControlJSON) {
        guard let name = json["name"]?.stringValue, let app = json["app"]?.stringValue, let port = json["port"]?.stringValue,
              let type = json["type"]?.stringValue, let direction = json["direction"]?.stringValue.flatMap(Direction.init),
              let connections = json["connections"]?.arrayValue?.compactMap(\.stringValue) else { return nil }
        self.init(name: name, app: app, port: port, type: type, direction: direction, connections: connections,
                  capture: Self.range(json["latency"]?["capture"]), playback: Self.range(json["latency"]?["playback"]))
    }

    private static func json(_ range: ClosedRange<Int>) -> ControlJSON {
        .object([("min", .number(Double(range.lowerBound))), ("max", .number(Double(range.upperBound)))])
    }

    private static func range(_ json: ControlJSON?) -> ClosedRange<Int> {
        let low = json?["min"]?.intValue ?? 0, high = json?["max"]?.intValue ?? 0
        return low...max(low, high)
    }
}
