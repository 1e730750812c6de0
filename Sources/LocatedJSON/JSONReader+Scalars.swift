/// Whitespace, comments, strings, numbers and the words JSON does not have.
extension JSONReader {
    /// Skips whitespace, and comments (each reported: JSON has none).
    mutating func skipSpace() {
        while let byte = current {
            switch byte {
            case 0x20, 0x09:
                // The common case, without advance()'s checks for line breaks and UTF-8.
                index += 1
                column += 1
            case 0x0A, 0x0D:
                advance()
            case UInt8(ascii: "#"):
                note(.comment, at: here, offset: index, pointer: valuePointer)
                while let next = current, next != 0x0A, next != 0x0D { advance() }
            case UInt8(ascii: "/") where index + 1 < bytes.count && (bytes[index + 1] == UInt8(ascii: "/") || bytes[index + 1] == UInt8(ascii: "*")):
                note(.comment, at: here, offset: index, pointer: valuePointer)
                let block = bytes[index + 1] == UInt8(ascii: "*")
                advance()
                advance()
                if block {
                    while current != nil, !(current == UInt8(ascii: "*") && index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "/")) {
                        advance()
                    }
                    if current != nil {
                        advance()
                        advance()
                    }
                } else {
                    while let next = current, next != 0x0A, next != 0x0D { advance() }
                }
            default:
                return
            }
        }
    }

    /// A double-quoted string, its opening quote at the index; nil after reporting.
    mutating func readString() -> String? {
        let start = here, offset = index
        advance()
        var runStart = index
        // With escapes, the string's UTF-8 is gathered here; an array grows geometrically, so a
        // long string of escapes stays linear (appending to a String per escape did not).
        var escaped: [UInt8] = []
        while true {
            guard let byte = current else {
                fail(.syntax("unterminated string (it began at line \(start.line), column \(start.column))"), at: start, offset: offset)
                return nil
            }
            switch byte {
            case UInt8(ascii: "\""):
                let run = UnsafeBufferPointer(rebasing: bytes[runStart..<index])
                advanceColumn(over: runStart..<index)
                index += 1
                column += 1
                guard !escaped.isEmpty else { return String(decoding: run, as: UTF8.self) }
                escaped.append(contentsOf: run)
                return String(decoding: escaped, as: UTF8.self)
            case UInt8(ascii: "\\"):
                escaped.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                advanceColumn(over: runStart..<index)
                guard let scalar = readEscape() else { return nil }
                UTF8.encode(scalar) { escaped.append($0) }
                runStart = index
            case 0x00..<0x20:
                advanceColumn(over: runStart..<index)
                let what = byte == 0x0A || byte == 0x0D ? "a line break" : "a raw control character"
                fail(.syntax("\(what) inside a string (write it as an escape such as \\n or \\u0009)"), at: here, offset: index)
                return nil
            default:
                index += 1
            }
        }
    }

    /// Moves the column over bytes consumed in bulk (no line breaks among them).
    private mutating func advanceColumn(over range: Range<Int>) {
        for position in range where bytes[position] & 0xC0 != 0x80 { column += 1 }
    }

    /// One escape, the index on its backslash; nil after reporting.
    private mutating func readEscape() -> Unicode.Scalar? {
        let start = here, offset = index
        advance()
        guard let byte = current else {
            fail(.syntax("unterminated escape"), at: start, offset: offset)
            return nil
        }
        advance()
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{8}"
        case UInt8(ascii: "f"): return "\u{C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            guard let high = readHex4(escapeAt: start, offset: offset) else { return nil }
            if (0xDC00...0xDFFF).contains(high) {
                fail(.syntax("a lone low surrogate \\u\(String(high, radix: 16))"), at: start, offset: offset)
                return nil
            }
            guard (0xD800...0xDBFF).contains(high) else { return Unicode.Scalar(high) }
            guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                fail(.syntax("a lone high surrogate \\u\(String(high, radix: 16))"), at: start, offset: offset)
                return nil
            }
            advance()
            advance()
            guard let low = readHex4(escapeAt: start, offset: offset) else { return nil }
            guard (0xDC00...0xDFFF).contains(low), let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)) else {
                fail(.syntax("an invalid surrogate pair"), at: start, offset: offset)
                return nil
            }
            return scalar
        default:
            fail(.syntax("invalid escape '\\\(Character(Unicode.Scalar(byte)))'"), at: start, offset: offset)
            return nil
        }
    }

    private mutating func readHex4(escapeAt start: SourceLocation, offset: Int) -> UInt32? {
        var value: UInt32 = 0
        for _ in 0..<4 {
            let digit: UInt32
            switch current {
            case let byte? where byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case let byte? where byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case let byte? where byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default:
                fail(.syntax("expected 4 hex digits after \\u"), at: start, offset: offset)
                return nil
            }
            value = value << 4 | digit
            advance()
        }
        return value
    }

    /// A single-quoted string (reported by the caller), read as YAML does: `''` is one quote.
    mutating func readSingleQuoted() -> String? {
        let start = here, offset = index
        advance()
        var bytesRead: [UInt8] = []
        while true {
            guard let byte = current, byte != 0x0A, byte != 0x0D else {
                fail(.syntax("unterminated string (it began at line \(start.line), column \(start.column))"), at: start, offset: offset)
                return nil
            }
            advance()
            if byte == UInt8(ascii: "'") {
                guard current == UInt8(ascii: "'") else { return String(decoding: bytesRead, as: UTF8.self) }
                advance()
            }
            bytesRead.append(byte)
        }
    }

    /// Whether `byte` may begin a word outside quotes (`true`, `12`, or one JSON lacks: `yes`).
    static func startsPlainWord(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x00...0x20, 0x7F, UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "["), UInt8(ascii: "]"),
             UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "#"):
            false
        default:
            true
        }
    }

    /// A word outside quotes: up to a bracket, a comma, a quote, a line break, a comment, or a
    /// ':' that ends a key. Spaces inside it belong to it, as in YAML (`hello world`), unless
    /// what comes before them is already a JSON value.
    mutating func readPlainWord() -> String {
        let start = index
        var end = index
        while let byte = current {
            switch byte {
            case UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: "["), UInt8(ascii: "{"),
                 UInt8(ascii: "\""), UInt8(ascii: "#"), 0x0A, 0x0D:
                return word(start, end)
            case UInt8(ascii: ":"):
                let next = index + 1 < bytes.count ? bytes[index + 1] : 0x20
                if next == 0x20 || next == 0x09 || next == 0x0A || next == 0x0D { return word(start, end) }
            case 0x00..<0x20 where byte != 0x09, 0x7F:
                return word(start, end)
            case 0x20, 0x09:
                // `1 2` is a missing comma, not one word: a JSON value ends at a space.
                let sofar = word(start, end)
                if ["true", "false", "null"].contains(sofar) || JSONNumber.isValid(sofar) { return sofar }
            default:
                break
            }
            advance()
            if byte != 0x20 && byte != 0x09 { end = index }
        }
        return word(start, end)
    }

    private func word(_ start: Int, _ end: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    /// `true`, `false`, `null` or a JSON number; any other word is reported and kept as the string
    /// it looks like. Nil after a number too large for the options.
    mutating func plainValue(_ word: String, at location: SourceLocation, offset: Int) -> JSONNode.Value? {
        switch word {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "null": return .null
        default: break
        }
        if let decimal = Self.smallDecimal(word) { return .number(decimal, text: word) }
        if JSONNumber.isValid(word), let number = Double(word) {
            guard number.isFinite || !options.finiteNumbers else {
                fail(.syntax("number out of range: \(word)"), at: location, offset: offset)
                return nil
            }
            return .number(number, text: word)
        }
        note(.unquotedString(word), at: location, offset: offset, pointer: valuePointer)
        return .string(word)
    }

    /// The value of a plain decimal (`440`, `-0.25`) of at most 15 digits, computed exactly as
    /// `strtod` rounds it, without the grammar check and `strtod`: most numbers of a graph are
    /// such, and those two were a tenth of reading one. The digits make an integer below 2^53 and
    /// the divisor a power of ten below 10^16, both exact as `Double`s, so the one division is
    /// correctly rounded (Clinger's fast path). Nil for anything else, which takes the full path.
    static func smallDecimal(_ word: String) -> Double? {
        var word = word
        return word.withUTF8 { bytes -> Double? in
            var index = bytes.first == UInt8(ascii: "-") ? 1 : 0
            let negative = index == 1
            var value = 0, digits = 0, fractionDigits = 0
            let integerStart = index
            while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 {
                value = value &* 10 &+ Int(bytes[index] &- UInt8(ascii: "0"))
                index += 1
            }
            digits = index - integerStart
            // A leading zero is valid only alone before the point (`0`, `-0.5`; not `01`).
            guard digits > 0, digits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { return nil }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                let fractionStart = index
                while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 {
                    value = value &* 10 &+ Int(bytes[index] &- UInt8(ascii: "0"))
                    index += 1
                }
                fractionDigits = index - fractionStart
                guard fractionDigits > 0 else { return nil }
            }
            guard index == bytes.count, digits + fractionDigits <= 15 else { return nil }
            let magnitude = Double(value) / Self.powersOfTen[fractionDigits]
            return negative ? -magnitude : magnitude
        }
    }

    /// 10^0 through 10^15, each exact as a `Double`.
    private static let powersOfTen: [Double] = (0...15).map { exponent in
        (0..<exponent).reduce(1.0) { product, _ in product * 10 }
    }
}
