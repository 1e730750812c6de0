/// JSON Schema (draft 2020-12) of the protocol's messages, made from instances of its types: what a
/// client written in another language sends and reads, checked against what the engine writes.
/// The C session library (`iaa_session.h`) is tested against ``sessionLibrary``.
public enum ProtocolSchema {
    /// The schema the JSON values `samples` all satisfy: each type a sample has; an object's
    /// members, with the schema of their values together, those every sample has required (and
    /// no other member allowed when `closed`); an array's elements together. `maps` names the
    /// members whose value is an object keyed by name (an app id), whose values are described
    /// together instead of as members.
    public static func describing(_ samples: [ControlJSON], maps: Set<String> = [], closed: Bool = false) -> ControlJSON {
        var types: [String] = []
        var objects: [[(String, ControlJSON)]] = []
        var elements: [ControlJSON] = []
        for sample in samples {
            let type: String
            // Verbatim text (a value sent as written) is described as what it reads as.
            switch (try? sample.parsedIfVerbatim()) ?? sample {
            case .null: type = "null"
            case .bool: type = "boolean"
            case .number: type = "number"
            case .string: type = "string"
            case .array(let items):
                type = "array"
                elements += items
            case .object(let members):
                type = "object"
                objects.append(members)
            case .verbatim:
                type = "string"
            }
            if !types.contains(type) { types.append(type) }
        }
        var schema: [(String, ControlJSON)] = [("type", types.count == 1 ? .string(types[0]) : .init(types))]
        if !objects.isEmpty {
            var keys: [String] = []
            for members in objects { for (key, _) in members where !keys.contains(key) { keys.append(key) } }
            let properties: [(String, ControlJSON)] = keys.map { key in
                let values = objects.compactMap { members in members.first { $0.0 == key }?.1 }
                guard maps.contains(key) else { return (key, describing(values, maps: maps, closed: closed)) }
                let named = values.flatMap { value -> [ControlJSON] in
                    if case .object(let entries) = value { return entries.map(\.1) }
                    return []
                }
                return (key, .object([("type", "object"), ("additionalProperties", describing(named, maps: maps, closed: closed))]))
            }
            let required = keys.filter { key in objects.allSatisfy { members in members.contains { $0.0 == key } } }
            schema += [("properties", .object(properties)), ("required", .init(required))]
            if closed { schema.append(("additionalProperties", .bool(false))) }
        }
        if !elements.isEmpty { schema.append(("items", describing(elements, maps: maps, closed: closed))) }
        return .object(schema)
    }

    /// A request's or a reply's `id`: a number or a string.
    private static let id: ControlJSON = .object([("type", .init(["number", "string"]))])

    /// A request line of `method` whose params are those of `calls` (no other member allowed).
    static func requestLine(_ method: ControlMethod, _ calls: [ControlCall]) -> ControlJSON {
        .object([
            ("type", "object"),
            ("properties", .object([
                ("id", id),
                ("method", .object([("const", .string(method.rawValue))])),
                ("params", describing(calls.map(\.params), closed: true)),
            ])),
            ("required", .init(["id", "method", "params"])),
            ("additionalProperties", .bool(false)),
        ])
    }

    /// The session library's conversation with the engine (PROTOCOL.md, "Programs"): `request`,
    /// each line it may send; `reply`, each answer it may read (`program.attach`'s first reply, an
    /// Outcome, `session.get`, a refusal); `streamLine`, each line of the app's stream after it.
    public static var sessionLibrary: ControlJSON {
        let session = SessionStatus(category: "playback", mode: "voicePrompt", options: ["duckOthers"])
        var timed = session
        timed.backgroundTimeRemaining = 12
        let event = SessionEventMessage(app: "nav", name: "interruption", type: "began", options: ["shouldResume"], reason: "default",
                                        wasSuspended: true)
        let node = SessionEventMessage(app: "nav", name: "nodeConnected", peer: "daw")
        let outcome = ActionOutcome(events: [event, node], warnings: ["w"], sessions: [(app: "nav", session: timed.json), (app: "music", session: session.json)])
        // Each kind of answer and of line, with and without its optional members.
        let results: [[ControlJSON]] = [
            [ProgramAttachReply(app: "nav", pid: 42, session: session).json, ProgramAttachReply(app: "nav", pid: 42, session: nil).json],
            [outcome.json, ActionOutcome(events: [], warnings: [], sessions: []).json],
            [SessionGetReply(app: "nav", session: timed).json, SessionGetReply(app: "nav", session: session).json],
        ]
        let errors = [ControlError(code: "notOwner", message: "m", field: "app").json, ControlError(code: "isBusy", message: "m").json]
        let lines: [[ControlJSON]] = [
            [ProgramStreamLine.decision(ProgramDecision(app: "nav", gain: 0.25, active: true, ducked: true, interrupted: false), at: 1).json],
            [ProgramStreamLine.event(event, at: 2).json, ProgramStreamLine.event(node, at: 3).json],
        ]
        let requests: [(ControlMethod, [ControlCall])] = [
            (.attach, [.attach(app: "nav")]),
            (.setCategory, [.setCategory(app: "nav", category: "playback", mode: "voicePrompt", options: ["duckOthers"]),
                            .setCategory(app: "nav", category: "playback", mode: nil, options: nil)]),
            (.activate, [.activate(app: "nav")]),
            (.deactivate, [.deactivate(app: "nav", notifyOthers: true), .deactivate(app: "nav", notifyOthers: false)]),
            (.sessionGet, [.sessionGet(app: "nav")]),
        ]
        func reply(_ key: String, _ body: ControlJSON) -> ControlJSON {
            .object([("type", "object"), ("properties", .object([("id", id), (key, body)])), ("required", .init(["id", key]))])
        }
        return .object([
            ("$schema", "https://json-schema.org/draft/2020-12/schema"),
            ("title", "iaa session library: the lines it sends and reads"),
            ("$defs", .object([
                ("request", .object([("oneOf", .array(requests.map { requestLine($0.0, $0.1) }))])),
                ("reply", .object([("oneOf", .array([
                    reply("result", .object([("anyOf", .array(results.map { describing($0, maps: ["sessions"]) }))])),
                    reply("error", describing(errors)),
                ]))])),
                ("streamLine", .object([("oneOf", .array(lines.map { describing($0) }))])),
            ])),
        ])
    }
}

extension ControlJSON {
    /// The value verbatim text stands for; any other value as it is.
    func parsedIfVerbatim() throws -> ControlJSON {
        guard case .verbatim(let text) = self else { return self }
        return try ControlJSONParser.parse(text)
    }
}
