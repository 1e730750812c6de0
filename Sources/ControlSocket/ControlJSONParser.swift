import LocatedJSON

/// Reads one request or reply line into a ``ControlJSON``, through the project's one JSON reader.
///
/// Stricter than Foundation on purpose: duplicate keys, trailing commas, leading zeros, lone
/// surrogates, raw control characters, numbers beyond a `Double` and invalid UTF-8 are errors,
/// and nesting is capped so a line of 10,000 `[` cannot exhaust the I/O thread.
public enum ControlJSONParser {
    /// Why a text is not JSON, and at which byte.
    public struct Failure: Error, Sendable, Equatable {
        public let message: String
        public let offset: Int
    }

    /// Deeper nesting than any request needs.
    public static let maximumDepth = 128

    /// Parses exactly one JSON value, surrounded by optional whitespace. Anything the reader
    /// finds (even what it could read past, such as a trailing comma) is a failure here.
    public static func parse(_ bytes: some Collection<UInt8>) throws(Failure) -> ControlJSON {
        let array = Array(bytes)
        let read = array.withUnsafeBufferPointer { buffer in
            JSONReader.read(bytes: buffer, options: JSONReader.Options(maximumDepth: maximumDepth, finiteNumbers: true))
        }
        if let finding = read.findings.first {
            throw Failure(message: finding.message, offset: finding.offset)
        }
        guard let root = read.root else { throw Failure(message: "not a JSON value", offset: 0) }
        return value(root)
    }

    /// Parses a string of JSON text.
    public static func parse(_ text: String) throws(Failure) -> ControlJSON {
        try parse(Array(text.utf8))
    }

    private static func value(_ node: JSONNode) -> ControlJSON {
        switch node.value {
        case .null: .null
        case .bool(let value): .bool(value)
        case .number(let number, _): .number(number)
        case .string(let text): .string(text)
        case .array(let elements): .array(elements.map(value))
        case .object(let members): .object(members.map { ($0.key, value($0.value)) })
        }
    }
}
