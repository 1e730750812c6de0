/// Finds, in the raw text, what a YAML parser accepts but JSON forbids: trailing commas, comments
/// and duplicate keys.
///
/// libyaml takes `[1, 2,]` and `# notes` as valid flow YAML, and Yams reports a duplicate key at its
/// first occurrence only, so the strict JSON mode scans the text itself. The scan is tolerant: it
/// tracks strings, brackets and keys, and ignores anything else, leaving real syntax errors to
/// the parser.
struct JSONTextScanner {
    /// Something JSON forbids, at a place in the text.
    struct Finding: Equatable {
        enum Kind: Equatable {
            case trailingComma(closing: Character)
            case comment
            /// A `key: value` pair where JSON has none: in an array, or outside any object
            /// (YAML reads both as mappings).
            case pairOutsideObject(inArray: Bool)
            /// `key` repeats in one object; `first` is where it was written before.
            case duplicateKey(key: String, first: SourceLocation)
            /// Arrays and objects nest deeper than ``maximumDepth``; the scan stops there.
            case tooDeep
        }

        let kind: Kind
        let location: SourceLocation
        /// The pointer of the value concerned (the duplicated key's member).
        let pointer: String
    }

    private enum Frame {
        case object(pointer: String, keys: [String: SourceLocation], currentKey: String?, expectingKey: Bool)
        case array(pointer: String, index: Int)
    }

    /// The deepest nesting of arrays and objects read. The parser recurses once per level, so
    /// this bounds its stack; graph files nest six levels at most.
    static let maximumDepth = 512

    private let scalars: [Unicode.Scalar]
    private var position = 0
    private var line = 1
    private var column = 1
    private var stack: [Frame] = []
    private var findings: [Finding] = []

    init(_ text: String) {
        scalars = Array(text.unicodeScalars)
    }

    /// Every finding in document order.
    static func scan(_ text: String) -> [Finding] {
        var scanner = JSONTextScanner(text)
        scanner.run()
        return scanner.findings
    }

    private var here: SourceLocation { SourceLocation(line: line, column: column) }

    private mutating func advance() {
        let scalar = scalars[position]
        position += 1
        if scalar == "\n" || (scalar == "\r" && (position >= scalars.count || scalars[position] != "\n")) {
            line += 1
            column = 1
        } else if scalar != "\r" {
            column += 1
        }
    }

    private mutating func run() {
        while position < scalars.count {
            let start = here
            if stack.count > Self.maximumDepth {
                findings.append(Finding(kind: .tooDeep, location: start, pointer: currentPointer))
                return
            }
            switch scalars[position] {
            case "\"":
                let text = readString()
                noteString(text, at: start)
            case "{":
                push(object: true)
                advance()
            case "[":
                push(object: false)
                advance()
            case "}", "]":
                if !stack.isEmpty { stack.removeLast() }
                advance()
            case ":":
                switch stack.last {
                case .object(let pointer, let keys, let key, _)?:
                    stack[stack.count - 1] = .object(pointer: pointer, keys: keys, currentKey: key, expectingKey: false)
                case .array?:
                    findings.append(Finding(kind: .pairOutsideObject(inArray: true), location: start, pointer: currentPointer))
                case nil:
                    findings.append(Finding(kind: .pairOutsideObject(inArray: false), location: start, pointer: currentPointer))
                }
                advance()
            case ",":
                comma(at: start)
            case "#":
                findings.append(Finding(kind: .comment, location: start, pointer: currentPointer))
                while position < scalars.count, scalars[position] != "\n" { advance() }
            default:
                advance()
            }
        }
    }

    /// The pointer of the value being written at the current position.
    private var currentPointer: String {
        switch stack.last {
        case .object(let pointer, _, let key?, _): JSONPointer.appending(pointer, key)
        case .object(let pointer, _, nil, _): pointer
        case .array(let pointer, let index): JSONPointer.appending(pointer, index)
        case nil: ""
        }
    }

    private mutating func push(object: Bool) {
        let pointer = stack.isEmpty ? "" : currentPointer
        stack.append(object
            ? .object(pointer: pointer, keys: [:], currentKey: nil, expectingKey: true)
            : .array(pointer: pointer, index: 0))
    }

    private mutating func noteString(_ text: String, at location: SourceLocation) {
        guard case .object(let pointer, var keys, _, true)? = stack.last else { return }
        if let first = keys[text] {
            findings.append(Finding(kind: .duplicateKey(key: text, first: first), location: location,
                                    pointer: JSONPointer.appending(pointer, text)))
        } else {
            keys[text] = location
        }
        stack[stack.count - 1] = .object(pointer: pointer, keys: keys, currentKey: text, expectingKey: false)
    }

    private mutating func comma(at location: SourceLocation) {
        // The comma belongs to the container, not to the item before it.
        let pointer: String = switch stack.last {
        case .object(let base, _, _, _), .array(let base, _): base
        case nil: ""
        }
        switch stack.last {
        case .object(let base, let keys, _, _):
            stack[stack.count - 1] = .object(pointer: base, keys: keys, currentKey: nil, expectingKey: true)
        case .array(let base, let index):
            stack[stack.count - 1] = .array(pointer: base, index: index + 1)
        case nil:
            break
        }
        advance()
        var lookahead = position
        while lookahead < scalars.count, [" ", "\t", "\n", "\r"].contains(scalars[lookahead]) { lookahead += 1 }
        if lookahead < scalars.count, scalars[lookahead] == "]" || scalars[lookahead] == "}" {
            findings.append(Finding(kind: .trailingComma(closing: Character(scalars[lookahead])),
                                    location: location, pointer: pointer))
        }
    }

    /// Reads a double-quoted string starting at the opening quote; returns its raw content with
    /// the common escapes decoded well enough to compare keys.
    private mutating func readString() -> String {
        advance()
        var text = String.UnicodeScalarView()
        while position < scalars.count {
            let scalar = scalars[position]
            if scalar == "\"" {
                advance()
                break
            }
            if scalar == "\\", position + 1 < scalars.count {
                advance()
                text.append(Self.unescaped(scalars[position]))
                advance()
                continue
            }
            if scalar == "\n" { break }
            text.append(scalar)
            advance()
        }
        return String(text)
    }

    static func unescaped(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        switch scalar {
        case "n": "\n"
        case "t": "\t"
        case "r": "\r"
        default: scalar
        }
    }
}
