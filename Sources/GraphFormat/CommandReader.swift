import AudioGraph
import LocatedJSON
import Suggestions

/// The one reader of commands by name: a timeline entry and a live control request that say the
/// same thing become the same ``EngineCommand``, with the same checks, messages, hints and
/// suggestions ("did you mean", "is a configuration value"). A timeline reads its entries
/// through it; the engine hands it a request's parameters as the fields of the action the
/// method names (see `Engine/RequestDecoder`).
public enum CommandReader {
    /// Why an action did not read: every error, in the order written.
    public struct Failure: Error, Sendable {
        public let diagnostics: [Diagnostic]
    }

    /// The actions, by the names a timeline's `do` gives them.
    public static var actionNames: [String] { TimelineReader.ActionName.allCases.map(\.rawValue) }

    /// The command `action` (`setCategory`, `setParam`, …) with `fields` (an object: the action's
    /// members), naming apps of `graph`; else every error found, with pointers into `fields`
    /// (`/category`, `/options/1`). With `strict`, a member the action does not take is an error
    /// (a file's typo); without, it is ignored (a request may carry more than one action needs).
    /// Graph-replacing `apply` is read by timelines only: it needs their folder and node types.
    public static func command(_ action: String, fields: JSONNode, graph: Graph, strict: Bool) -> Result<EngineCommand, Failure> {
        guard let name = TimelineReader.ActionName(rawValue: action), name != .apply else {
            let diagnostic = Diagnostic(severity: .error, code: .unknownAction, file: "", line: nil, column: nil, pointer: "",
                                        message: "unknown action \(JSONText.quoted(action))",
                                        hint: Suggestion.hint(for: action, in: actionNames))
            return .failure(Failure(diagnostics: [diagnostic]))
        }
        var reader = TimelineReader(file: "", root: fields, graph: graph, registry: nil)
        let command = reader.command(name, fields, pointer: "", strict: strict)
        let errors = reader.sink.sorted.filter(\.isError)
        guard let command, errors.isEmpty else { return .failure(Failure(diagnostics: errors)) }
        return .success(command)
    }

    /// What is wrong with asking `app` for parameter `name`, which it does not have: its
    /// parameters, a configuration value by that name (fixed at creation), or the closest name.
    public static func unknownParameter(_ name: String, of app: App) -> (message: String, hint: String?) {
        let names = app.type.parameters.map(\.name)
        let listing = names.isEmpty ? "it has none" : "parameters: " + names.joined(separator: ", ")
        if app.type.configuration.contains(where: { $0.name == name }) {
            return ("\(JSONText.quoted(name)) of app \(JSONText.quoted(app.id)) is a configuration value, fixed when the node is created (\(listing))",
                    "change it in the graph file")
        }
        return ("app \(JSONText.quoted(app.id)) (\(app.type.id)) has no parameter \(JSONText.quoted(name)) (\(listing))",
                Suggestion.hint(for: name, in: names))
    }
}
