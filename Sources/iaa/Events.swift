import ArgumentParser
import ControlSocket

/// `iaa events [--follow]`: session events, connection changes and xruns as JSON Lines, like pw-mon.
struct Events: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the engine's events as JSON Lines.",
        discussion: """
            Each line is one document: `{"t", "event": {…}}` for session events, `{"t", "connection": {…}}` \
            for connections made or broken by anyone (outside jack_connect too), `{"t", "xrun": {…}}`. \
            Without --follow, prints what arrives until the stream has been quiet for half a second.
            """)

    @OptionGroup var engine: EngineOptions

    @Flag(name: [.short, .long], help: "Keep printing until Ctrl-C or the engine stops.")
    var follow = false

    func run() throws {
        let follower = StreamFollower(path: engine.socketPath, method: .events) { Output.line($0) }
        try follower.follow(quiet: follow ? nil : .milliseconds(500))
    }
}
