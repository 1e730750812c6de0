import ArgumentParser
import ControlSocket
import Synchronization

/// `iaa events [--follow]`: session events, connection changes and xruns as JSON Lines, like pw-mon.
struct Events: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Print the engine's events as JSON Lines.",
        discussion: """
            Each line is one document: `{"t", "event": {…}}` for session events, `{"t", "connection": {…}}` \
            for connections made or broken by anyone (outside jack_connect too), `{"t", "xrun": {…}}`. \
            The engine keeps no backlog: without --follow, prints what happens from now until the stream \
            has been quiet for half a second, and when nothing did, says so on stderr. `iaa status` shows \
            the state events lead to.
            """)

    @OptionGroup var engine: EngineOptions

    @Flag(name: [.short, .long], help: "Keep printing until Ctrl-C or the engine stops.")
    var follow = false

    func run() throws {
        let printed = Printed()
        let follower = StreamFollower(path: engine.socketPath, method: .events) { line in
            printed.count.withLock { $0 += 1 }
            Output.line(line)
        }
        try follower.follow(quiet: follow ? nil : .milliseconds(500))
        // An empty answer with status 0 reads as "nothing ever happened"; it means nothing happened while we listened.
        if !follow, printed.count.withLock({ $0 }) == 0 {
            Output.error("no events in the last 0.5 s; the engine keeps no backlog, so `iaa events` prints only what happens while it listens: `iaa events --follow` waits for them (Ctrl-C to stop), `iaa status` shows the state now")
        }
    }

    /// The lines printed so far, shared with the stream's thread.
    private final class Printed: Sendable {
        let count = Mutex(0)
    }
}
