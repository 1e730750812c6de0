import ArgumentParser
import ControlSocket

/// `iaa status [--json]`: the running engine as a tree, like `wpctl status`.
struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
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

    func run() throws {
        let status = try engine.connect().call(.status)
        if json {
            Output.line(status.text)
        } else {
            Output.line(StatusTree(status: status).text)
        }
    }
}
