/// Every request a client may send (PROTOCOL.md, "Methods"): its method with its params, typed.
/// Clients write requests from this type (`iaa`, a satellite's link, the tests' canned engine
/// reads them back into it); the engine reads a request's params with the graph's own readers,
/// which know the running graph (an app that is not there gets "did you mean"), and a test
/// checks that every call written here is one the engine accepts.
public enum ControlCall: Sendable, Equatable {
    case status, ports, events, top, meters
    /// `graph`: the graph file that reproduces the running engine instead of the state.
    case dump(graph: Bool)
    case graph(format: GraphFormat)
    /// `from`/`to`: `APP:PORT`, a full JACK name, or a glob; `gain` of an internal connection.
    case connect(from: String, to: String, gain: Double?)
    case disconnect(from: String, to: String)
    /// One parameter, or all of the app's when `param` is nil.
    case get(app: String, param: String?)
    case set(app: String, param: String, value: ParameterInput)
    case setCategory(app: String, category: String, mode: String?, options: [String]?)
    case activate(app: String)
    case deactivate(app: String, notifyOthers: Bool)
    case startAudio(app: String, recording: Bool)
    case stopAudio(app: String)
    case preferredBuffer(app: String, frames: Int)
    case sessionGet(app: String)
    case attach(app: String)
    case foreground(app: String)
    case background(app: String)
    case task(app: String, action: TaskAction)
    /// Either or both of the device's switches.
    case device(silent: Bool?, locked: Bool?)
    case interrupt(type: InterruptionPhase, reason: String?)
    case remote(command: RemoteCommand)
    /// `file` names the text in error locations.
    case apply(text: String, file: String, dryRun: Bool)
    case reload(app: String)
    case enable(app: String)

    public enum GraphFormat: String, Sendable, CaseIterable { case dot }
    public enum TaskAction: String, Sendable, CaseIterable { case begin, end }
    public enum InterruptionPhase: String, Sendable, CaseIterable { case begin, end }
    public enum RemoteCommand: String, Sendable, CaseIterable { case play, pause, togglePlayPause, next, previous }

    /// A parameter's new value: a number, or text the engine parses (`"0.5"`, `"50%"`, `"-6dB"`).
    public enum ParameterInput: Sendable, Equatable {
        case number(Double)
        case text(String)

        var json: ControlJSON {
            switch self {
            case .number(let value): .number(value)
            case .text(let text): .string(text)
            }
        }
    }

    public var method: ControlMethod {
        switch self {
        case .status: .status
        case .ports: .ports
        case .events: .events
        case .top: .top
        case .meters: .meters
        case .dump: .dump
        case .graph: .graph
        case .connect: .connect
        case .disconnect: .disconnect
        case .get: .get
        case .set: .set
        case .setCategory: .setCategory
        case .activate: .activate
        case .deactivate: .deactivate
        case .startAudio: .startAudio
        case .stopAudio: .stopAudio
        case .preferredBuffer: .preferredBuffer
        case .sessionGet: .sessionGet
        case .attach: .attach
        case .foreground: .foreground
        case .background: .background
        case .task: .task
        case .device: .device
        case .interrupt: .interrupt
        case .remote: .remote
        case .apply: .apply
        case .reload: .reload
        case .enable: .enable
        }
    }

    /// The app the call is for, when it is for one.
    public var app: String? {
        switch self {
        case .get(let app, _), .set(let app, _, _), .setCategory(let app, _, _, _), .activate(let app), .deactivate(let app, _),
             .startAudio(let app, _), .stopAudio(let app), .preferredBuffer(let app, _), .sessionGet(let app), .attach(let app),
             .foreground(let app), .background(let app), .task(let app, _), .reload(let app), .enable(let app):
            app
        case .status, .ports, .events, .top, .meters, .dump, .graph, .connect, .disconnect, .device, .interrupt, .remote, .apply:
            nil
        }
    }

    /// The params object; an optional member left nil is left out.
    public var params: ControlJSON {
        var members: [(String, ControlJSON)] = []
        func add(_ key: String, _ value: ControlJSON?) { if let value { members.append((key, value)) } }
        switch self {
        case .status, .ports, .events, .top, .meters:
            break
        case .dump(let graph):
            if graph { add("graph", .bool(true)) }
        case .graph(let format):
            add("format", .string(format.rawValue))
        case .connect(let from, let to, let gain):
            add("from", .string(from))
            add("to", .string(to))
            add("gain", gain.map(ControlJSON.number))
        case .disconnect(let from, let to):
            add("from", .string(from))
            add("to", .string(to))
        case .get(let app, let param):
            add("app", .string(app))
            add("param", param.map(ControlJSON.string))
        case .set(let app, let param, let value):
            add("app", .string(app))
            add("param", .string(param))
            add("value", value.json)
        case .setCategory(let app, let category, let mode, let options):
            add("app", .string(app))
            add("category", .string(category))
            add("mode", mode.map(ControlJSON.string))
            add("options", options.map { .init($0) })
        case .deactivate(let app, let notifyOthers):
            add("app", .string(app))
            if notifyOthers { add("notifyOthers", .bool(true)) }
        case .startAudio(let app, let recording):
            add("app", .string(app))
            if recording { add("recording", .bool(true)) }
        case .preferredBuffer(let app, let frames):
            add("app", .string(app))
            add("frames", .init(frames))
        case .task(let app, let action):
            add("app", .string(app))
            add("action", .string(action.rawValue))
        case .device(let silent, let locked):
            add("silent", silent.map(ControlJSON.bool))
            add("locked", locked.map(ControlJSON.bool))
        case .interrupt(let type, let reason):
            add("type", .string(type.rawValue))
            add("reason", reason.map(ControlJSON.string))
        case .remote(let command):
            add("command", .string(command.rawValue))
        case .apply(let text, let file, let dryRun):
            add("text", .string(text))
            add("file", .string(file))
            if dryRun { add("dryRun", .bool(true)) }
        case .activate(let app), .stopAudio(let app), .sessionGet(let app), .attach(let app), .foreground(let app),
             .background(let app), .reload(let app), .enable(let app):
            add("app", .string(app))
        }
        return .object(members)
    }

    /// Reads a request back (what a stand-in engine does); nil when a member it needs is missing
    /// or mistyped. The engine itself reads params with more to say (``ControlCall``'s summary).
    public init?(method: ControlMethod, params: ControlJSON) {
        func text(_ key: String) -> String? { params[key]?.stringValue }
        func flag(_ key: String) -> Bool { params[key]?.boolValue ?? false }
        let app = text("app")
        switch method {
        case .status: self = .status
        case .ports: self = .ports
        case .events: self = .events
        case .top: self = .top
        case .meters: self = .meters
        case .dump: self = .dump(graph: flag("graph"))
        case .graph:
            guard let format = text("format").flatMap(GraphFormat.init(rawValue:)) else { return nil }
            self = .graph(format: format)
        case .connect, .disconnect:
            guard let from = text("from"), let to = text("to") else { return nil }
            self = method == .connect ? .connect(from: from, to: to, gain: params["gain"]?.doubleValue) : .disconnect(from: from, to: to)
        case .get:
            guard let app else { return nil }
            self = .get(app: app, param: text("param"))
        case .set:
            guard let app, let param = text("param") else { return nil }
            if let number = params["value"]?.doubleValue {
                self = .set(app: app, param: param, value: .number(number))
            } else if let value = text("value") {
                self = .set(app: app, param: param, value: .text(value))
            } else {
                return nil
            }
        case .setCategory:
            guard let app, let category = text("category") else { return nil }
            self = .setCategory(app: app, category: category, mode: text("mode"), options: params["options"]?.strings)
        case .deactivate:
            guard let app else { return nil }
            self = .deactivate(app: app, notifyOthers: flag("notifyOthers"))
        case .startAudio:
            guard let app else { return nil }
            self = .startAudio(app: app, recording: flag("recording"))
        case .preferredBuffer:
            guard let app, let frames = params["frames"]?.intValue else { return nil }
            self = .preferredBuffer(app: app, frames: frames)
        case .task:
            guard let app, let action = text("action").flatMap(TaskAction.init(rawValue:)) else { return nil }
            self = .task(app: app, action: action)
        case .device:
            self = .device(silent: params["silent"]?.boolValue, locked: params["locked"]?.boolValue)
        case .interrupt:
            guard let type = text("type").flatMap(InterruptionPhase.init(rawValue:)) else { return nil }
            self = .interrupt(type: type, reason: text("reason"))
        case .remote:
            guard let command = text("command").flatMap(RemoteCommand.init(rawValue:)) else { return nil }
            self = .remote(command: command)
        case .apply:
            guard let text = text("text") else { return nil }
            self = .apply(text: text, file: params["file"]?.stringValue ?? "", dryRun: flag("dryRun"))
        case .activate, .stopAudio, .sessionGet, .attach, .foreground, .background, .reload, .enable:
            guard let app else { return nil }
            switch method {
            case .activate: self = .activate(app: app)
            case .stopAudio: self = .stopAudio(app: app)
            case .sessionGet: self = .sessionGet(app: app)
            case .attach: self = .attach(app: app)
            case .foreground: self = .foreground(app: app)
            case .background: self = .background(app: app)
            case .reload: self = .reload(app: app)
            default: self = .enable(app: app)
            }
        }
    }
}

extension ControlClient {
    /// Sends `call` and waits for its reply.
    public func call(_ call: ControlCall) throws(ControlSocketError) -> Result<ControlJSON, ControlError> {
        try self.call(call.method.rawValue, params: call.params)
    }
}
