import ArgumentParser
import ControlSocket
import Foundation

/// `iaa status [--json]`: the running engine as a tree, like `wpctl status`.
struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the running engine: hosts, nodes, apps, their sessions and gains, interruptions.",
        discussion: """
            The header names the graph, the JACK server, sample rate and buffer size, the DSP load and \
            the xruns (all, and those caused by iaa). `*` marks an app in the foreground. Under JACK: \
            every connection to the engine's ports, kept by a jack.connections `rule` or made \
            `outside` the graph file, and each rule not made now (pending, removed by hand, refused).
            """)

    @OptionGroup var engine: EngineOptions

    @Flag(help: "Print the engine's status document as JSON.")
    var json = false

    @Option(help: ArgumentHelp("Wait up to SECONDS for an engine to listen on the socket, as after `iaa run GRAPH &` in a script.",
                               valueName: "seconds"))
    var wait: Double = 0

    func validate() throws {
        guard wait.isFinite, wait >= 0 else { throw ValidationError("--wait must be a number of seconds, 0 or more, not \(wait)") }
    }

    func run() throws {
        let status = try connect().call(.status)
        // A reply this iaa cannot read (an engine of another version) is shown as it came.
        guard !json, let reply = StatusReply(json: status) else {
            Output.line(status.text)
            return
        }
        Output.line(StatusTree(status: reply).text)
    }

    /// The connection, tried again every 50 ms while nothing listens yet and `--wait` has not passed.
    private func connect() throws -> EngineClient {
        let deadline = ContinuousClock.now + .milliseconds(Int((wait * 1000).rounded()))
        while true {
            do {
                return EngineClient(client: try ControlClient(path: engine.socketPath))
            } catch where error.code == .notRunning && ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.05)
            } catch {
                throw Failure.report(error)
            }
        }
    }
}
