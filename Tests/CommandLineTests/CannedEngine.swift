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

    /// The reply to a request, read back into the protocol's ``ControlCall`` as the engine reads it.
    static func answer(_ request: ControlRequest) -> ControlReply {
        guard let method = ControlMethod(rawValue: request.method) else {
            return .error(code: "unknownMethod", message: "no method \"\(request.method)\"", field: "method")
        }
        guard let call = ControlCall(method: method, params: request.params) else {
            return .error(code: "invalidParams", message: "\(request.method) \(request.params.text) is not a call of the protocol")
        }
        if let app = call.app, !["daw", "synth", "nav", "music", "tone", "rear"].contains(app) {
            return .error(code: "unknownApp", message: "no app \"\(app)\" (apps: daw, synth, nav, music, tone)", field: "app")
        }
        switch call {
        case .status: return .result(CannedReplies.status)
        case .ports: return .result(CannedReplies.ports)
        case .dump(let graph): return .result(graph ? GraphFileReply(file: "{\n  \"format\": \"iaa-graph/1\"\n}\n").json : CannedReplies.dump)
        case .get(let app, let param): return .result(CannedReplies.parameters(app: app, param: param))
        case .set(let app, let param, let value):
            return .result(SetReply(app: app, param: param, value: value == .text("-6dB") ? 0.5011872336272722 : 880).json)
        case .connect(_, "daw:in_9", _):
            return .error(code: "unknownPort", message: "app \"daw\" has no input \"in_9\" (inputs: in_1, in_2)", field: "to")
        case .connect(let from, let to, _):
            return .result(ConnectionsReply(.connected, [
                .init(from: from, to: to, isInternal: true, already: false),
                .init(from: "synth:out_2", to: "system:playback_2", isInternal: false, already: true),
            ]).json)
        case .disconnect(let from, let to):
            return .result(ConnectionsReply(.disconnected, [.init(from: from, to: to, isInternal: true)]).json)
        case .activate(app: "music"):
            return .error(code: "cannotInterruptOthers", message: "('!int') app \"music\" is in the background and its category is not mixable", field: "app")
        case .setCategory(_, "bogus", _, _):
            return .error(code: "invalidParams", message: "unknown category \"bogus\" (categories: ambient, soloAmbient, playback, record, playAndRecord, multiRoute)", field: "category")
        case .setCategory, .activate, .deactivate, .foreground, .background, .task, .device, .interrupt:
            return .result(CannedReplies.outcome(for: call))
        case .preferredBuffer(_, let frames): return .result(BufferReply(bufferSize: frames).json)
        case .remote: return .result(RemoteReply(app: "music").json)
        case .enable(let app): return .result(EnableReply(app: app, enabled: app == "synth").json)
        case .apply(let text, let file, let dryRun): return CannedReplies.apply(text: text, file: file, dryRun: dryRun)
        case .reload(app: "tone"):
            return .error(code: "notReloadable", message: "app \"tone\" runs the built-in node type \"builtin:oscillator\"; only plugin libraries reload", field: "app")
        case .reload(let app):
            return .result(ReloadReply(app: app, reloaded: app == "synth", library: "./libsynth.so",
                                       identity: app == "synth" ? "dev 1 inode 2 size 3 mtime 4" : nil).json)
        case .graph: return .result(["dot": "digraph iaa {\n  tone -> daw;\n}\n"])
        case .events: return .stream(topic: "events", initial: nil)
        case .top: return .stream(topic: "top", initial: nil)
        case .meters, .startAudio, .stopAudio, .sessionGet, .attach:
            return .error(code: "unknownMethod", message: "the canned engine does not answer \"\(request.method)\"", field: "method")
        }
    }
}
