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
        public let keyLocation: SourceLocation?
        public let value: JSONNode

        public init(key: String, keyLocation: SourceLocation?, value: JSONNode) {
            self.key = key
            self.keyLocation = keyLocation
            self.value = value
        }
    }

    public let value: Value
    public let location: SourceLocation?

    public init(_ value: Value, location: SourceLocation? = nil) {
        self.value = value
        self.location = location
    }

    /// The JSON type's name as error messages say it (`string`, `object`).
    public var typeName: String {
        switch value {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    public var string: String? {
        if case .string(let text) = value { text } else { nil }
    }

    public var number: Double? {
        if case .number(let number, _) = value { number } else { nil }
    }

    public var members: [Member]? {
        if case .object(let members) = value { members } else { nil }
    }

    public var elements: [JSONNode]? {
        if case .array(let elements) = value { elements } else { nil }
    }
}

extension JSONNode.Member {
    /// Whether this member's key is `key`. Readers find members by trying keys one by one, so
    /// most comparisons are of unequal keys: those of different lengths are told apart inline,
    /// without the call the standard comparison of two unequal strings makes.
    @inlinable
    public func hasKey(_ key: String) -> Bool {
        self.key.utf8.count == key.utf8.count && self.key == key
    }
}
