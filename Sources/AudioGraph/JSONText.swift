/// Writes JSON string literals by hand, so that diagnostics render without Foundation.
public enum JSONText {
    /// `text` as a JSON string literal, quotes included, escaped per RFC 8259.
    public static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            // Control characters must be escaped; U+2028/2029 too, since JavaScript readers choke.
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                out += "\\u" + hex4(scalar.value)
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// `node` as compact JSON: no spaces, members in the order written, numbers as written.
    static func compact(_ node: JSONNode) -> String {
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
