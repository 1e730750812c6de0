#if canImport(Glibc)
import Glibc
#endif
import ControlSocket
import Foundation
import Synchronization
import TestKit

/// A stand-in for `iaa run`: a real ``ControlServer`` at a private temporary socket whose handler
/// answers every method of PROTOCOL.md with a canned, protocol-shaped result (or an error for a few
/// known-bad arguments) and records each request, so tests check what the CLI sent and printed.
final class CannedEngine: Sendable {
    /// One request as the handler received it.
    struct Received: Sendable, Equatable, CustomStringConvertible {
        let method: String
        let params: String
        var description: String { "\(method) \(params)" }
    }

    let directory: String
    let path: String
    private let server: ControlServer
    private let recorder = Recorder()

    /// The handler's log, a class so the escaping handler can share it.
    private final class Recorder: Sendable {
        let received = Mutex<[Received]>([])
    }

    init() throws {
        var template = Array("/tmp/iaa-cli-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw ControlSocketError(.system, "mkdtemp failed") }
        directory = String(cString: made)
        path = directory + "/engine.sock"
        let recorder = recorder
        server = try ControlServer(path: path) { request in
            recorder.received.withLock { $0.append(Received(method: request.method, params: request.params.text)) }
            return CannedEngine.answer(request)
        }
        server.start()
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Every request so far, in arrival order.
    var requests: [Received] { recorder.received.withLock { $0 } }

    /// Runs `iaa ARGUMENTS --socket PATH`.
    func iaa(_ arguments: [String], environment: [String: String] = [:]) throws -> CommandResult {
        try IAACommand.run(arguments + ["--socket", path], environment: environment)
    }

    /// Sends `line` to the subscribers of `topic`, once one has subscribed (waits up to 10 s).
    func publish(_ lines: [String], topic: String) {
        let deadline = ContinuousClock.now + .seconds(10)
        while server.subscriberCount(topic: topic) == 0 && ContinuousClock.now < deadline { usleep(5_000) }
        for line in lines { server.publish(line, topic: topic) }
    }

    /// Closes every connection, as an engine that quits does.
    func stop() { server.stop() }

    static func answer(_ request: ControlRequest) -> ControlReply {
        let app = request["app"]?.stringValue
        if let app, !["daw", "synth", "nav", "music", "tone", "rear"].contains(app) {
            return .error(code: "unknownApp", message: "no app \"\(app)\" (apps: daw, synth, nav, music, tone)", field: "app")
        }
        switch request.method {
        case "status": return .result(CannedReplies.status)
        case "ports": return .result(CannedReplies.ports)
        case "dump":
            return .result(request["graph"] == .bool(true) ? ["file": "{\n  \"format\": \"iaa-graph/1\"\n}\n"] : CannedReplies.dump)
        case "get": return .result(CannedReplies.parameters(app: app ?? "", param: request["param"]?.stringValue))
        case "set":
            let value = request["value"] == "-6dB" ? 0.5011872336272722 : 880
            return .result(SetReply(app: app ?? "", param: request["param"]?.stringValue ?? "", value: value).json)
        case "connect":
            if request["to"] == "daw:in_9" {
                return .error(code: "unknownPort", message: "app \"daw\" has no input \"in_9\" (inputs: in_1, in_2)", field: "to")
            }
            return .result(ConnectionsReply(.connected, [
                .init(from: request["from"]?.stringValue ?? "", to: request["to"]?.stringValue ?? "", isInternal: true, already: false),
                .init(from: "synth:out_2", to: "system:playback_2", isInternal: false, already: true),
            ]).json)
        case "disconnect":
            return .result(ConnectionsReply(.disconnected, [
                .init(from: request["from"]?.stringValue ?? "", to: request["to"]?.stringValue ?? "", isInternal: true),
            ]).json)
        case "session.activate" where app == "music":
            return .error(code: "cannotInterruptOthers", message: "('!int') app \"music\" is in the background and its category is not mixable", field: "app")
        case "session.setCategory" where request["category"] == "bogus":
            return .error(code: "invalidParams", message: "unknown category \"bogus\" (categories: ambient, soloAmbient, playback, record, playAndRecord, multiRoute)", field: "category")
        case "session.setCategory", "session.activate", "session.deactivate", "app.foreground", "app.background",
             "app.task", "device", "interrupt":
            return .result(CannedReplies.outcome(for: request))
        case "session.preferredBuffer": return .result(BufferReply(bufferSize: request["frames"]?.intValue ?? 0).json)
        case "remote": return .result(RemoteReply(app: "music").json)
        case "enable": return .result(EnableReply(app: app ?? "", enabled: app == "synth").json)
        case "apply": return CannedReplies.apply(request)
        case "reload" where app == "tone":
            return .error(code: "notReloadable", message: "app \"tone\" runs the built-in node type \"builtin:oscillator\"; only plugin libraries reload", field: "app")
        case "reload":
            return .result(ReloadReply(app: app ?? "", reloaded: app == "synth", library: "./libsynth.so",
                                       identity: app == "synth" ? "dev 1 inode 2 size 3 mtime 4" : nil).json)
        case "graph": return .result(["dot": "digraph iaa {\n  tone -> daw;\n}\n"])
        case "events": return .stream(topic: "events", initial: nil)
        case "top": return .stream(topic: "top", initial: nil)
        default: return .error(code: "unknownMethod", message: "no method \"\(request.method)\"", field: "method")
        }
    }
}
