/// One audio-session event as the protocol carries it (an `events` line's `event`, an Outcome's
/// `events`): Apple's notification for one app, with the members its kind has. The engine writes
/// it from this type and the command line reads it back.
public struct SessionEventMessage: Sendable, Equatable {
    public var app: String
    /// One of ``names``.
    public var name: String
    /// An interruption's `began`/`ended`, a secondary-audio hint's `begin`/`end`.
    public var type: String?
    /// An interruption's options (`shouldResume`).
    public var options: [String]?
    /// An interruption's, a route change's or a node disconnection's reason.
    public var reason: String?
    /// An interruption that began while the app was suspended.
    public var wasSuspended: Bool?
    /// The host or node at the other end of a node connection.
    public var peer: String?

    /// Every name a session event can have: Apple's notifications and Inter-App Audio's node events.
    public static let names: Set<String> = ["interruption", "routeChange", "silenceSecondaryAudioHint", "backgroundTaskWillExpire",
                                            "suspended", "resumed", "mediaServicesWereLost", "mediaServicesWereReset",
                                            "nodeConnected", "nodeDisconnected"]

    public init(app: String, name: String, type: String? = nil, options: [String]? = nil, reason: String? = nil,
                wasSuspended: Bool? = nil, peer: String? = nil) {
        self.app = app
        self.name = name
        self.type = type
        self.options = options
        self.reason = reason
        self.wasSuspended = wasSuspended
        self.peer = peer
    }

    public var json: ControlJSON {
        // A node event's peer before its reason, an interruption's type before its options.
        var pairs: [(String, ControlJSON)] = [("app", .string(app)), ("name", .string(name))]
        if let peer { pairs.append(("peer", .string(peer))) }
        if let type { pairs.append(("type", .string(type))) }
        if let options { pairs.append(("options", .array(options.map(ControlJSON.string)))) }
        if let reason { pairs.append(("reason", .string(reason))) }
        if let wasSuspended { pairs.append(("wasSuspended", .bool(wasSuspended))) }
        return .object(pairs)
    }

    public init?(json: ControlJSON) {
        guard let app = json["app"]?.stringValue, let name = json["name"]?.stringValue else { return nil }
        self.init(app: app, name: name, type: json["type"]?.stringValue, options: json["options"]?.arrayValue?.compactMap(\.stringValue),
                  reason: json["reason"]?.stringValue, wasSuspended: json["wasSuspended"]?.boolValue, peer: json["peer"]?.stringValue)
    }
}

/// The reply to every session action (PROTOCOL.md, "Outcome"): the events it caused, warnings,
/// and every managed app's session after it, keyed by app.
public struct ActionOutcome: Sendable, Equatable {
    public var events: [SessionEventMessage]
    public var warnings: [String]
    /// Each managed app's session after the action, in the graph's order (the session object as
    /// in `status`'s App).
    public var sessions: [(app: String, session: ControlJSON)]

    public init(events: [SessionEventMessage], warnings: [String], sessions: [(app: String, session: ControlJSON)]) {
        self.events = events
        self.warnings = warnings
        self.sessions = sessions
    }

    public var json: ControlJSON {
        .object([("ok", .bool(true)), ("events", .array(events.map(\.json))), ("warnings", .array(warnings.map(ControlJSON.string))),
                 ("sessions", .object(sessions.map { ($0.app, $0.session) }))])
    }

    public init?(json: ControlJSON) {
        guard json["ok"]?.boolValue == true, let events = json["events"]?.arrayValue else { return nil }
        let sessions: [(app: String, session: ControlJSON)]
        if case .object(let members)? = json["sessions"] { sessions = members.map { (app: $0.0, session: $0.1) } } else { sessions = [] }
        self.init(events: events.compactMap(SessionEventMessage.init(json:)),
                  warnings: json["warnings"]?.arrayValue?.compactMap(\.stringValue) ?? [], sessions: sessions)
    }

    public static func == (lhs: ActionOutcome, rhs: ActionOutcome) -> Bool {
        lhs.events == rhs.events && lhs.warnings == rhs.warnings
            && lhs.sessions.map(\.app) == rhs.sessions.map(\.app) && lhs.sessions.map(\.session) == rhs.sessions.map(\.session)
    }
}

/// `session.get`: one app's session now, as in `status`.
public struct SessionGetReply: Sendable, Equatable {
    public var app: String
    public var session: SessionStatus

    public init(app: String, session: SessionStatus) {
        self.app = app
        self.session = session
    }

    public var json: ControlJSON { .object([("app", .string(app)), ("session", session.json)]) }

    public init?(json: ControlJSON) {
        guard let app = json["app"]?.stringValue, let session = json["session"].flatMap(SessionStatus.init(json:)) else { return nil }
        self.init(app: app, session: session)
    }
}
