import ArgumentParser
import ControlSocket
import Foundation

/// `iaa apply GRAPH [--dry-run]`: swaps the running graph for a new one, keeping unchanged apps' state.
struct Apply: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apply",
        abstract: "Validate a graph file, diff it against the running graph and swap it in atomically.",
        discussion: """
            Prints the diff (`+` added, `-` removed, `~` changed apps and connections). Unchanged apps \
            keep their state (oscillator phase, parameters, sessions). An invalid graph changes nothing: \
            its diagnostics are printed as `iaa validate` prints them and the exit status is 1.
            """)

    @OptionGroup var engine: EngineOptions

    @Argument(help: "The new graph file.", completion: .file(extensions: ["json"]))
    var graph: String

    @Flag(help: "Print the diff without changing anything.")
    var dryRun = false

    @Flag(help: "Print the reply document as JSON.")
    var json = false

    func run() throws {
        let text: String
        do {
            text = try String(contentsOfFile: graph, encoding: .utf8)
        } catch {
            Output.error("cannot read \(graph): \(Self.reason(error))")
            throw ExitCode(1)
        }
        let client = try engine.connect()
        switch try client.attempt(.apply(text: text, file: graph, dryRun: dryRun)) {
        case .failure(let error) where error.code == "invalidGraph":
            // The message already holds every diagnostic in compiler form, one per line.
            Output.diagnostic(error.message)
            throw ExitCode(1)
        case .failure(let error):
            throw Failure.report(error)
        case .success(let result):
            if json {
                Output.line(result.text)
                return
            }
            guard let reply = ApplyReply(json: result) else {
                Output.line(result.text)
                return
            }
            let lines = DiffText.lines(reply.diff)
            lines.forEach(Output.line)
            for warning in reply.warnings { Output.warning(warning) }
            if dryRun {
                Output.line("dry run: nothing changed")
            } else if reply.applied {
                Output.line("applied")
            } else {
                Output.line(lines.isEmpty ? "unchanged: the running graph is the same" : "not applied")
            }
        }
    }

    private static func reason(_ error: Error) -> String {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        return underlying.map { String(cString: strerror(Int32($0.code))) } ?? error.localizedDescription
    }
}

/// The diff of an `apply` reply as lines: `+ app x`, `- app y`, `~ app z`, `+ connection a:out -> b:in`.
enum DiffText {
    /// The sign and the noun of each list's lines, by its protocol name.
    static let signs: [String: (sign: String, noun: String)] = [
        "appsAdded": ("+", "app"), "appsRemoved": ("-", "app"), "appsChanged": ("~", "app"),
        "connectionsAdded": ("+", "connection"), "connectionsRemoved": ("-", "connection"),
        "jackConnectionsAdded": ("+", "jack connection"), "jackConnectionsRemoved": ("-", "jack connection"),
    ]

    static func lines(_ diff: ApplyReply.Diff) -> [String] {
        diff.lists.flatMap { list -> [String] in
            guard let sign = signs[list.key] else { return [] }
            return list.items.map { "\(sign.sign) \(sign.noun) \($0)" }
        } + diff.appsReloaded.map { "~ app \($0) (library rebuilt: new code)" }
    }
}
