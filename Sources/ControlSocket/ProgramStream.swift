/// `program.attach`'s stream (PROTOCOL.md, "Programs"): its first reply, then a line per session
/// event of the app and per change of the gain the policy decides for it. The engine writes them
/// from these types; a satellite engine reads them back (docs/links.md).
public struct ProgramAttachReply: Sendable, Equatable {
    public var app: String
    /// The process that now speaks for the app.
    public var pid: Int
    /// The app's session now, as in `status`; nil for an app without one.
    public var session: SessionStatus?

    public init(app: String, pid: Int, session: SessionStatus?) {
        self.app = app
        self.pid = pid
        self.session = session
    }

    public var json: ControlJSON { .object([("app", .string(app)), ("pid", .init(pid)), ("session", session?.json ?? .null)]) }

    public init?(json: ControlJSON) {
        guard let app = json["app"]?.stringValue, let pid = json["pid"]?.intValue else { return nil }
        self.init(app: app, pid: pid, session: json["session"].flatMap(SessionStatus.init(json:)))
    }
}

/// What the policy decides for an attached app, sent when its gain changes: what a satellite
/// engine applies at its own output.
public struct ProgramDecision: Sendable, Equatable {
    public var app: String
    public var gain: Double
    public var active: Bool
    public var ducked: Bool
    public var interrupted: Bool

    public init(app: String, gain: Double, active: Bool, ducked: Bool, interrupted: Bool) {
        self.app = app
        self.gain = gain
        self.active = active
        self.ducked = ducked
        self.interrupted = interrupted
    }

    public var json: ControlJSON {
        .object([("app", .string(app)), ("gain", .number(gain)), ("active", .bool(active)), ("ducked", .bool(ducked)),
                 ("interrupted", .bool(interrupted))])
    }

    public init?(json: ControlJSON) {
        guard let app = json["app"]?.stringValue, let gain = json["gain"]?.doubleValue else { return nil }
        self.init(app: app, gain: gain, active: json["active"]?.boolValue ?? false, ducked: json["ducked"]?.boolValue ?? false,
                  interrupted: json["interrupted"]?.boolValue ?? false)
    }
}

/// One line of `program.attach`'s stream after its first reply, `t` seconds on the engine's clock.
public enum ProgramStreamLine: Sendable, Equatable {
    /// `{"t", "event": {…}}`: a session event of the app.
    case event(SessionEventMessage, at: Double)
    /// `{"t", "decision": {…}}`.
    case decision(ProgramDecision, at: Double)

    public var json: ControlJSON {
        switch self {
        case .event(let event, let time): .object([("t", .number(time)), ("event", event.json)])
        case .decision(let decision, let time): .object([("t", .number(time)), ("decision", decision.json)])
        }
    }

    public init?(json: ControlJSON) {
        let time = json["t"]?.doubleValue ?? 0
        if let decision = json["decision"].flatMap(ProgramDecision.init(json:)) {
            self = .decision(decision, at: time)
        } else if let event = json["event"].flatMap(SessionEventMessage.init(json:)) {
            self = .event(event, at: time)
        } else {
            return nil
        }
    }
}
