/// An `events` line's `event` (PROTOCOL.md): `{"app", "name", …}`, an audio session's event as
/// Apple delivers it or one of the engine's own, each with exactly the members its name has.
/// `app` is null for what concerns no one app (a program refused before it was any app's, the
/// satellite's link, a stall in the engine's own cycle).
public enum EngineEvent: Sendable, Equatable {
    /// An audio session's event; `fromPrimary` when a satellite's primary decided it.
    case session(SessionEventMessage, fromPrimary: Bool)
    /// A program app's client or session-library connection came, went, was refused or rewired.
    case program(ProgramEvent)
    /// An isolated app's child process started; `restart` is 0 for the first.
    case isolatedStarted(app: String, pid: Int, restart: Int)
    /// An isolated app's child faulted (or could not be set up): the app is silent until it
    /// restarts in `restartIn` seconds, or until `enable` when that is nil.
    case isolatedFault(app: String, fault: String, signal: String?, reason: String, restartIn: Double?)
    /// An isolated app's child left `cycles` cycles unanswered since the last such line (kept off
    /// its CPU, or slower than its share of the period): the app was silent in them.
    /// `lateCycles` is the count in all, as in `status`.
    case isolatedLate(app: String, cycles: Int, lateCycles: Int)
    /// A node the engine muted or bypassed for a fault (`nonFinite`, `deadline`).
    case faultHandled(app: String, action: FaultAction, fault: String, reason: String)
    /// The audio thread has not finished a cycle for a while; `app` is the node it is stuck in.
    case audioStalled(app: String?, reason: String)
    /// Cycles run again after `audioStalled` (a node that was only very slow).
    case audioResumed
    /// A link end's bridge changed state.
    case linkState(app: String, state: AppStatus.Link.State, previous: AppStatus.Link.State, reason: String)
    /// A satellite's control link to its primary changed state.
    case satellite(state: SatelliteStatus.State, primary: String, reason: String)
    /// `remote` sent a remote-control command to the Now Playing app.
    case remoteControl(app: String, command: String)

    /// How the engine took a faulted node out of the cycle.
    public enum FaultAction: String, Sendable, CaseIterable {
        case muted, bypassed
    }

    public var app: String? {
        switch self {
        case .session(let message, _): message.app
        case .program(let event): event.app
        case .isolatedStarted(let app, _, _), .isolatedFault(let app, _, _, _, _), .isolatedLate(let app, _, _), .faultHandled(let app, _, _, _),
             .linkState(let app, _, _, _), .remoteControl(let app, _): app
        case .audioStalled(let app, _): app
        case .audioResumed, .satellite: nil
        }
    }

    public var name: String {
        switch self {
        case .session(let message, _): message.name
        case .program(let event): event.name.rawValue
        case .isolatedStarted: "isolatedStarted"
        case .isolatedFault: "isolatedFault"
        case .isolatedLate: "isolatedLate"
        case .faultHandled(_, let action, _, _): action.rawValue
        case .audioStalled: "audioStalled"
        case .audioResumed: "audioResumed"
        case .linkState: "linkState"
        case .satellite: "satellite"
        case .remoteControl: "remoteControl"
        }
    }

    public var json: ControlJSON {
        let head: [(String, ControlJSON)] = [("app", .init(app)), ("name", .string(name))]
        switch self {
        case .session(let message, let fromPrimary):
            guard fromPrimary, case .object(let members) = message.json else { return message.json }
            return .object(members + [("from", .string("primary"))])
        case .program(let event):
            return .object(head + event.members)
        case .isolatedStarted(_, let pid, let restart):
            return .object(head + [("pid", .init(pid)), ("restart", .init(restart))])
        case .isolatedFault(_, let fault, let signal, let reason, let restartIn):
            return .object(head + [("fault", .string(fault)), ("signal", .init(signal)), ("reason", .string(reason)),
                                   ("restartIn", .init(restartIn))])
        case .isolatedLate(_, let cycles, let lateCycles):
            return .object(head + [("cycles", .init(cycles)), ("lateCycles", .init(lateCycles))])
        case .faultHandled(_, _, let fault, let reason):
            return .object(head + [("fault", .string(fault)), ("reason", .string(reason))])
        case .audioStalled(_, let reason):
            return .object(head + [("reason", .string(reason))])
        case .audioResumed:
            return .object(head)
        case .linkState(_, let state, let previous, let reason):
            return .object(head + [("state", .string(state.rawValue)), ("previous", .string(previous.rawValue)), ("reason", .string(reason))])
        case .satellite(let state, let primary, let reason):
            return .object(head + [("state", .string(state.rawValue)), ("primary", .string(primary)), ("reason", .string(reason))])
        case .remoteControl(_, let command):
            return .object(head + [("command", .string(command))])
        }
    }

    public init?(json: ControlJSON) {
        guard let name = json["name"]?.stringValue else { return nil }
        let app = json["app"]?.stringValue
        let reason = json["reason"]?.stringValue
        if let programName = ProgramEvent.Name(rawValue: name) {
            guard let event = ProgramEvent(name: programName, app: app, json: json) else { return nil }
            self = .program(event)
            return
        }
        if let action = FaultAction(rawValue: name) {
            guard let app, let fault = json["fault"]?.stringValue, let reason else { return nil }
            self = .faultHandled(app: app, action: action, fault: fault, reason: reason)
            return
        }
        switch name {
        case "isolatedStarted":
            guard let app, let pid = json["pid"]?.intValue, let restart = json["restart"]?.intValue else { return nil }
            self = .isolatedStarted(app: app, pid: pid, restart: restart)
        case "isolatedFault":
            guard let app, let fault = json["fault"]?.stringValue, let reason else { return nil }
            self = .isolatedFault(app: app, fault: fault, signal: json["signal"]?.stringValue, reason: reason,
                                  restartIn: json["restartIn"]?.doubleValue)
        case "isolatedLate":
            guard let app, let cycles = json["cycles"]?.intValue, let lateCycles = json["lateCycles"]?.intValue else { return nil }
            self = .isolatedLate(app: app, cycles: cycles, lateCycles: lateCycles)
        case "audioStalled":
            guard let reason else { return nil }
            self = .audioStalled(app: app, reason: reason)
        case "audioResumed":
            self = .audioResumed
        case "linkState":
            guard let app, let state = json["state"]?.stringValue.flatMap(AppStatus.Link.State.init(rawValue:)),
                  let previous = json["previous"]?.stringValue.flatMap(AppStatus.Link.State.init(rawValue:)), let reason else { return nil }
            self = .linkState(app: app, state: state, previous: previous, reason: reason)
        case "satellite":
            guard let state = json["state"]?.stringValue.flatMap(SatelliteStatus.State.init(rawValue:)),
                  let primary = json["primary"]?.stringValue, let reason else { return nil }
            self = .satellite(state: state, primary: primary, reason: reason)
        case "remoteControl":
            guard let app, let command = json["command"]?.stringValue else { return nil }
            self = .remoteControl(app: app, command: command)
        default:
            guard SessionEventMessage.names.contains(name), let message = SessionEventMessage(json: json) else { return nil }
            self = .session(message, fromPrimary: json["from"]?.stringValue == "primary")
        }
    }
}

/// What happened to a program app (PROTOCOL.md, "Programs"): each name with its members.
public enum ProgramEvent: Sendable, Equatable {
    /// The engine connected a bound client's ports to the app's ends.
    case routed(app: String, client: String, pid: Int?, connections: [ConnectionEnds], unrouted: [String])
    /// A JACK client or a `program.attach` may not be the app (`app` nil: no app was made for it);
    /// `client` is nil for an attach.
    case refused(app: String?, client: String?, pid: Int?, reason: String)
    /// A connection that bypassed the app's session was undone.
    case bypassUndone(app: String, client: String, from: String, to: String, reason: String)
    /// A bound client left the server; `running` is whether another of the app's clients remains.
    case exited(app: String, client: String, pid: Int?, running: Bool)
    /// A process attached through the session library.
    case attached(app: String, pid: Int, executable: String?)
    /// The attached connection closed.
    case detached(app: String, pid: Int, wasActive: Bool)
    /// `programs.admit` made an app for a program the graph does not name. `refused` is why its
    /// session could not be set up, when it could not.
    case admitted(app: String, client: String?, pid: Int?, by: Admission, session: SessionStatus?, refused: String?, warnings: [String])
    /// An admitted app left the graph with its program.
    case removed(app: String, reason: String)

    /// What admitted a program: its JACK client registering ports, or its `program.attach`.
    public enum Admission: String, Sendable, CaseIterable {
        case jack, attach
    }

    public enum Name: String, Sendable, CaseIterable {
        case programRouted, programRefused, programBypassUndone, programExited, programAttached, programDetached, programAdmitted,
             programRemoved
    }

    public var name: Name {
        switch self {
        case .routed: .programRouted
        case .refused: .programRefused
        case .bypassUndone: .programBypassUndone
        case .exited: .programExited
        case .attached: .programAttached
        case .detached: .programDetached
        case .admitted: .programAdmitted
        case .removed: .programRemoved
        }
    }

    public var app: String? {
        switch self {
        case .refused(let app, _, _, _): app
        case .routed(let app, _, _, _, _), .bypassUndone(let app, _, _, _, _), .exited(let app, _, _, _), .attached(let app, _, _),
             .detached(let app, _, _), .admitted(let app, _, _, _, _, _, _), .removed(let app, _): app
        }
    }

    /// The members after `app` and `name`.
    var members: [(String, ControlJSON)] {
        switch self {
        case .routed(_, let client, let pid, let connections, let unrouted):
            [("client", .string(client)), ("pid", .init(pid)), ("connections", .array(connections.map(\.json))), ("unrouted", .init(unrouted))]
        case .refused(_, let client, let pid, let reason):
            [("client", .init(client)), ("pid", .init(pid)), ("reason", .string(reason))]
        case .bypassUndone(_, let client, let from, let to, let reason):
            [("client", .string(client)), ("from", .string(from)), ("to", .string(to)), ("reason", .string(reason))]
        case .exited(_, let client, let pid, let running):
            [("client", .string(client)), ("pid", .init(pid)), ("running", .bool(running))]
        case .attached(_, let pid, let executable):
            [("pid", .init(pid)), ("executable", .init(executable))]
        case .detached(_, let pid, let wasActive):
            [("pid", .init(pid)), ("wasActive", .bool(wasActive))]
        case .admitted(_, let client, let pid, let by, let session, let refused, let warnings):
            [("client", .init(client)), ("pid", .init(pid)), ("by", .string(by.rawValue)), ("session", session?.json ?? .null),
             ("refused", .init(refused)), ("warnings", .init(warnings))]
        case .removed(_, let reason):
            [("reason", .string(reason))]
        }
    }

    init?(name: Name, app: String?, json: ControlJSON) {
        let client = json["client"]?.stringValue
        let pid = json["pid"]?.intValue
        let reason = json["reason"]?.stringValue
        if name == .programRefused {
            guard let reason else { return nil }
            self = .refused(app: app, client: client, pid: pid, reason: reason)
            return
        }
        guard let app else { return nil }
        switch name {
        case .programRouted:
            guard let client else { return nil }
            self = .routed(app: app, client: client, pid: pid, connections: json["connections"]?.arrayValue?.compactMap(ConnectionEnds.init(json:)) ?? [],
                           unrouted: json["unrouted"]?.strings ?? [])
        case .programBypassUndone:
            guard let client, let from = json["from"]?.stringValue, let to = json["to"]?.stringValue, let reason else { return nil }
            self = .bypassUndone(app: app, client: client, from: from, to: to, reason: reason)
        case .programExited:
            guard let client, let running = json["running"]?.boolValue else { return nil }
            self = .exited(app: app, client: client, pid: pid, running: running)
        case .programAttached:
            guard let pid else { return nil }
            self = .attached(app: app, pid: pid, executable: json["executable"]?.stringValue)
        case .programDetached:
            guard let pid, let wasActive = json["wasActive"]?.boolValue else { return nil }
            self = .detached(app: app, pid: pid, wasActive: wasActive)
        case .programAdmitted:
            guard let by = json["by"]?.stringValue.flatMap(Admission.init(rawValue:)) else { return nil }
            self = .admitted(app: app, client: client, pid: pid, by: by, session: json["session"].flatMap(SessionStatus.init(json:)),
                             refused: json["refused"]?.stringValue, warnings: json["warnings"]?.strings ?? [])
        case .programRemoved:
            guard let reason else { return nil }
            self = .removed(app: app, reason: reason)
        case .programRefused:
            return nil
        }
    }
}
