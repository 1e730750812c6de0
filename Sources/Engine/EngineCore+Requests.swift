import AudioGraph
import AudioSession
import ControlSocket

/// One control request in, one reply out (PROTOCOL.md, "Methods"). Runs on the control queue.
extension EngineCore {
    func handle(_ request: ControlRequest) -> ControlReply {
        let reply = respond(to: request)
        if StandardError.level >= .debug {
            let outcome: String
            switch reply {
            case .result: outcome = "ok"
            case .error(let error): outcome = "error \(error.code): \(error.message)"
            case .stream(let topic, _): outcome = "streaming \(topic)"
            }
            let params = request.params.text
            let shown = params.count > 200 ? params.prefix(200) + "…" : Substring(params)
            StandardError.write("iaa: request \(request.method) \(shown): \(outcome)", level: .debug)
        }
        return reply
    }

    private func respond(to request: ControlRequest) -> ControlReply {
        do {
            guard let method = ControlMethod(rawValue: request.method) else {
                return .error(code: EngineErrorCode.unknownMethod.rawValue, message: "no method \"\(request.method)\"", field: "method")
            }
            try checkOwner(request)
            switch method {
            case .status: return .result(status())
            case .dump: return .result(request["graph"]?.boolValue == true ? .object([("file", .string(exportedGraph()))]) : dump())
            case .ports: return .result(.array(backend.ports().map(Self.portJSON)))
            case .graph: return .result(.object([("dot", .string(dot()))]))
            case .connect: return try connect(request)
            case .disconnect: return try disconnect(request)
            case .get: return try getParameters(request)
            case .set: return try setParameter(request)
            case .preferredBuffer: return try preferredBuffer(request)
            case .sessionGet: return try sessionState(request)
            case .attach: return try attach(request)
            case .remote: return try remote(request)
            case .apply: return try apply(request)
            case .reload: return try reload(request)
            case .enable:
                let id = try app(request).app.id
                return .result(.object([("app", .string(id)), ("enabled", .bool(enable(id)))]))
            case .events: return .stream(topic: "events", initial: .object([("stream", .string("events"))]))
            case .top: return .stream(topic: "top", initial: .object([("stream", .string("top"))]))
            case .setCategory, .activate, .deactivate, .startAudio, .stopAudio, .foreground, .background, .task, .device, .interrupt:
                return sessionReply(applySession(try sessionAction(method, request), at: now))
            }
        } catch let error as RequestError {
            return .error(code: error.code, message: error.message, field: error.field)
        } catch {
            return .error(code: EngineErrorCode.internal.rawValue, message: "\(error)")
        }
    }

    func string(_ request: ControlRequest, _ name: String) throws -> String {
        guard let value = request[name]?.stringValue else {
            throw RequestError(.invalidParams, "\"\(name)\" must be a string", field: name)
        }
        return value
    }

    /// The app called `name`, or `unknownApp` with the apps there are.
    func app(_ request: ControlRequest, _ name: String = "app") throws -> (index: Int, app: App) {
        let id = try string(request, name)
        guard let index = graph.appIndex(id) else {
            throw RequestError(.unknownApp, "no app \"\(id)\" (apps: \(graph.apps.map(\.id).joined(separator: ", ")))",
                               field: name)
        }
        return (index, graph.apps[index])
    }

    /// The session action a request names, with its parameters checked.
    func sessionAction(_ method: ControlMethod, _ request: ControlRequest) throws -> SessionAction {
        switch method {
        case .setCategory:
            let id = try app(request).app.id
            let categoryName = try string(request, "category")
            guard let category = SessionCategory(rawValue: categoryName) else {
                throw RequestError(.invalidParams, "unknown category \"\(categoryName)\" (categories: \(SessionCategory.allCases.map(\.rawValue).joined(separator: ", ")))", field: "category")
            }
            let mode = try request["mode"]?.stringValue.map { name -> SessionMode in
                guard let mode = SessionMode(rawValue: name) else {
                    throw RequestError(.invalidParams, "unknown mode \"\(name)\"", field: "mode")
                }
                return mode
            } ?? .default
            var options: Set<SessionOption> = []
            for name in request["options"]?.arrayValue?.compactMap(\.stringValue) ?? [] {
                guard let option = SessionOption(rawValue: name) else {
                    throw RequestError(.invalidParams, "unknown option \"\(name)\"", field: "options")
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
            default: throw RequestError(.invalidParams, "\"action\" is \"begin\" or \"end\"", field: "action")
            }
        case .device:
            let silent = request["silent"]?.boolValue, locked = request["locked"]?.boolValue
            guard silent != nil || locked != nil else {
                throw RequestError(.invalidParams, "give \"silent\" and/or \"locked\" as true or false", field: "silent")
            }
            return .device(silent: silent, locked: locked)
        default: // .interrupt (the other methods are not session actions)
            let type: InterruptionType
            switch try string(request, "type") {
            case "begin": type = .began
            case "end": type = .ended
            default: throw RequestError(.invalidParams, "\"type\" is \"begin\" or \"end\"", field: "type")
            }
            let reasonName = request["reason"]?.stringValue ?? "default"
            guard let reason = InterruptionReason(rawValue: reasonName == "call" ? "default" : reasonName) else {
                throw RequestError(.invalidParams, "unknown reason \"\(reasonName)\"", field: "reason")
            }
            return .interrupt(type, reason: reason)
        }
    }

    /// A session action's reply. A refusal is an error with AVAudioSession's name as its code and
    /// the four-character code first in the message; `isBusy` too, after the changes it made.
    func sessionReply(_ outcome: SessionOutcome) -> ControlReply {
        publish(outcome.events)
        if let error = outcome.error {
            return .error(code: error.code.rawValue, message: "('\(error.code.fourCC)') \(error.message)", field: "app")
        }
        return .result(.object([
            ("ok", .bool(true)),
            ("events", .array(outcome.events.map(SessionLog.payload))),
            ("warnings", .array(outcome.warnings.map(JSONValue.string))),
            ("sessions", .object(sessions.policy.states.map { ($0.id, SessionLog.state($0)) })),
        ]))
    }
}
