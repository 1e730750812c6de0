/// What the handler answers to one request.
public enum ControlReply: Sendable {
    /// Success: `{"id":…,"result":VALUE}`.
    case result(ControlJSON)
    /// Refusal: `{"id":…,"error":{"code":…,"message":…,"field":…}}`.
    case error(ControlError)
    /// Turns the connection into a subscriber of `topic`: the reply is `{"id":…,"result":initial}`
    /// (`{"stream":TOPIC}` when `initial` is nil), then every line published to the topic follows.
    /// The connection still answers further requests, so one client may follow several topics.
    case stream(topic: String, initial: ControlJSON?)

    /// A refusal with a stable code, a message for people and, when one parameter is to blame, its name
    /// or RFC 6901 pointer.
    public static func error(code: String, message: String, field: String? = nil) -> ControlReply {
        .error(ControlError(code: code, message: message, field: field))
    }

    /// What a log line says of it: `ok`, `error CODE: MESSAGE` or `streaming TOPIC`.
    public var summary: String {
        switch self {
        case .result: "ok"
        case .error(let error): "error \(error.code): \(error.message)"
        case .stream(let topic, _): "streaming \(topic)"
        }
    }
}

/// An error as the protocol carries it: a stable code scripts can test, a message people can read.
public struct ControlError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: String
    public let message: String
    public let field: String?

    public init(code: String, message: String, field: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
    }

    /// The `error` member of a reply.
    public var json: ControlJSON {
        var pairs: [(String, ControlJSON)] = [("code", .string(code)), ("message", .string(message))]
        if let field { pairs.append(("field", .string(field))) }
        return .object(pairs)
    }

    public var description: String {
        field.map { "error[\(code)]: \($0): \(message)" } ?? "error[\(code)]: \(message)"
    }

    /// Reads the `error` member of a reply; `nil` when it lacks a string code and message.
    public init?(json: ControlJSON) {
        guard let code = json["code"]?.stringValue, let message = json["message"]?.stringValue else { return nil }
        self.init(code: code, message: message, field: json["field"]?.stringValue)
    }
}

extension ControlError {
    /// A refusal by the transport.
    public init(_ code: TransportErrorCode, message: String, field: String? = nil) {
        self.init(code: code.rawValue, message: message, field: field)
    }
}
