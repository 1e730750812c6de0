import AudioGraph
import RenderCore
import GraphFormat
import AudioSession
import ControlSocket
import NodeKit
import Suggestions

/// Reads control requests into ``EngineCommand``s (PROTOCOL.md, "Methods"). A parameter change
/// or a session action is the timeline's action of the same meaning, read by the one
/// ``CommandReader`` (so a request gets a timeline's checks, hints and suggestions); the request's
/// spellings that differ (`notifyOthers`, `app.task`'s `action`, the reason `call`) are turned
/// into the action's fields first. Connections are read here: a live one may name any JACK port
/// now present, which a timeline, rendered offline, has none of. Refusals carry the protocol's
/// codes and name the field at fault.
struct RequestDecoder {

    let graph: Graph
    /// The engine's JACK client name (a full name of our own port, `iaa:app.port`, is read as `app:port`).
    let clientName: String
    /// Our full port name for `app.port`.
    let fullName: (String) -> String
    /// The outside ports `@playback`, `@capture` and `@midi-capture` stand for now.
    let outsidePorts: (ExternalEndpoint) -> [String]

    /// One side of a connection: app ports, or port names outside the engine.
    enum Endpoint {
        case apps([PortAddress])
        case outside([String])
    }

    /// The command of a request whose method changes the engine: `set`, `connect`, `disconnect`
    /// and the session actions.
    func command(_ method: ControlMethod, _ request: ControlRequest) throws -> EngineCommand {
        switch method {
        case .connect: return try connection(request, connecting: true)
        case .disconnect: return try connection(request, connecting: false)
        default:
            let (action, fields) = try Self.action(method, request)
            switch CommandReader.command(action, fields: fields.node, graph: graph, strict: false) {
            case .success(let command): return command
            case .failure(let failure): throw Self.refusal(failure.diagnostics[0])
            }
        }
    }

    /// The timeline action a request's method is, with its parameters as that action's fields.
    private static func action(_ method: ControlMethod, _ request: ControlRequest) throws -> (String, ControlJSON) {
        let params = request.params
        switch method {
        case .set: return ("setParam", params)
        case .setCategory: return ("setCategory", params)
        case .activate: return ("activate", params)
        case .startAudio: return ("startAudio", params)
        case .stopAudio: return ("stopAudio", params)
        case .foreground: return ("foreground", params)
        case .background: return ("background", params)
        case .device: return ("device", params)
        case .deactivate:
            let notify = request["notifyOthers"]?.boolValue == true
            return ("deactivate", replacing(params, "notifyOthers", with: ("options", notify ? [.string("notifyOthersOnDeactivation")] : [])))
        case .task:
            switch request["action"]?.stringValue {
            case "begin"?: return ("beginBackgroundTask", params)
            case "end"?: return ("endBackgroundTask", params)
            default: throw ControlError(.invalidParams, "\"action\" is \"begin\" or \"end\"", field: "action")
            }
        case .interrupt:
            // The command line's `iaa interrupt begin --reason call` is Apple's default reason.
            guard request["reason"]?.stringValue == "call" else { return ("interrupt", params) }
            return ("interrupt", replacing(params, "reason", with: ("reason", "default")))
        default:
            throw ControlError(.internal, "method \"\(method.rawValue)\" is not an action")
        }
    }

    /// `params` with member `key` (if any) dropped and `member` added.
    private static func replacing(_ params: ControlJSON, _ key: String, with member: (String, ControlJSON)) -> ControlJSON {
        guard case .object(let members) = params else { return params }
        return .object(members.filter { $0.0 != key && $0.0 != member.0 } + [member])
    }

    /// A reader's error as the protocol's refusal: a malformed parameter (missing, mistyped, not
    /// one of its values) is `invalidParams`; a name the graph does not have keeps the graph
    /// file's code (`unknownApp`, `unknownParameter`, `parameterOutOfRange`, …). The field is the
    /// parameter the pointer is in; the hint follows the message.
    static func refusal(_ diagnostic: Diagnostic) -> ControlError {
        let field = diagnostic.pointer.split(separator: "/").first.map(String.init)
        let message = diagnostic.hint.map { "\(diagnostic.message); \($0)" } ?? diagnostic.message
        return malformed.contains(diagnostic.code) ? ControlError(.invalidParams, message, field: field)
                                                   : ControlError(diagnostic.code, message, field: field)
    }

    /// The graph file's codes for a parameter that is missing, mistyped or not one of its values.
    private static let malformed: Set<GraphErrorCode> = [.missingKey, .wrongType, .invalidValue, .unknownKey, .outOfRange, .unknownAction]

    func string(_ request: ControlRequest, _ name: String) throws -> String {
        guard let value = request[name]?.stringValue else {
            throw ControlError(.invalidParams, "\"\(name)\" must be a string", field: name)
        }
        return value
    }

    /// The app called `name`, or `unknownApp` with the apps there are.
    func app(_ request: ControlRequest, _ name: String = "app") throws -> (index: Int, app: App) {
        let id = try string(request, name)
        guard let index = graph.appIndex(id) else {
            let ids = graph.apps.map(\.id)
            let guess = Suggestion.closest(to: id, in: ids).map { "; did you mean \"\($0)\"?" } ?? ""
            throw ControlError(.unknownApp, "no app \"\(id)\" (apps: \(ids.joined(separator: ", ")))\(guess)", field: name)
        }
        return (index, graph.apps[index])
    }

    func unknownParameter(_ name: String, of app: App) -> ControlError {
        let problem = CommandReader.unknownParameter(name, of: app)
        return ControlError(.unknownParameter, problem.hint.map { "\(problem.message); \($0)" } ?? problem.message, field: "param")
    }

    /// `connect` or `disconnect`: between apps, a change of the plan; otherwise JACK ports by name
    /// (an app's among them), paired in order as `PortPairing` pairs them.
    private func connection(_ request: ControlRequest, connecting: Bool) throws -> EngineCommand {
        let source = try endpoint(try string(request, "from"), output: true, field: "from")
        let destination = try endpoint(try string(request, "to"), output: false, field: "to")
        var gain: Float = 1
        if connecting {
            gain = request["gain"]?.doubleValue.map(Float.init) ?? request["gain"]?.stringValue.flatMap(ParameterValue.parse) ?? 1
            guard gain.isFinite, gain >= 0 else {
                throw ControlError(.invalidGain, "gain must be a finite number ≥ 0", field: "gain")
            }
        }
        switch (source, destination) {
        case (.apps(let outputs), .apps(let inputs)):
            let connections = PortPairing.pairs(outputs, inputs).map { Connection(from: $0, to: $1, gain: gain) }
            return connecting ? .connect(connections) : .disconnect(connections)
        default:
            let pairs = PortPairing.pairs(try jackNames(source, output: true, field: "from"),
                                          try jackNames(destination, output: false, field: "to")).map(PortPair.init)
            return connecting ? .connectPorts(pairs) : .disconnectPorts(pairs)
        }
    }

    /// Resolves `APP:PORT`, a glob `APP:out_*`, `@playback`/`@capture`, or a full JACK name.
    func endpoint(_ text: String, output: Bool, field: String) throws -> Endpoint {
        switch text {
        case "@playback": return .outside(outsidePorts(.physicalPlayback))
        case "@capture": return .outside(outsidePorts(.physicalCapture))
        case "@midi-capture": return .outside(outsidePorts(.physicalMIDICapture))
        default: break
        }
        guard let colon = text.firstIndex(of: ":") else {
            throw ControlError(.invalidParams, "\"\(text)\" is neither APP:PORT nor a JACK port name", field: field)
        }
        let appID = String(text[..<colon]), portName = String(text[text.index(after: colon)...])
        guard let index = graph.appIndex(appID) else {
            if appID == clientName, let dot = portName.firstIndex(of: ".") {
                return try endpoint("\(portName[..<dot]):\(portName[portName.index(after: dot)...])", output: output, field: field)
            }
            return .outside([text])
        }
        let ports = output ? graph.apps[index].layout.outputs : graph.apps[index].layout.inputs
        let glob = PortGlob(portName)
        let matches = ports.indices.filter { glob.matches(ports[$0].name) }
        guard !matches.isEmpty else {
            let guess = Suggestion.closest(to: portName, in: ports.map(\.name)).map { "; did you mean \"\(appID):\($0)\"?" } ?? ""
            throw ControlError(.unknownPort, "app \"\(appID)\" has no \(output ? "output" : "input") \"\(portName)\" (\(output ? "outputs" : "inputs"): \(ports.map(\.name).joined(separator: ", ")))\(guess)",
                               field: field)
        }
        return .apps(matches.map { PortAddress(app: index, port: $0) })
    }

    /// Our JACK name of an app port.
    func jackName(_ address: PortAddress, output: Bool) -> String {
        let app = graph.apps[address.app]
        let spec = output ? app.layout.outputs[address.port] : app.layout.inputs[address.port]
        return fullName("\(app.id).\(spec.name)")
    }

    /// The JACK names of an endpoint's ports; an app port the graph's `jack.expose` leaves out
    /// has none, which is an error that says how to expose it.
    private func jackNames(_ endpoint: Endpoint, output: Bool, field: String) throws -> [String] {
        switch endpoint {
        case .apps(let addresses):
            for address in addresses where !graph.exposure.exposes(app: address.app, output ? .output : .input, port: address.port) {
                let app = graph.apps[address.app]
                let name = "\(app.id):\((output ? app.layout.outputs : app.layout.inputs)[address.port].name)"
                throw ControlError(.notExposed, "\(name) is not a JACK port: the graph's \"jack\": {\"expose\"} leaves it out; add \"\(name)\" there (iaa apply)",
                                   field: field)
            }
            return addresses.map { jackName($0, output: output) }
        case .outside(let names):
            return names
        }
    }
}
