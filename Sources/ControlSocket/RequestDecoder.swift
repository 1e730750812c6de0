/// Turns one request line into a method call, or into the error reply that line deserves.
enum RequestDecoder {
    enum Outcome {
        case request(id: ControlJSON, method: String, params: ControlJSON)
        /// `id` is the request's id when one could be read, so the client can match the refusal.
        case failure(id: ControlJSON, error: ControlError)
    }

    static let members: Set<String> = ["id", "method", "params"]

    static func decode(_ line: ArraySlice<UInt8>) -> Outcome {
        let value: ControlJSON
        do {
            value = try ControlJSONParser.parse(line)
        } catch {
            return .failure(id: .null, error: ControlError(.parseError,
                message: "not JSON: \(error.message) at byte \(error.offset)"))
        }
        guard let pairs = value.objectValue else {
            return invalid(.null, "a request is a JSON object {\"id\":…,\"method\":…,\"params\":{…}}")
        }
        // An id the client can match is echoed even when the rest of the request is wrong.
        let id: ControlJSON
        switch value["id"] {
        case .some(.number(let number)): id = .number(number)
        case .some(.string(let text)): id = .string(text)
        case .none: return invalid(.null, "missing \"id\" (a number or a string)", field: "id")
        case .some: return invalid(.null, "\"id\" must be a number or a string", field: "id")
        }
        if let unknown = pairs.first(where: { !members.contains($0.0) }) {
            return invalid(id, "unknown member \"\(unknown.0)\" (a request has id, method and params)", field: unknown.0)
        }
        guard let method = value["method"] else { return invalid(id, "missing \"method\"", field: "method") }
        guard let name = method.stringValue, !name.isEmpty else {
            return invalid(id, "\"method\" must be a non-empty string", field: "method")
        }
        let params = value["params"] ?? .object([])
        guard params.objectValue != nil else {
            return invalid(id, "\"params\" must be an object", field: "params")
        }
        return .request(id: id, method: name, params: params)
    }

    private static func invalid(_ id: ControlJSON, _ message: String, field: String? = nil) -> Outcome {
        .failure(id: id, error: ControlError(.invalidRequest, message: message, field: field))
    }

    /// The reply line for `id`, newline included.
    static func replyLine(id: ControlJSON, _ body: ReplyBody) -> [UInt8] {
        var text = "{\"id\":"
        id.write(to: &text)
        switch body {
        case .result(let value):
            text += ",\"result\":"
            value.write(to: &text)
        case .error(let error):
            text += ",\"error\":"
            error.json.write(to: &text)
        }
        text += "}\n"
        return Array(text.utf8)
    }

    enum ReplyBody {
        case result(ControlJSON)
        case error(ControlError)
    }
}
