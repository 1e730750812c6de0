import LocatedJSON

/// A JSON value as the control protocol carries it.
///
/// Codable-free on purpose: requests are read by the project's strict JSON reader
/// (``ControlJSONParser``), which rejects duplicate keys, trailing commas and deep nesting that
/// Foundation's parsers accept or crash on. Objects keep their key order, so replies read the way
/// the engine builds them; the engine writes its replies and event logs with it, and `.verbatim`
/// lets it pass text it already built.
public indirect enum ControlJSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([ControlJSON])
    case object([(String, ControlJSON)])
    /// JSON text that is already valid, inserted as it is. The sender vouches for its validity.
    case verbatim(String)

    /// The member named `key` of an object; `nil` for a missing key or a value that is not an object.
    public subscript(key: String) -> ControlJSON? {
        guard case .object(let pairs) = self else { return nil }
        return pairs.first { $0.0 == key }?.1
    }

    /// The string, if this is one.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number, if this is one.
    public var doubleValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The number, if this is one with no fractional part that fits an `Int`.
    public var intValue: Int? {
        guard case .number(let value) = self, value == value.rounded(.towardZero),
              abs(value) < 9.0e15 else { return nil }
        return Int(value)
    }

    /// The boolean, if this is one.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The members, if this is an object.
    public var objectValue: [(String, ControlJSON)]? {
        if case .object(let pairs) = self { return pairs }
        return nil
    }

    /// The elements, if this is an array.
    public var arrayValue: [ControlJSON]? {
        if case .array(let values) = self { return values }
        return nil
    }

    /// Compact JSON text on one line (never contains a raw newline, so it frames as one line).
    public var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    /// Appends the compact text to `out`, without the intermediate strings `text` of each child would make.
    public func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .number(let value): out += Self.numberText(value)
        case .string(let value): Self.writeQuoted(value, to: &out)
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.write(to: &out)
            }
            out += "]"
        case .object(let pairs):
            out += "{"
            for (index, (key, value)) in pairs.enumerated() {
                if index > 0 { out += "," }
                Self.writeQuoted(key, to: &out)
                out += ":"
                value.write(to: &out)
            }
            out += "}"
        case .verbatim(let text): out += text
        }
    }

    /// The value as a located JSON node (with no location), for readers of ``JSONNode``.
    public var node: JSONNode {
        switch self {
        case .null: JSONNode(.null)
        case .bool(let value): JSONNode(.bool(value))
        case .number(let value): JSONNode(.number(value, text: ControlJSON.numberText(value)))
        case .string(let value): JSONNode(.string(value))
        case .array(let elements): JSONNode(.array(elements.map(\.node)))
        case .object(let members): JSONNode(.object(members.map { JSONNode.Member(key: $0.0, keyLocation: nil, value: $0.1.node) }))
        case .verbatim(let text): (try? ControlJSONParser.parse(text))?.node ?? JSONNode(.null)
        }
    }

    public static func == (lhs: ControlJSON, rhs: ControlJSON) -> Bool { lhs.text == rhs.text }

    /// Integral values print without a fraction (ids stay `7`, not `7.0`); JSON has no NaN or infinity.
    static func numberText(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(.towardZero), abs(value) < 9.0e15 { return String(Int64(value)) }
        return String(value)
    }

    /// Escapes as every JSON text of the project does (``JSONText``).
    static func writeQuoted(_ value: String, to out: inout String) {
        JSONText.writeQuoted(value, to: &out)
    }
}

extension ControlJSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: ControlJSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, ControlJSON)...) { self = .object(elements) }
    public init(nilLiteral: ()) { self = .null }
}
