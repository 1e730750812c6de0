/// Where a string's or key's text is: bytes of the document, or (escapes decoded, a single-quoted
/// string) a side string.
enum TextSpan {
    case bytes(start: Int, length: Int)
    case side(String)
}

/// Whitespace, comments, strings, numbers and the words JSON does not have.
extension JSONReader {
    /// Skips whitespace, and comments (each reported: JSON has none).
    mutating func skipSpace() {
        while let byte = current {
            switch byte {
            case 0x20, 0x09:
                // The common cases, without advance()'s checks.
                index += 1
            case 0x0A:
                index += 1
                lineStarts.append(Int32(index))
            case 0x0D:
                advance()
            case UInt8(ascii: "#"):
                note(.comment, at: index, pointer: valuePointer)
                while let next = current, next != 0x0A, next != 0x0D { advance() }
            case UInt8(ascii: "/") where index + 1 < bytes.count && (bytes[index + 1] == UInt8(ascii: "/") || bytes[index + 1] == UInt8(ascii: "*")):
                note(.comment, at: index, pointer: valuePointer)
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

    /// A double-quoted string, its opening quote at the index; nil after reporting. Without
    /// escapes (nearly every string) it stays bytes of the document.
    mutating func readString() -> TextSpan? {
        let offset = index
        index += 1
        var runStart = index
        // With escapes, the string's UTF-8 is gathered here; an array grows geometrically, so a
        // long string of escapes stays linear (appending to a String per escape did not).
        var escaped: [UInt8] = []
        var hasEscapes = false
        while true {
            guard let byte = current else {
                let start = location(atOffset: offset)
                fail(.syntax("unterminated string (it began at line \(start.line), column \(start.column))"), at: offset)
                return nil
            }
            switch byte {
            case UInt8(ascii: "\""):
                let run = UnsafeBufferPointer(rebasing: bytes[runStart..<index])
                index += 1
                guard hasEscapes else { return .bytes(start: runStart, length: run.count) }
                escaped.append(contentsOf: run)
                return .side(String(decoding: escaped, as: UTF8.self))
            case UInt8(ascii: "\\"):
                hasEscapes = true
                escaped.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                guard let scalar = readEscape() else { return nil }
                UTF8.encode(scalar) { escaped.append($0) }
                runStart = index
            case 0x00..<0x20:
                let what = byte == 0x0A || byte == 0x0D ? "a line break" : "a raw control character"
                fail(.syntax("\(what) inside a string (write it as an escape such as \\n or \\u0009)"), at: index)
                return nil
            default:
                index += 1
            }
        }
    }

    /// One escape, the index on its backslash; nil after reporting.
    private mutating func readEscape() -> Unicode.Scalar? {
        let offset = index
        advance()
        guard let byte = current else {
            fail(.syntax("unterminated escape"), at: offset)
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
            guard let high = readHex4(escapeAt: offset) else { return nil }
            if (0xDC00...0xDFFF).contains(high) {
                fail(.syntax("a lone low surrogate \\u\(String(high, radix: 16))"), at: offset)
                return nil
            }
            guard (0xD800...0xDBFF).contains(high) else { return Unicode.Scalar(high) }
            guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                fail(.syntax("a lone high surrogate \\u\(String(high, radix: 16))"), at: offset)
                return nil
            }
            advance()
            advance()
            guard let low = readHex4(escapeAt: offset) else { return nil }
            guard (0xDC00...0xDFFF).contains(low), let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)) else {
                fail(.syntax("an invalid surrogate pair"), at: offset)
                return nil
            }
            return scalar
        default:
            fail(.syntax("invalid escape '\\\(Character(Unicode.Scalar(byte)))'"), at: offset)
            return nil
        }
    }

    private mutating func readHex4(escapeAt offset: Int) -> UInt32? {
        var value: UInt32 = 0
        for _ in 0..<4 {
            let digit: UInt32
            switch current {
            case let byte? where byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case let byte? where byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case let byte? where byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default:
                fail(.syntax("expected 4 hex digits after \\u"), at: offset)
                return nil
            }
            value = value << 4 | digit
            advance()
        }
        return value
    }

    /// A single-quoted string (reported by the caller), read as YAML does: `''` is one quote.
    mutating func readSingleQuoted() -> String? {
        let offset = index
        advance()
        var bytesRead: [UInt8] = []
        while true {
            guard let byte = current, byte != 0x0A, byte != 0x0D else {
                let start = location(atOffset: offset)
                fail(.syntax("unterminated string (it began at line \(start.line), column \(start.column))"), at: offset)
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
    /// The word's bytes, as a range of the document.
    mutating func readPlainWord() -> Range<Int> {
        let start = index
        var end = index
        while let byte = current {
            if Self.endsWord(byte) { return start..<end }
            switch byte {
            case UInt8(ascii: ":"):
                let next = index + 1 < bytes.count ? bytes[index + 1] : 0x20
                if next == 0x20 || next == 0x09 || next == 0x0A || next == 0x0D { return start..<end }
            case 0x20, 0x09:
                // Spaces before what ends a word anyway (`0.25 }`, the common case) end it here.
                var next = index + 1
                while next < bytes.count, bytes[next] == 0x20 || bytes[next] == 0x09 { next += 1 }
                if next == bytes.count || Self.endsWord(bytes[next]) { return start..<end }
                // `1 2` is a missing comma, not one word: a JSON value ends at a space.
                let sofar = UnsafeBufferPointer(rebasing: bytes[start..<end])
                if Self.literal(sofar) != nil || JSONNumber.isValid(sofar) { return start..<end }
                // The blanks belong to the word: stepped over as one run, since looking ahead
                // from each of them made a megabyte of spaces inside a word take minutes.
                index = next
                continue
            default:
                break
            }
            advance()
            if byte != 0x20 && byte != 0x09 { end = index }
        }
        return start..<end
    }

    /// Whether `byte` ends a word wherever it comes (a ':' depends on what follows it).
    static func endsWord(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: "["), UInt8(ascii: "{"),
             UInt8(ascii: "\""), UInt8(ascii: "#"), 0x00..<0x20, 0x7F:
            byte != 0x09
        default:
            false
        }
    }

    func text(of word: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[word]), as: UTF8.self)
    }

    /// The kind of `true`, `false` or `null`, if the word is one.
    static func literal(_ word: UnsafeBufferPointer<UInt8>) -> JSONTape.Kind? {
        func equals(_ literal: StaticString) -> Bool {
            guard word.count == literal.utf8CodeUnitCount else { return false }
            for position in 0..<word.count where word[position] != literal.utf8Start[position] { return false }
            return true
        }
        if equals("true") { return .trueValue }
        if equals("false") { return .falseValue }
        if equals("null") { return .null }
        return nil
    }

    /// `true`, `false`, `null` or a JSON number, written as a token; any other word is reported
    /// and kept as the string it looks like. False after a number too large for the options.
    mutating func plainValue(_ word: Range<Int>, at offset: Int) -> Bool {
        let text = UnsafeBufferPointer(rebasing: bytes[word])
        let span = TextSpan.bytes(start: word.lowerBound, length: word.count)
        if let literal = Self.literal(text) {
            _ = emit(literal, at: offset)
            return true
        }
        if let decimal = Self.smallDecimal(text) {
            _ = emit(.number, at: offset, text: span, payload: Int32(numbers.count))
            numbers.append(decimal)
            return true
        }
        if JSONNumber.isValid(text), let number = Double(self.text(of: word)) {
            guard number.isFinite || !options.finiteNumbers else {
                fail(.syntax("number out of range: \(self.text(of: word))"), at: offset)
                return false
            }
            _ = emit(.number, at: offset, text: span, payload: Int32(numbers.count))
            numbers.append(number)
            return true
        }
        note(.unquotedString(self.text(of: word)), at: offset, pointer: valuePointer)
        _ = emit(.string, at: offset, text: span)
        return true
    }

    /// The value of a plain decimal (`440`, `-0.25`) of at most 15 digits, computed exactly as
    /// `strtod` rounds it, without the grammar check and `strtod`: most numbers of a graph are
    /// such, and those two were a tenth of reading one. The digits make an integer below 2^53 and
    /// the divisor a power of ten below 10^16, both exact as `Double`s, so the one division is
    /// correctly rounded (Clinger's fast path). Nil for anything else, which takes the full path.
    static func smallDecimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        do {
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
