/// The replies of `connect` and `disconnect` (PROTOCOL.md): the connections made or removed,
/// each between app ports (`internal`) or JACK ports. The engine writes them from this type and
/// `iaa connect`/`iaa disconnect` read them back.
public struct ConnectionsReply: Sendable, Equatable {
    public struct Connection: Sendable, Equatable {
        /// `APP:PORT` for an internal connection, full JACK names otherwise.
        public var from: String
        public var to: String
        public var isInternal: Bool
        /// Connect only: it was there already (JACK's EEXIST).
        public var already: Bool?

        public init(from: String, to: String, isInternal: Bool, already: Bool? = nil) {
            self.from = from
            self.to = to
            self.isInternal = isInternal
            self.already = already
        }
    }

    /// `connected` or `disconnected`.
    public enum Kind: String, Sendable {
        case connected, disconnected
    }

    public var kind: Kind
    public var connections: [Connection]

    public init(_ kind: Kind, _ connections: [Connection]) {
        self.kind = kind
        self.connections = connections
    }

    public var json: ControlJSON {
        .object([(kind.rawValue, .array(connections.map { connection in
            var pairs: [(String, ControlJSON)] = [("from", .string(connection.from)), ("to", .string(connection.to)),
                                                  ("internal", .bool(connection.isInternal))]
            if let already = connection.already { pairs.append(("already", .bool(already))) }
            return .object(pairs)
        }))])
    }

    public init?(json: ControlJSON) {
        guard let kind = [Kind.connected, .disconnected].first(where: { json[$0.rawValue] != nil }),
              let elements = json[kind.rawValue]?.arrayValue else { return nil }
        var connections: [Connection] = []
        for element in elements {
            guard let from = element["from"]?.stringValue, let to = element["to"]?.stringValue,
                  let isInternal = element["internal"]?.boolValue else { return nil }
            connections.append(Connection(from: from, to: to, isInternal: isInternal, already: element["already"]?.boolValue))
        }
        self.init(kind, connections)
    }
}

/// The reply of `set` (PROTOCOL.md): the parameter as it now is.
public struct SetReply: Sendable, Equatable {
    public var app: String
    public var param: String
    public var value: Double

    public init(app: String, param: String, value: Double) {
        self.app = app
        self.param = param
        self.value = value
    }

    public var json: ControlJSON {
        .object([("app", .string(app)), ("param", .string(param)), ("value", .number(value))])
    }

    public init?(json: ControlJSON) {
        guard let app = json["app"]?.stringValue, let param = json["param"]?.stringValue, let value = json["value"]?.doubleValue else { return nil }
        self.init(app: app, param: param, value: value)
    }
}
