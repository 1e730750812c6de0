import ArgumentParser
import ControlSocket

/// `iaa graph --format dot`: the running graph as a Graphviz picture.
struct GraphPicture: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graph",
        abstract: "Print the running graph as a Graphviz picture.",
        discussion: """
            Roles are clusters, gains label the connections, ducked or suspended apps are dashed. \
            JACK ports outside the engine are ellipses: a jack.connections rule's connection is \
            solid, a pending rule dashed grey, a program's route to its app bold blue, a \
            connection made by hand dotted: \
            `iaa graph | dot -Tsvg > graph.svg`.
            """)

    /// The picture formats the engine draws.
    typealias Format = ControlCall.GraphFormat

    @OptionGroup var engine: EngineOptions

    @Option(help: "The picture's format.")
    var format: Format = .dot

    @Flag(help: "Print the reply document as JSON.")
    var json = false

    func run() throws {
        let result = try engine.connect().call(.graph(format: format))
        if json {
            Output.line(result.text)
        } else {
            let dot = result[format.rawValue]?.stringValue ?? ""
            Output.line(dot.hasSuffix("\n") ? String(dot.dropLast()) : dot)
        }
    }
}
