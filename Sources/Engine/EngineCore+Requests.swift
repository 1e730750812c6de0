import AudioGraph
import AudioSession
import ControlSocket

/// One control request in, one reply out (PROTOCOL.md, "Methods"). Runs on the control queue.
extension EngineCore {
    func handle(_ request: ControlRequest) -> ControlReply {
        checkOnQueue()
        let reply = respond(to: request)
        programs.announceDecisions()
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
            try programs.checkOwner(request)
            switch method {
            case .status: return .result(report.status().json)
            case .dump: return .result(request["graph"]?.boolValue == true ? GraphFileReply(file: exportedGraph()).json : report.dump().json)
            case .ports: return .result(.array(backend.livePorts().map(EngineReport.portJSON)))
            case .graph: return .result(.object([("dot", .string(report.dot()))]))
            case .connect, .disconnect, .set: return try performRequest(method, request)
            case .get: return try getParameters(request)
            case .preferredBuffer: return try preferredBuffer(request)
            case .sessionGet: return try programs.sessionState(request)
            case .attach: return try programs.attach(request)
            case .remote: return try remote(request)
            case .apply: return try apply(request)
            case .reload: return try reloads.reload(request)
            case .enable:
                let id = try app(request).app.id
                return .result(EnableReply(app: id, enabled: watch.enable(id)).json)
            case .events: return .stream(topic: "events", initial: .object([("stream", .string("events"))]))
            case .top: return .stream(topic: "top", initial: .object([("stream", .string("top"))]))
            case .meters:
                watch.followMeters()
                return .stream(topic: "meters", initial: .object([("stream", .string("meters"))]))
            default:
                guard method.isSessionAction else { throw ControlError(.internal, "method \"\(request.method)\" has no handler") }
                if let refused = satellite?.forward(method, request) { return refused }
                return try performRequest(method, request)
            }
        } catch let error as ControlError {
            return .error(code: error.code, message: error.message, field: error.field)
        } catch {
            return .error(code: EngineErrorCode.internal.rawValue, message: "\(error)")
        }
    }

    func string(_ request: ControlRequest, _ name: String) throws -> String {
        try decoder.string(request, name)
    }

    /// The app called `name`, or `unknownApp` with the apps there are.
    func app(_ request: ControlRequest, _ name: String = "app") throws -> (index: Int, app: App) {
        try decoder.app(request, name)
    }

    /// A session action's reply. A refusal is an error with AVAudioSession's name as its code and
    /// the four-character code first in the message; `isBusy` too, after the changes it made.
    func sessionReply(_ outcome: CommandOutcome) -> ControlReply {
        publisher.publish(outcome.events)
        if let refusal = outcome.refusal {
            let error = ControlError(refusal)
            return .error(code: error.code, message: error.message, field: error.field)
        }
        return .result(ActionOutcome(events: outcome.events.map(SessionLog.message), warnings: outcome.warnings,
                                     sessions: sessions.policy.states.map { (app: $0.id, session: SessionLog.state($0)) }).json)
    }
}
