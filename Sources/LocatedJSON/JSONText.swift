/// Writes JSON text by hand, so that diagnostics and protocol replies render without Foundation.
/// The one string escaper of the project.
public enum JSONText {
    /// `text` as a JSON string literal, quotes included, escaped per RFC 8259.
    public static func quoted(_ text: String) -> String {
        var out = ""
        writeQuoted(text, to: &out)
        return out
    }

    /// Appends `text` as a JSON string literal. Control characters must be escaped; DEL too, so
    /// that a terminal showing the text shows it; U+2028/2029 too, since JavaScript readers choke.
    public static func writeQuoted(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\u{0}"..."\u{1F}", "\u{7F}", "\u{2028}", "\u{2029}":
                out += "\\u" + hex4(scalar.value)
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// `node` as compact JSON: no spaces, members in the order written, numbers as written.
    public static func compact(_ node: JSONNode) -> String {
        switch node.value {
        case .null:
            return "null"
        case .bool(let value):
            return value ? "true" : "false"
        case .number(let number, let text):
            // YAML files may spell numbers JSON does not (`+1`, `.5`); those print as Swift does.
            if JSONNumber.isValid(text) { return text }
            return number.isFinite ? "\(number)" : "null"
        case .string(let text):
            return quoted(text)
        case .array(let elements):
            return "[" + elements.map(compact).joined(separator: ",") + "]"
        case .object(let members):
            return "{" + members.map { quoted($0.key) + ":" + compact($0.value) }.joined(separator: ",") + "}"
        }
    }

    private static func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
