import AudioSession
import ControlSocket

/// One control request in, one reply out (PROTOCOL.md, "Methods"). Runs on the control queue.
extension EngineCore {
    func handle(_ request: ControlRequest) -> ControlReply {
        checkOnQueue()
        let reply = respond(to: request)
        programs.announceDecisions()
        if StandardError.level >= .debug {
            let params = request.params.text
            let shown = params.count > 200 ? params.prefix(200) + "…" : Substring(params)
            StandardError.write("iaa: request \(request.method) \(shown): \(reply.summary)", level: .debug)
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
            case .get: return .result(try report.parameters(request).json)
            case .preferredBuffer: return try preferredBuffer(request)
            case .sessionGet: return try programs.sessionState(request)
            case .attach: return try programs.attach(request)
            case .remote: return try remote(request)
            case .apply: return try apply(request)
            case .reload: return try reloads.reload(request)
            case .enable:
                let id = try decoder.app(request).app.id
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
            return .error(error)
        } catch {
            return .error(code: EngineErrorCode.internal.rawValue, message: "\(error)")
        }
    }
}
