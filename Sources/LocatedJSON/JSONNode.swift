/// A place in a JSON (or YAML) text.
public struct SourceLocation: Sendable, Hashable {
    /// 1-based line.
    public let line: Int
    /// 1-based column, counted in Unicode scalars (as libyaml counts, for YAML files too).
    public let column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }
}

/// A parsed JSON value that remembers where it was written.
///
/// ``JSONReader`` makes it from JSON, and the graph decoder from YAML files, so that nothing
/// past them depends on either syntax; fields kept raw for later work (`session`, `component`)
/// keep their locations for the errors that work will report.
///
/// A node is a place in a ``JSONTape``: `value` makes the value (and a container's contents)
/// when asked, while `member(_:)`, `entries`, `items`, `string` and `number` read the tape in
/// place, which is how large documents are read.
public struct JSONNode: Sendable, Hashable {
    public enum Value: Sendable, Hashable {
        case null
        case bool(Bool)
        /// The number and its text as written (`2`, `2.0`, `1e3`).
        case number(Double, text: String)
        case string(String)
        case array([JSONNode])
        /// Members in the order written; keys are unique (a document with a duplicate is refused).
        case object([Member])
    }

    /// One `"key": value` pair of an object.
    public struct Member: Sendable, Hashable {
        public let key: String
        public let value: JSONNode
        private let keyAt: KeyAt

        /// Where the key is: given, or its token on a tape read from text, found when asked. A
        /// column is counted from its line's start, so finding every key's of a reply written on
        /// one line (277 kB for `status` of 1,000 apps) took the CLI 1.6 s; only a diagnostic
        /// asks for one.
        private enum KeyAt: Sendable {
            case given(SourceLocation?)
            case token(JSONTape, Int)
        }

        public var keyLocation: SourceLocation? {
            switch keyAt {
            case .given(let location): location
            case .token(let tape, let index): tape.location(of: index)
            }
        }

        public init(key: String, keyLocation: SourceLocation?, value: JSONNode) {
            self.key = key
            self.value = value
            keyAt = .given(keyLocation)
        }

        init(key: String, keyToken index: Int, in tape: JSONTape, value: JSONNode) {
            self.key = key
            self.value = value
            keyAt = .token(tape, index)
        }

        public static func == (lhs: Member, rhs: Member) -> Bool {
            lhs.key == rhs.key && lhs.value == rhs.value && lhs.keyLocation == rhs.keyLocation
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(key)
            hasher.combine(value)
        }
    }

    let tape: JSONTape
    let index: Int

    init(tape: JSONTape, index: Int) {
        self.tape = tape
        self.index = index
    }

    /// A node made in code (or from YAML), on a tape of its own.
    public init(_ value: Value, location: SourceLocation? = nil) {
        var builder = JSONTape.Builder()
        builder.append(value, at: location)
        tape = builder.finish()
        index = 0
    }

    public var value: Value { tape.value(at: index) }
    public var location: SourceLocation? { tape.location(of: index) }

    public static func == (lhs: JSONNode, rhs: JSONNode) -> Bool {
        (lhs.tape === rhs.tape && lhs.index == rhs.index) || (lhs.location == rhs.location && lhs.value == rhs.value)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(location)
        hasher.combine(value)
    }

    /// The JSON type's name as error messages say it (`string`, `object`).
    public var typeName: String {
        switch tape.tokens[index].kind {
        case .null: "null"
        case .falseValue, .trueValue: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    public var string: String? {
        tape.tokens[index].kind == .string ? tape.text(index) : nil
    }

    /// Whether this is the string `text` (compared in place, without making a `String`).
    public func isString(_ text: String) -> Bool {
        tape.tokens[index].kind == .string && tape.text(index, equals: text)
    }

    public var number: Double? {
        let token = tape.tokens[index]
        return token.kind == .number ? tape.numbers[Int(token.payload)] : nil
    }

    public var bool: Bool? {
        switch tape.tokens[index].kind {
        case .trueValue: true
        case .falseValue: false
        default: nil
        }
    }

    public var isObject: Bool { tape.tokens[index].kind == .object }
    public var isArray: Bool { tape.tokens[index].kind == .array }

    public var members: [Member]? {
        if case .object(let members) = value { members } else { nil }
    }

    public var elements: [JSONNode]? {
        if case .array(let elements) = value { elements } else { nil }
    }

    /// An object's value for `key`, found in place; nil when absent or when this is no object.
    public func member(_ key: String) -> JSONNode? {
        guard isObject else { return nil }
        return tape.member(of: index, key).map { JSONNode(tape: tape, index: $0) }
    }

    /// An object's members in order, read in place (empty for anything else); each key is a
    /// string node.
    public var entries: Entries { Entries(tape: tape, start: index + 1, end: isObject ? tape.tokens[index].end : index + 1) }

    /// An array's elements in order, read in place (empty for anything else).
    public var items: Items { Items(tape: tape, start: index + 1, end: isArray ? tape.tokens[index].end : index + 1) }

    /// How many members or elements a container holds (0 for anything else).
    public var count: Int {
        let token = tape.tokens[index]
        return token.kind == .object || token.kind == .array ? token.count : 0
    }

    public struct Entries: Sequence, IteratorProtocol {
        let tape: JSONTape
        var start: Int
        let end: Int

        public mutating func next() -> (key: JSONNode, value: JSONNode)? {
            guard start < end else { return nil }
            let key = start
            start = tape.next(after: key + 1)
            return (JSONNode(tape: tape, index: key), JSONNode(tape: tape, index: key + 1))
        }
    }

    public struct Items: Sequence, IteratorProtocol {
        let tape: JSONTape
        var start: Int
        let end: Int

        public mutating func next() -> JSONNode? {
            guard start < end else { return nil }
            let element = start
            start = tape.next(after: element)
            return JSONNode(tape: tape, index: element)
        }
    }
}
