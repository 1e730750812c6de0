import AudioGraph
import LocatedJSON

/// One finding about a graph file: what is wrong, where, and how to fix it.
///
/// It prints in GCC's form (`FILE:LINE:COL: error[CODE]: /pointer: message`) because editors and
/// people already parse that, and renders as a JSON object for `iaa validate --json`.
public struct Diagnostic: Sendable, Hashable {
    public enum Severity: String, Sendable, Hashable {
        case error, warning
    }

    public let severity: Severity
    public let code: GraphErrorCode
    /// The file as the user named it, so that the printed path is one they can open.
    public let file: String
    /// 1-based line, when the finding has a place in the text.
    public let line: Int?
    /// 1-based column in Unicode scalars, as libyaml counts.
    public let column: Int?
    /// RFC 6901 JSON pointer to the value concerned (`/connections/0/to`); empty for the document.
    public let pointer: String
    public let message: String
    /// How to fix it, when there is something better to say than the message.
    public let hint: String?

    public init(severity: Severity = .error, code: GraphErrorCode, file: String,
                line: Int? = nil, column: Int? = nil, pointer: String = "",
                message: String, hint: String? = nil) {
        self.severity = severity
        self.code = code
        self.file = file
        self.line = line
        self.column = column
        self.pointer = pointer
        self.message = message
        self.hint = hint
    }

    public var isError: Bool { severity == .error }

    /// The first line alone: `FILE:LINE:COL: error[CODE]: POINTER: MESSAGE`.
    public var headline: String {
        var text = file
        if let line {
            text += ":\(line)"
            if let column { text += ":\(column)" }
        }
        text += ": \(severity.rawValue)[\(code.rawValue)]: "
        if !pointer.isEmpty { text += "\(pointer): " }
        return text + message
    }

    /// The GCC-style rendering, with `  hint: …` on a second line when there is a hint.
    public var formatted: String {
        guard let hint else { return headline }
        return headline + "\n  hint: " + hint
    }

    /// One JSON object with the keys `file, line, column, pointer, code, severity, message, hint`
    /// in that order; absent values are `null`.
    public var json: String {
        let fields: [(String, String)] = [
            ("file", JSONText.quoted(file)),
            ("line", line.map(String.init) ?? "null"),
            ("column", column.map(String.init) ?? "null"),
            ("pointer", JSONText.quoted(pointer)),
            ("code", JSONText.quoted(code.rawValue)),
            ("severity", JSONText.quoted(severity.rawValue)),
            ("message", JSONText.quoted(message)),
            ("hint", hint.map(JSONText.quoted) ?? "null"),
        ]
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    /// A JSON array of `diagnostics`, one document for `iaa validate --json`.
    public static func json(_ diagnostics: [Diagnostic]) -> String {
        "[" + diagnostics.map(\.json).joined(separator: ",") + "]"
    }
}
