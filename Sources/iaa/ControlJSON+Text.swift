import ControlSocket

/// How client verbs show the engine's JSON to people.
extension ControlJSON {
    /// Indented JSON over several lines (two spaces, pw-dump's look); `text` stays the one-line form.
    var prettyText: String {
        var out = ""
        writePretty(to: &out, indent: "")
        return out
    }

    private func writePretty(to out: inout String, indent: String) {
        let inner = indent + "  "
        switch self {
        case .array(let values) where !values.isEmpty:
            out += "[\n"
            for (index, value) in values.enumerated() {
                out += inner
                value.writePretty(to: &out, indent: inner)
                out += index < values.count - 1 ? ",\n" : "\n"
            }
            out += indent + "]"
        case .object(let pairs) where !pairs.isEmpty:
            out += "{\n"
            for (index, (key, value)) in pairs.enumerated() {
                out += inner + ControlJSON.string(key).text + ": "
                value.writePretty(to: &out, indent: inner)
                out += index < pairs.count - 1 ? ",\n" : "\n"
            }
            out += indent + "}"
        default:
            write(to: &out)
        }
    }

    /// A scalar as a word in a sentence: strings bare, numbers short, arrays comma-joined.
    var plainText: String {
        switch self {
        case .string(let value): value
        case .number(let value): Output.number(value)
        case .bool(let value): value ? "true" : "false"
        case .null: "none"
        case .array(let values): values.map(\.plainText).joined(separator: ",")
        case .object, .verbatim: text
        }
    }

    /// The members of an object, or none.
    var members: [(String, ControlJSON)] { objectValue ?? [] }

    /// The elements of an array, or none.
    var elements: [ControlJSON] { arrayValue ?? [] }
}
