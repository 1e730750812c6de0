/// A strict RFC 8259 parser for one request line.
///
/// Stricter than Foundation on purpose: duplicate keys, trailing commas, leading zeros, lone
/// surrogates, raw control characters and invalid UTF-8 are errors, and nesting is capped so a line of
/// 10,000 `[` cannot overflow the I/O thread's stack.
public struct ControlJSONParser {
    /// Why a text is not JSON, and at which byte.
    public struct Failure: Error, Sendable, Equatable {
        public let message: String
        public let offset: Int
    }

    /// Deeper nesting than any request needs; recursion depth stays far below the stack size.
    public static let maximumDepth = 128

    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    private var depth = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// Parses exactly one JSON value, surrounded by optional whitespace.
    public static func parse(_ bytes: some Collection<UInt8>) throws(Failure) -> ControlJSON {
        let array = Array(bytes)
        let outcome: Result<ControlJSON, Failure> = array.withUnsafeBufferPointer { buffer in
            var parser = ControlJSONParser(buffer)
            do throws(Failure) {
                parser.skipWhitespace()
                let value = try parser.value()
                parser.skipWhitespace()
                if parser.index != buffer.count { throw parser.failure("unexpected text after the value") }
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    /// Parses a string of JSON text.
    public static func parse(_ text: String) throws(Failure) -> ControlJSON {
        try parse(Array(text.utf8))
    }

    func failure(_ message: String) -> Failure { Failure(message: message, offset: index) }

    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func value() throws(Failure) -> ControlJSON {
        guard let byte = current else { throw failure("unexpected end of text") }
        switch byte {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw failure("unexpected character '\(Self.printable(byte))'")
        }
    }

    private mutating func enter() throws(Failure) {
        depth += 1
        if depth > Self.maximumDepth { throw failure("nesting deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func object() throws(Failure) -> ControlJSON {
        try enter()
        index += 1
        var pairs: [(String, ControlJSON)] = []
        skipWhitespace()
        if current == UInt8(ascii: "}") { index += 1; depth -= 1; return .object(pairs) }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw failure("expected a string key") }
            let keyOffset = index
            let key = try string()
            if pairs.contains(where: { $0.0 == key }) {
                throw Failure(message: "duplicate key \"\(key)\"", offset: keyOffset)
            }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw failure("expected ':' after a key") }
            index += 1
            skipWhitespace()
            pairs.append((key, try value()))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; depth -= 1; return .object(pairs)
            default: throw failure("expected ',' or '}' in an object")
            }
        }
    }

    private mutating func array() throws(Failure) -> ControlJSON {
        try enter()
        index += 1
        var values: [ControlJSON] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") { index += 1; depth -= 1; return .array(values) }
        while true {
            skipWhitespace()
            values.append(try value())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; depth -= 1; return .array(values)
            default: throw failure("expected ',' or ']' in an array")
            }
        }
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let start = word.utf8Start
        for offset in 0..<word.utf8CodeUnitCount {
            guard current == start[offset] else { throw failure("invalid literal (expected \(word))") }
            index += 1
        }
    }

    private mutating func number() throws(Failure) -> Double {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, Self.isDigit(first) else { throw failure("expected a digit") }
        index += 1
        if first == UInt8(ascii: "0"), let next = current, Self.isDigit(next) {
            throw failure("leading zeros are not allowed")
        }
        skipDigits()
        if current == UInt8(ascii: ".") {
            index += 1
            guard let digit = current, Self.isDigit(digit) else { throw failure("expected a digit after '.'") }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let digit = current, Self.isDigit(digit) else { throw failure("expected a digit in the exponent") }
            skipDigits()
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw Failure(message: "number out of range", offset: start)
        }
        return value
    }

    private mutating func skipDigits() {
        while let byte = current, Self.isDigit(byte) { index += 1 }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// A byte as it may appear in an error message (control bytes and non-ASCII as hex).
    static func printable(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16)
    }
}
