import LocatedJSON

/// A JSON value for the fuzz mutator: objects keep their members in order and may repeat a key,
/// numbers keep their text, and `raw` holds any text at all (`NaN`, a half-written array), so
/// that a mutated tree can write what no JSON library would.
indirect enum FuzzJSON: Sendable {
    case null
    case bool(Bool)
    /// A number as written; may be anything a mutation puts there (`1e309`, `Infinity`).
    case number(String)
    case string(String)
    case array([FuzzJSON])
    case object([(key: String, value: FuzzJSON)])
    /// Text written as it is.
    case raw(String)

    /// Parses strict RFC 8259 JSON; nil when `text` is not, or nests deeper than 512 levels.
    ///
    /// It reads the seed files, and it is the fuzz tests' judge of whether an input is valid
    /// JSON (Foundation's reader is more lenient: it takes trailing commas). It is a little
    /// stricter than RFC 8259 where a reader may differ: a `\u` escape of a lone surrogate and a
    /// byte order mark make the text invalid here.
    static func parse(_ text: String) -> FuzzJSON? {
        var parser = Parser(scalars: Array(text.unicodeScalars))
        guard let value = parser.value() else { return nil }
        parser.skipSpace()
        return parser.position == parser.scalars.count ? value : nil
    }

    /// Every path from this value to a value under it (itself included) that `predicate`
    /// accepts, in document order; a path is a list of child positions. `prefix` is this value's
    /// path, and is as it was on return.
    func paths(prefix: inout [Int], where predicate: (FuzzJSON) -> Bool, into result: inout [[Int]]) {
        if predicate(self) { result.append(prefix) }
        switch self {
        case .array(let elements):
            for index in elements.indices { elements[index].paths(at: index, prefix: &prefix, where: predicate, into: &result) }
        case .object(let members):
            for index in members.indices { members[index].value.paths(at: index, prefix: &prefix, where: predicate, into: &result) }
        default: break
        }
    }

    private func paths(at index: Int, prefix: inout [Int], where predicate: (FuzzJSON) -> Bool, into result: inout [[Int]]) {
        prefix.append(index)
        paths(prefix: &prefix, where: predicate, into: &result)
        prefix.removeLast()
    }

    /// This value with the one at `path` replaced by `transform`'s result.
    func replacing(at path: ArraySlice<Int>, _ transform: (FuzzJSON) -> FuzzJSON) -> FuzzJSON {
        guard let first = path.first else { return transform(self) }
        switch self {
        case .array(var elements):
            elements[first] = elements[first].replacing(at: path.dropFirst(), transform)
            return .array(elements)
        case .object(var members):
            members[first].value = members[first].value.replacing(at: path.dropFirst(), transform)
            return .object(members)
        default:
            return self
        }
    }

    /// How a value is written out.
    struct Style {
        /// Newlines and two-space indentation, or all on one line.
        var pretty = true
        /// Percent chance, per non-empty container, of a comma after the last item.
        var trailingCommaPercent = 0
    }

    /// The JSON text of this value.
    func text(style: Style = Style(), random: inout FuzzRandom) -> String {
        var output = ""
        write(into: &output, depth: 0, style: style, random: &random)
        return output
    }

    private func write(into output: inout String, depth: Int, style: Style, random: inout FuzzRandom) {
        let newline = style.pretty ? "\n" + String(repeating: "  ", count: depth + 1) : " "
        let closing = style.pretty ? "\n" + String(repeating: "  ", count: depth) : " "
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .number(let text), .raw(let text): output += text
        case .string(let text): output += Self.quoted(text)
        case .array(let elements):
            output += "["
            for (index, element) in elements.enumerated() {
                output += (index == 0 ? "" : ",") + newline
                element.write(into: &output, depth: depth + 1, style: style, random: &random)
            }
            if !elements.isEmpty, random.chance(style.trailingCommaPercent) { output += "," }
            output += elements.isEmpty ? "]" : closing + "]"
        case .object(let members):
            output += "{"
            for (index, member) in members.enumerated() {
                output += (index == 0 ? "" : ",") + newline + Self.quoted(member.key) + ": "
                member.value.write(into: &output, depth: depth + 1, style: style, random: &random)
            }
            if !members.isEmpty, random.chance(style.trailingCommaPercent) { output += "," }
            output += members.isEmpty ? "}" : closing + "}"
        }
    }

    /// `text` as a JSON string literal: the project's one escaper.
    static func quoted(_ text: String) -> String { JSONText.quoted(text) }

    /// A recursive-descent reader for the seeds, which are well-formed JSON.
    private struct Parser {
        private static let space: Set<Unicode.Scalar> = [" ", "\n", "\r", "\t"]

        let scalars: [Unicode.Scalar]
        var position = 0
        var depth = 0

        mutating func skipSpace() {
            while position < scalars.count, Self.space.contains(scalars[position]) { position += 1 }
        }

        mutating func value() -> FuzzJSON? {
            skipSpace()
            guard position < scalars.count else { return nil }
            switch scalars[position] {
            case "{": return object()
            case "[": return array()
            case "\"": return string().map(FuzzJSON.string)
            default: return literal()
            }
        }

        private mutating func expect(_ scalar: Unicode.Scalar) -> Bool {
            skipSpace()
            guard position < scalars.count, scalars[position] == scalar else { return false }
            position += 1
            return true
        }

        private mutating func object() -> FuzzJSON? {
            position += 1
            depth += 1
            defer { depth -= 1 }
            guard depth <= 512 else { return nil }
            var members: [(key: String, value: FuzzJSON)] = []
            if expect("}") { return .object(members) }
            repeat {
                skipSpace()
                guard let key = string(), expect(":"), let value = value() else { return nil }
                members.append((key, value))
            } while expect(",")
            return expect("}") ? .object(members) : nil
        }

        private mutating func array() -> FuzzJSON? {
            position += 1
            depth += 1
            defer { depth -= 1 }
            guard depth <= 512 else { return nil }
            var elements: [FuzzJSON] = []
            if expect("]") { return .array(elements) }
            repeat {
                guard let element = value() else { return nil }
                elements.append(element)
            } while expect(",")
            return expect("]") ? .array(elements) : nil
        }

        private mutating func string() -> String? {
            guard position < scalars.count, scalars[position] == "\"" else { return nil }
            position += 1
            var text = String.UnicodeScalarView()
            while position < scalars.count {
                let scalar = scalars[position]
                position += 1
                if scalar == "\"" { return String(text) }
                guard scalar == "\\" else {
                    guard scalar.value >= 0x20 else { return nil }
                    text.append(scalar)
                    continue
                }
                guard position < scalars.count else { return nil }
                let escape = scalars[position]
                position += 1
                switch escape {
                case "n": text.append("\n")
                case "t": text.append("\t")
                case "r": text.append("\r")
                case "b": text.append("\u{08}")
                case "f": text.append("\u{0C}")
                case "\"", "\\", "/": text.append(escape)
                case "u":
                    guard position + 4 <= scalars.count,
                          scalars[position..<position + 4].allSatisfy(\.properties.isASCIIHexDigit),
                          let code = UInt32(String(String.UnicodeScalarView(scalars[position..<position + 4])), radix: 16),
                          let decoded = Unicode.Scalar(code) else { return nil }
                    text.append(decoded)
                    position += 4
                default: return nil
                }
            }
            return nil
        }

        private mutating func literal() -> FuzzJSON? {
            let start = position
            while position < scalars.count, !Self.delimiters.contains(scalars[position]) {
                position += 1
            }
            let word = String(String.UnicodeScalarView(scalars[start..<position]))
            switch word {
            case "null": return .null
            case "true": return .bool(true)
            case "false": return .bool(false)
            case "": return nil
            default: return Self.isNumber(scalars[start..<position]) ? .number(word) : nil
            }
        }

        private static let delimiters: Set<Unicode.Scalar> = [",", "]", "}", " ", "\n", "\r", "\t"]

        /// RFC 8259's number grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
        private static func isNumber(_ text: ArraySlice<Unicode.Scalar>) -> Bool {
            var rest = text
            func digits() -> Int {
                var count = 0
                while let first = rest.first, ("0"..."9").contains(first) {
                    rest.removeFirst()
                    count += 1
                }
                return count
            }
            if rest.first == "-" { rest.removeFirst() }
            if rest.first == "0" {
                rest.removeFirst()
            } else if digits() == 0 {
                return false
            }
            if rest.first == "." {
                rest.removeFirst()
                if digits() == 0 { return false }
            }
            if rest.first == "e" || rest.first == "E" {
                rest.removeFirst()
                if rest.first == "+" || rest.first == "-" { rest.removeFirst() }
                if digits() == 0 { return false }
            }
            return rest.isEmpty
        }
    }
}
