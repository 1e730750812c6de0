import AudioGraph
import GraphFormat
import AudioSession
import ControlSocket
import NodeKit

/// `session.preferredBuffer`, `remote` and `apply`.
extension EngineCore {
    /// An app's preferred I/O buffer duration asks JACK for that buffer size.
    func preferredBuffer(_ request: ControlRequest) throws -> ControlReply {
        _ = try decoder.app(request)
        guard let frames = request["frames"]?.intValue, frames >= 16, frames <= 8192, frames & (frames - 1) == 0 else {
            throw ControlError(.invalidParams, "\"frames\" is a power of two from 16 to 8192", field: "frames")
        }
        guard backend.requestBufferSize(frames) else {
            throw ControlError(.jackRefused, "JACK refused a buffer size of \(frames) frames")
        }
        return .result(BufferReply(bufferSize: frames).json)
    }

    /// Remote control events go to the Now Playing app, as Apple's remote control events do.
    func remote(_ request: ControlRequest) throws -> ControlReply {
        let command = try decoder.string(request, "command")
        guard ["play", "pause", "togglePlayPause", "next", "previous"].contains(command) else {
            throw ControlError(.invalidParams, "unknown command \"\(command)\" (play, pause, togglePlayPause, next, previous)", field: "command")
        }
        guard let app = sessions.policy.nowPlayingApp else {
            throw ControlError(.noNowPlayingApp, "no app has played non-mixable audio in the foreground yet")
        }
        publisher.announce(.event(.remoteControl(app: app, command: command)))
        return .result(RemoteReply(app: app).json)
    }

    /// Validates a whole new graph and performs it as an `apply` command (``CommandHost``) — or,
    /// with `dryRun`, only says what would change.
    func apply(_ request: ControlRequest) throws -> ControlReply {
        let text = try decoder.string(request, "text")
        let file = request["file"]?.stringValue ?? "graph.json"
        let loaded = GraphFile.load(text: text, file: file, registry: GraphLoading.registry, grants: grants)
        guard let fileGraph = loaded.graph, let newDescription = loaded.description else {
            throw ControlError(.invalidGraph, GraphLoading.report(loaded))
        }
        guard newDescription.jackClientName == description.jackClientName else {
            throw ControlError(.clientChange, "the new graph names JACK client \"\(newDescription.jackClientName)\"; a running engine keeps \"\(description.jackClientName)\"",
                               field: "text")
        }
        guard request["dryRun"]?.boolValue != true else {
            let diff = GraphDiff(old: graph, new: programs.carryingAdmitted(into: fileGraph).graph)
            return .result(ApplyReply(applied: false, diff: diff.message).json)
        }
        // Kept as a snapshot of the graph it makes: refused while nothing can be kept, and undone
        // if that snapshot cannot be written (docs/state.md).
        let before = try keeping?.beforeApplying()
        // Performed as any command is; its events were published as it went (`didApply`).
        let outcome = try perform(.apply(AppliedGraph(fileGraph, file: file, text: text)), at: now)
        let oldDescription = description
        replaceDescription(newDescription)
        if let before, let keeping {
            do {
                try keeping.writeSnapshot()
            } catch {
                let undone = GraphFile.load(text: before, file: file, registry: GraphLoading.registry, grants: grants)
                if let graph = undone.graph {
                    _ = try? perform(.apply(AppliedGraph(graph, file: file, text: before)), at: now)
                    replaceDescription(oldDescription)
                }
                throw keeping.notDurable(error.message, "the graph was not applied")
            }
        }
        return .result(ApplyReply(applied: true, diff: outcome.diff?.message ?? ApplyReply.Diff(), warnings: outcome.warnings).json)
    }
}
