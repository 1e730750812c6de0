/// Something in a JSON text that is not JSON, where it was written.
///
/// Some findings are *recoverable*: the reader takes what the author evidently meant (a comment
/// skipped, `yes` read as the string it looks like) and goes on, so that one load reports every
/// such mistake. The others end the reading, or (a duplicate key) let it go on without a result.
public struct JSONFinding: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A comma before `closing` (`]` or `}`).
        case trailingComma(closing: Character)
        /// `#`, `//` or `/* … */`.
        case comment
        /// A `key: value` pair where JSON has none: in an array, or outside any object.
        case pairOutsideObject(inArray: Bool)
        /// `key` repeats in one object; `first` is where it was written before.
        case duplicateKey(key: String, first: SourceLocation)
        /// Arrays and objects nest deeper than the reader's limit.
        case tooDeep(limit: Int)
        /// A key without double quotes (`format:`, `'format':`).
        case unquotedKey(String)
        /// A value that is not `true`, `false`, `null`, a JSON number or a string in double quotes.
        case unquotedString(String)
        /// A string in single quotes.
        case singleQuoted(String)
        /// Anything else: the reading stops here.
        case syntax(String)
    }

    public let kind: Kind
    public let location: SourceLocation
    /// The byte offset in the text, for readers that count bytes (the control protocol).
    public let offset: Int
    /// The JSON pointer of the value concerned (for a syntax error, empty).
    public let pointer: String

    /// True when the reader could take the author's meaning and go on.
    public var isRecoverable: Bool {
        switch kind {
        case .trailingComma, .comment, .unquotedKey, .unquotedString, .singleQuoted, .duplicateKey: true
        case .pairOutsideObject, .tooDeep, .syntax: false
        }
    }

    public var message: String {
        switch kind {
        case .trailingComma(let closing): "trailing comma before '\(closing)'"
        case .comment: "comments are not JSON"
        case .pairOutsideObject(let inArray):
            inArray ? "':' inside an array: JSON arrays hold values, not key: value pairs"
                    : "':' outside any object: a JSON document is one value"
        case .duplicateKey(let key, let first):
            "duplicate key \"\(key)\" (first written at line \(first.line), column \(first.column))"
        case .tooDeep(let limit): "arrays and objects nest deeper than \(limit) levels"
        case .unquotedKey: "object keys must be double-quoted strings"
        case .unquotedString(let text): "unquoted string \(text); JSON strings need double quotes"
        case .singleQuoted: "single-quoted strings are not JSON"
        case .syntax(let message): message
        }
    }

    public var hint: String? {
        switch kind {
        case .trailingComma: "JSON allows no comma after the last item; remove it"
        case .comment: "remove the comment, or name the file .yaml"
        case .pairOutsideObject(let inArray): inArray ? "wrap the pair in braces: [{\"key\": value}]" : "wrap the members in { }"
        case .duplicateKey: "keep one of them"
        case .tooDeep: "a graph nests a few levels; check the brackets"
        case .unquotedKey(let text), .unquotedString(let text), .singleQuoted(let text): "write \(JSONText.quoted(text))"
        case .syntax: nil
        }
    }
}
