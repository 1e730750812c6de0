import ArgumentParser
import ControlSocket

/// `iaa dump [--graph]`: the engine's full state as JSON, like pw-dump.
struct Dump: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Print the running engine's full state as JSON.",
        discussion: """
            With --graph, print a graph file that reproduces the running engine, changes made live \
            included: `iaa dump --graph > now.json && iaa validate now.json`. Its jack.connections \
            are the graph's rules as written (`@playback`, globs), then every other connection to \
            an app's port made outside the file, outside names in full; the routes the engine makes \
            for programs, and admitted apps, are not written (the program blocks make them again).
            """)

    @OptionGroup var engine: EngineOptions

    @Flag(help: "Print the running graph as a graph file instead of the state.")
    var graph = false

    @Flag(help: "Print the reply document as it came, on one line (dump is JSON either way).")
    var json = false

    func run() throws {
        let client = try engine.connect()
        if graph {
            let result = try client.call(.dump(graph: true))
            if json {
                Output.line(result.text)
            } else {
                // The file text is printed as it is so it can be saved and edited; one trailing newline.
                let file = GraphFileReply(json: result)?.file ?? result.prettyText
                Output.line(file.hasSuffix("\n") ? String(file.dropLast()) : file)
            }
        } else {
            let result = try client.call(.dump(graph: false))
            Output.line(json ? result.text : result.prettyText)
        }
    }
}
