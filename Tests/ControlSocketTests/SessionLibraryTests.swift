import CIAASession
import ControlSocket
import Foundation
import Synchronization
import Testing
import TestKit

/// The C session library (`iaa_session.h`) against the protocol's types: what it sends satisfies
/// the schema made from them (``ProtocolSchema/sessionLibrary``), and it reads what the engine
/// writes from them, through a stand-in engine on a real socket.
@Suite("The C session library against the protocol's types")
struct SessionLibraryTests {
    /// What the stand-in received and sent, and what the library delivered.
    final class Record: Sendable {
        let requests = Mutex<[ControlJSON]>([])
        let replies = Mutex<[ControlJSON]>([])
        let events = Mutex<[(kind: iaa_session_event_kind, name: String, reason: String, shouldResume: Bool)]>([])
    }

    /// The session the stand-in reports: another app playing, the hint on, ducked to a quarter.
    static let session: SessionStatus = {
        var session = SessionStatus(category: "playback", mode: "voicePrompt", options: ["duckOthers"])
        session.active = true
        session.otherAudioPlaying = true
        session.secondaryAudioShouldBeSilencedHint = true
        session.gain = 0.25
        return session
    }()

    /// Answers as the engine does, from the protocol's types, and records both sides.
    static func answer(_ request: ControlRequest, _ record: Record) -> ControlReply {
        record.requests.withLock { $0.append(.object([("id", 1), ("method", .string(request.method)), ("params", request.params)])) }
        let reply: ControlReply
        switch ControlMethod(rawValue: request.method).flatMap({ ControlCall(method: $0, params: request.params) }) {
        case .attach(let app)?:
            reply = .stream(topic: "program:" + app, initial: ProgramAttachReply(app: app, pid: Int(request.peer.pid), session: session).json)
        case .setCategory?, .activate?, .deactivate?:
            reply = .result(ActionOutcome(events: [], warnings: [], sessions: [(app: "nav", session: session.json)]).json)
        case .sessionGet(let app)?:
            reply = .result(SessionGetReply(app: app, session: session).json)
        default:
            reply = .error(code: "invalidParams", message: "not a request of the session library: \(request.method) \(request.params.text)")
        }
        switch reply {
        case .result(let value), .stream(_, let value?): record.replies.withLock { $0.append(.object([("id", 1), ("result", value)])) }
        case .error(let error): record.replies.withLock { $0.append(.object([("id", 1), ("error", error.json)])) }
        case .stream: break
        }
        return reply
    }

    @Test("its requests satisfy the schema made from the protocol's types, and it reads the replies and stream lines the engine writes from them")
    func conversation() throws {
        let folder = try makeTemporaryDirectory("session-library")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let record = Record()
        let server = try ControlServer(path: folder + "/engine.sock") { Self.answer($0, record) }
        server.start()
        defer { server.stop() }

        var handle: OpaquePointer?
        var error = [CChar](repeating: 0, count: 512)
        let user = Unmanaged.passRetained(record)
        defer { user.release() }
        let opened = iaa_session_open("nav", folder + "/engine.sock", { event, user in
            guard let event = event?.pointee, let user else { return }
            let record = Unmanaged<Record>.fromOpaque(user).takeUnretainedValue()
            record.events.withLock {
                $0.append((event.kind, event.name.map { String(cString: $0) } ?? "", event.reason.map { String(cString: $0) } ?? "", event.should_resume))
            }
        }, user.toOpaque(), &handle, &error, error.count)
        #expect(opened == 0, "\(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
        let session = try #require(handle)
        defer { iaa_session_close(session) }
        #expect(iaa_session_set_category(session, "playback", "voicePrompt", UInt32(IAA_SESSION_OPTION_DUCK_OTHERS)) == 0)
        #expect(iaa_session_set_category(session, "playback", nil, 0) == 0)
        #expect(iaa_session_set_active(session, true, 0) == 0)
        var flag = false
        #expect(iaa_session_is_other_audio_playing(session, &flag) == 0 && flag)
        flag = false
        #expect(iaa_session_secondary_audio_should_be_silenced_hint(session, &flag) == 0 && flag)
        var gain: Float = 1
        #expect(iaa_session_get_gain(session, &gain) == 0 && gain == 0.25)

        // The app's stream: a decision (the library keeps to its session), then Apple's events.
        let lines = [
            ProgramStreamLine.decision(ProgramDecision(app: "nav", gain: 0.25, active: true, ducked: true, interrupted: false), at: 1),
            .event(SessionEventMessage(app: "nav", name: "interruption", type: "began", options: [], reason: "builtInMicMuted"), at: 2),
            .event(SessionEventMessage(app: "nav", name: "interruption", type: "ended", options: ["shouldResume"], reason: "default"), at: 3),
            .event(SessionEventMessage(app: "nav", name: "routeChange", reason: "oldDeviceUnavailable"), at: 4),
        ].map(\.json)
        for line in lines { server.publish(line, topic: "program:nav") }
        #expect(waitUntil(seconds: 5) { record.events.withLock { $0.count } >= 3 })
        let events = record.events.withLock { $0 }
        #expect(events.map(\.kind) == [IAA_SESSION_EVENT_INTERRUPTION_BEGAN, IAA_SESSION_EVENT_INTERRUPTION_ENDED, IAA_SESSION_EVENT_ROUTE_CHANGE])
        #expect(events.first?.reason == "builtInMicMuted")
        #expect(events.dropFirst().first?.shouldResume == true)
        #expect(events.last?.reason == "oldDeviceUnavailable")
        #expect(iaa_session_set_active(session, false, UInt32(IAA_SESSION_NOTIFY_OTHERS_ON_DEACTIVATION)) == 0)

        // Every line both ways against the schema, and lines it must refuse, so that it is not vacuous.
        var checks: [ControlJSON] = []
        func check(_ definition: String, _ line: ControlJSON, valid: Bool) {
            checks.append(.object([("def", .string(definition)), ("line", line), ("valid", .bool(valid))]))
        }
        let requests = record.requests.withLock { $0 }
        #expect(requests.map { $0["method"]?.stringValue ?? "" }
                == ["program.attach", "session.setCategory", "session.setCategory", "session.activate", "session.get", "session.get",
                    "session.get", "session.deactivate"])
        for request in requests { check("request", request, valid: true) }
        for reply in record.replies.withLock({ $0 }) { check("reply", reply, valid: true) }
        for line in lines { check("streamLine", line, valid: true) }
        check("request", ["id": 2, "method": "session.activate", "params": ["app": "nav", "notifyOthers": true]], valid: false)
        check("request", ["id": 2, "method": "session.setCategory", "params": ["app": "nav"]], valid: false)
        check("reply", ["id": 2, "result": ["app": "nav", "session": ["category": "playback"]]], valid: false)
        check("streamLine", ["t": 1, "decision": ["app": "nav", "gain": "loud"]], valid: false)
        let schemaFile = folder + "/schema.json", checksFile = folder + "/checks.json"
        try ProtocolSchema.sessionLibrary.text.write(toFile: schemaFile, atomically: true, encoding: .utf8)
        try ControlJSON.array(checks).text.write(toFile: checksFile, atomically: true, encoding: .utf8)
        let result = try runCommand("/usr/bin/python3", ["-c", Self.validator, schemaFile, checksFile])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    }

    /// Validates each check's line against `$defs/DEF` of the schema with python3-jsonschema and
    /// prints every line whose verdict differs from the expected one.
    static let validator = """
        import json, sys, jsonschema
        schema = json.load(open(sys.argv[1]))
        jsonschema.Draft202012Validator.check_schema(schema)
        wrong = 0
        for check in json.load(open(sys.argv[2])):
            validator = jsonschema.Draft202012Validator({**schema, "$ref": "#/$defs/" + check["def"]})
            errors = [error.message for error in validator.iter_errors(check["line"])]
            if (not errors) != check["valid"]:
                wrong += 1
                print(check["def"], json.dumps(check["line"]), "expected", "valid" if check["valid"] else "invalid", errors[:3])
        sys.exit(1 if wrong else 0)
        """
}
