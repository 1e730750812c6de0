import ArgumentParser
import ControlSocket

/// `iaa enable APP`: lets an app the engine stopped run again.
struct Enable: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enable",
        abstract: "Run an app again that the engine stopped for a fault.",
        discussion: """
            An in-process node is stopped when its output holds NaN or infinity (muted) or when its \
            process keeps overrunning its share of the period (bypassed or muted); it is reset and \
            runs again. An isolated app that faulted too often (`isolation.maxCrashes` within \
            `isolation.crashWindow`) stays off; a new child process is started for it.
            """)

    @OptionGroup var engine: EngineOptions

    @Argument(help: "The app to enable.")
    var app: String

    @Flag(help: "Print the reply document as JSON.")
    var json = false

    func run() throws {
        let result = try engine.connect().call(.enable(app: app))
        if json {
            Output.line(result.text)
        } else if EnableReply(json: result)?.enabled == true {
            Output.line("enabled \(app)")
        } else {
            Output.line("\(app) was not stopped: nothing to enable")
        }
    }
}
