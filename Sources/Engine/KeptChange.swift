import AudioSession
import ControlSocket

/// One acknowledged change as the journal keeps it (docs/state.md). Ports and apps are named as
/// a graph file names them (`app:port`, outside ports in full), so that a change replays onto
/// the graph file the snapshot holds (``KeptGraph``).
enum KeptChange: Equatable {
    case parameter(app: String, param: String, value: Double)
    case connect(from: String, to: String, gain: Double)
    case disconnect(from: String, to: String)
    /// `ports`: the pair's full port names, as the rules' held pairs are named.
    case jackConnect(from: String, to: String, ports: [String])
    /// `rule`: the pair is one of a connection rule's, which stays removed (held) rather than
    /// being struck from `jack.connections`.
    case jackDisconnect(from: String, to: String, ports: [String], rule: Bool)
    case session(app: String, KeptSession)

    /// The journal's `kind` column.
    var kind: String {
        switch self {
        case .parameter: "parameter"
        case .connect: "connect"
        case .disconnect: "disconnect"
        case .jackConnect: "jackConnect"
        case .jackDisconnect: "jackDisconnect"
        case .session: "session"
        }
    }

    /// The journal's `body` column.
    var body: String {
        let pairs: [(String, ControlJSON)] = switch self {
        case .parameter(let app, let param, let value): [("app", .string(app)), ("param", .string(param)), ("value", .number(value))]
        case .connect(let from, let to, let gain): [("from", .string(from)), ("to", .string(to)), ("gain", .number(gain))]
        case .disconnect(let from, let to): [("from", .string(from)), ("to", .string(to))]
        case .jackConnect(let from, let to, let ports):
            [("from", .string(from)), ("to", .string(to)), ("ports", .array(ports.map(ControlJSON.string)))]
        case .jackDisconnect(let from, let to, let ports, let rule):
            [("from", .string(from)), ("to", .string(to)), ("ports", .array(ports.map(ControlJSON.string))), ("rule", .bool(rule))]
        case .session(let app, let session): [("app", .string(app))] + session.pairs
        }
        return ControlJSON.object(pairs).text
    }

    /// The change a journal row holds; nil for a row this iaa cannot read (a newer one's kind, or
    /// damage), which the caller reports.
    init?(kind: String, body: String) {
        guard let json = try? ControlJSONParser.parse(body) else { return nil }
        let string = { (key: String) in json[key]?.stringValue }
        switch kind {
        case "parameter":
            guard let app = string("app"), let param = string("param"), let value = json["value"]?.doubleValue else { return nil }
            self = .parameter(app: app, param: param, value: value)
        case "connect":
            guard let from = string("from"), let to = string("to"), let gain = json["gain"]?.doubleValue else { return nil }
            self = .connect(from: from, to: to, gain: gain)
        case "disconnect":
            guard let from = string("from"), let to = string("to") else { return nil }
            self = .disconnect(from: from, to: to)
        case "jackConnect", "jackDisconnect":
            guard let from = string("from"), let to = string("to"),
                  let ports = json["ports"]?.arrayValue?.compactMap(\.stringValue), ports.count == 2 else { return nil }
            if kind == "jackConnect" {
                self = .jackConnect(from: from, to: to, ports: ports)
            } else {
                guard let rule = json["rule"]?.boolValue else { return nil }
                self = .jackDisconnect(from: from, to: to, ports: ports, rule: rule)
            }
        case "session":
            guard let app = string("app"), let session = KeptSession(json) else { return nil }
            self = .session(app: app, session)
        default:
            return nil
        }
    }
}

/// The part of an app's session that a graph file holds and a restart restores: category, mode,
/// options as the app set them, activation and foreground.
struct KeptSession: Equatable {
    var category: String
    var mode: String
    var options: [String]
    var active: Bool
    var foreground: Bool

    init(_ state: AppSessionState) {
        category = state.category.rawValue
        mode = state.mode.rawValue
        options = Self.writtenOptions(state.options, category: state.category).map(\.rawValue).sorted()
        active = state.active
        foreground = state.foreground
    }

    init?(_ json: ControlJSON) {
        guard let category = json["category"]?.stringValue, let mode = json["mode"]?.stringValue,
              let options = json["options"]?.arrayValue?.compactMap(\.stringValue),
              let active = json["active"]?.boolValue, let foreground = json["foreground"]?.boolValue else { return nil }
        (self.category, self.mode, self.options, self.active, self.foreground) = (category, mode, options, active, foreground)
    }

    var pairs: [(String, ControlJSON)] {
        [("category", .string(category)), ("mode", .string(mode)), ("options", .array(options.map(ControlJSON.string))),
         ("active", .bool(active)), ("foreground", .bool(foreground))]
    }

    /// Options as the app set them: the `mixWithOthers` that ambient, `duckOthers` and
    /// `interruptSpokenAudioAndMixWithOthers` imply is not written (ambient's may not be).
    static func writtenOptions(_ options: Set<SessionOption>, category: SessionCategory) -> Set<SessionOption> {
        guard category == .ambient || !options.isDisjoint(with: [.duckOthers, .interruptSpokenAudioAndMixWithOthers]) else { return options }
        return options.subtracting([.mixWithOthers])
    }
}
