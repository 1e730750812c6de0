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
    /// Its latency range in frames: capture latency for an input, playback for an output.
    public var latency: ClosedRange<Int>

    public init(name: String, app: String, port: String, type: String, direction: Direction, connections: [String],
                latency: ClosedRange<Int>) {
        self.name = name
        self.app = app
        self.port = port
        self.type = type
        self.direction = direction
        self.connections = connections
        self.latency = latency
    }

    public var json: ControlJSON {
        .object([
            ("name", .string(name)), ("app", .string(app)), ("port", .string(port)), ("type", .string(type)),
            ("direction", .string(direction.rawValue)), ("connections", .array(connections.map(ControlJSON.string))),
            ("latency", .object([("min", .number(Double(latency.lowerBound))), ("max", .number(Double(latency.upperBound)))])),
        ])
    }

    /// Reads one element; nil when it is not a port.
    public init?(json: ControlJSON) {
        guard let name = json["name"]?.stringValue, let app = json["app"]?.stringValue, let port = json["port"]?.stringValue,
              let type = json["type"]?.stringValue, let direction = json["direction"]?.stringValue.flatMap(Direction.init),
              let connections = json["connections"]?.arrayValue?.compactMap(\.stringValue) else { return nil }
        let low = json["latency"]?["min"]?.intValue ?? 0, high = json["latency"]?["max"]?.intValue ?? 0
        self.init(name: name, app: app, port: port, type: type, direction: direction, connections: connections,
                  latency: low...max(low, high))
    }
}
