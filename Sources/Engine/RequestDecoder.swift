import AudioGraph
import GraphFormat
import AudioSession
import ControlSocket
import NodeKit

/// Reads control requests into ``EngineCommand``s (PROTOCOL.md, "Methods"): the live
/// counterpart of the timeline reader. It resolves every name a request gives (apps, ports,
/// parameters) against the running graph and the ports present now, and refuses with the
/// protocol's codes, naming the field at fault.
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
        case .set: return try parameterChange(request)
        case .connect: return try connection(request, connecting: true)
        case .disconnect: return try connection(request, connecting: false)
        default: return .session(try sessionAction(method, request))
        }
    }

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
            throw ControlError(.unknownApp, "no app \"\(id)\" (apps: \(graph.apps.map(\.id).joined(separator: ", ")))",
                               field: name)
        }
        return (index, graph.apps[index])
    }

    /// `set`: a parameter of any app, to a number or a string such as `"-6dB"`, in its range.
    private func parameterChange(_ request: ControlRequest) throws -> EngineCommand {
        let (_, app) = try app(request)
        let name = try string(request, "param")
        guard let index = app.type.parameterIndex(name) else { throw unknownParameter(name, of: app) }
        let spec = app.type.parameters[index]
        guard let value = request["value"]?.doubleValue.map(Float.init) ?? request["value"]?.stringValue.flatMap(ParameterValue.parse) else {
            throw ControlError(.invalidValue, "\"value\" must be a number or a string such as \"0.5\", \"50%\" or \"-6dB\"", field: "value")
        }
        guard spec.range.contains(value) else {
            throw ControlError(.parameterOutOfRange, "\(name) = \(value) is outside \(spec.range.lowerBound)…\(spec.range.upperBound)", field: "value")
        }
        return .setParameter(app: app.id, index: index, value: value)
    }

    func unknownParameter(_ name: String, of app: App) -> ControlError {
        ControlError(.unknownParameter, "app \"\(app.id)\" has no parameter \"\(name)\" (parameters: \(app.type.parameters.map(\.name).joined(separator: ", ")))",
                     field: "param")
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
            throw ControlError(.unknownPort, "app \"\(appID)\" has no \(output ? "output" : "input") \"\(portName)\" (\(output ? "outputs" : "inputs"): \(ports.map(\.name).joined(separator: ", ")))",
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

    /// The session action a request names, with its parameters checked.
    func sessionAction(_ method: ControlMethod, _ request: ControlRequest) throws -> SessionAction {
        switch method {
        case .setCategory:
            let id = try app(request).app.id
            let categoryName = try string(request, "category")
            guard let category = SessionCategory(rawValue: categoryName) else {
                throw ControlError(.invalidParams, "unknown category \"\(categoryName)\" (categories: \(SessionCategory.allCases.map(\.rawValue).joined(separator: ", ")))", field: "category")
            }
            let mode = try request["mode"]?.stringValue.map { name -> SessionMode in
                guard let mode = SessionMode(rawValue: name) else {
                    throw ControlError(.invalidParams, "unknown mode \"\(name)\"", field: "mode")
                }
                return mode
            } ?? .default
            var options: Set<SessionOption> = []
            for name in request["options"]?.arrayValue?.compactMap(\.stringValue) ?? [] {
                guard let option = SessionOption(rawValue: name) else {
                    throw ControlError(.invalidParams, "unknown option \"\(name)\"", field: "options")
                }
                options.insert(option)
            }
            return .setCategory(app: id, category: category, mode: mode, options: options)
        case .activate: return .activate(app: try app(request).app.id)
        case .deactivate:
            let notify = request["notifyOthers"]?.boolValue == true
            return .deactivate(app: try app(request).app.id, options: notify ? [.notifyOthersOnDeactivation] : [])
        case .startAudio:
            return .startAudio(app: try app(request).app.id, recording: request["recording"]?.boolValue == true)
        case .stopAudio: return .stopAudio(app: try app(request).app.id)
        case .foreground: return .foreground(app: try app(request).app.id)
        case .background: return .background(app: try app(request).app.id)
        case .task:
            let id = try app(request).app.id
            switch try string(request, "action") {
            case "begin": return .beginBackgroundTask(app: id)
            case "end": return .endBackgroundTask(app: id)
            default: throw ControlError(.invalidParams, "\"action\" is \"begin\" or \"end\"", field: "action")
            }
        case .device:
            let silent = request["silent"]?.boolValue, locked = request["locked"]?.boolValue
            guard silent != nil || locked != nil else {
                throw ControlError(.invalidParams, "give \"silent\" and/or \"locked\" as true or false", field: "silent")
            }
            return .device(silent: silent, locked: locked)
        default: // .interrupt (the other methods are not session actions)
            let type: InterruptionType
            switch try string(request, "type") {
            case "begin": type = .began
            case "end": type = .ended
            default: throw ControlError(.invalidParams, "\"type\" is \"begin\" or \"end\"", field: "type")
            }
            let reasonName = request["reason"]?.stringValue ?? "default"
            guard let reason = InterruptionReason(rawValue: reasonName == "call" ? "default" : reasonName) else {
                throw ControlError(.invalidParams, "unknown reason \"\(reasonName)\"", field: "reason")
            }
            return .interrupt(type, reason: reason)
        }
    }
}
