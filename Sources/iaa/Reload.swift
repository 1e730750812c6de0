import ArgumentParser
import ControlSocket

/// `iaa reload APP`: swaps in the rebuilt plugin library of a running app.
struct Reload: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reload",
        abstract: "Load the rebuilt plugin library of a running app, keeping its parameters and connections.",
        discussion: """
            The app's output fades out, the node running the library's new build takes its place \
            with the same parameter values, ports and connections (internal and JACK), and fades in. \
            A library that has not changed since it was loaded is left alone. A rebuild that changes \
            the app's ports, parameters, entitlements or component is refused: `iaa apply` the graph \
            instead. `iaa run --watch` does this by itself whenever a loaded library is rebuilt.
            """)

    @OptionGroup var engine: EngineOptions

    @Argument(help: "The app whose library to reload.")
    var app: String

    @Flag(help: "Print the reply document as JSON.")
    var json = false

    func run() throws {
        let result = try engine.connect().call(.reload(app: app))
        if json {
            Output.line(result.text)
        } else if let reply = ReloadReply(json: result), reply.reloaded {
            Output.line("reloaded \(app) from \(reply.library)")
        } else {
            Output.line("unchanged: \(ReloadReply(json: result)?.library ?? "the library") has not changed since it was loaded")
        }
    }
}
