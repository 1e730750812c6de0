/// The small replies about one app (PROTOCOL.md): `reload`, `enable`, `remote` and
/// `session.preferredBuffer`. The engine writes them from these types and the command line reads
/// them back.
public struct ReloadReply: Sendable, Equatable {
    public var app: String
    /// Whether a rebuilt library was swapped in; false when it had not changed.
    public var reloaded: Bool
    public var library: String
    /// The loaded file's identity, when reloaded.
    public var identity: String?

    public init(app: String, reloaded: Bool, library: String, identity: String? = nil) {
        self.app = app
        self.reloaded = reloaded
        self.library = library
        self.identity = identity
    }

    public var json: ControlJSON {
        var pairs: [(String, ControlJSON)] = [("app", .string(app)), ("reloaded", .bool(reloaded)), ("library", .string(library))]
        if let identity { pairs.append(("identity", .string(identity))) } else {
            pairs.append(("reason", .string("the library has not changed since it was loaded")))
        }
        return .object(pairs)
    }

    public init?(json: ControlJSON) {
        guard let app = json["app"]?.stringValue, let reloaded = json["reloaded"]?.boolValue,
              let library = json["library"]?.stringValue else { return nil }
        self.init(app: app, reloaded: reloaded, library: library, identity: json["identity"]?.stringValue)
    }
}

/// `enable`: whether the app was muted for a fault (or its isolated child off) and is enabled now.
public struct EnableReply: Sendable, Equatable {
    public var app: String
    public var enabled: Bool

    public init(app: String, enabled: Bool) {
        self.app = app
        self.enabled = enabled
    }

    public var json: ControlJSON { .object([("app", .string(app)), ("enabled", .bool(enabled))]) }

    public init?(json: ControlJSON) {
        guard let app = json["app"]?.stringValue, let enabled = json["enabled"]?.boolValue else { return nil }
        self.init(app: app, enabled: enabled)
    }
}

/// `remote`: the Now Playing app the command went to.
public struct RemoteReply: Sendable, Equatable {
    public var app: String

    public init(app: String) { self.app = app }

    public var json: ControlJSON { .object([("app", .string(app))]) }

    public init?(json: ControlJSON) {
        guard let app = json["app"]?.stringValue else { return nil }
        self.init(app: app)
    }
}

/// `session.preferredBuffer`: the buffer size JACK runs at now.
public struct BufferReply: Sendable, Equatable {
    public var bufferSize: Int

    public init(bufferSize: Int) { self.bufferSize = bufferSize }

    public var json: ControlJSON { .object([("bufferSize", .number(Double(bufferSize)))]) }

    public init?(json: ControlJSON) {
        guard let frames = json["bufferSize"]?.intValue else { return nil }
        self.init(bufferSize: frames)
    }
}
