extension ControlJSONParser {
    /// A string literal; the index is on its opening quote.
    mutating func string() throws(Failure) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var runStart = index
        while true {
            guard let byte = current else { throw failure("unterminated string") }
            if byte == UInt8(ascii: "\"") {
                try appendRun(from: runStart, to: &scalars)
                index += 1
                return String(scalars)
            }
            if byte < 0x20 { throw failure("raw control character in a string (escape it)") }
            if byte == UInt8(ascii: "\\") {
                try appendRun(from: runStart, to: &scalars)
                scalars.append(try escape())
                runStart = index
                continue
            }
            index += 1
        }
    }

    /// Appends the unescaped bytes since `start`, refusing invalid UTF-8 rather than repairing it.
    private func appendRun(from start: Int, to scalars: inout String.UnicodeScalarView) throws(Failure) {
        guard start < index else { return }
        let run = UnsafeBufferPointer(rebasing: bytes[start..<index])
        guard let text = String(validating: run, as: UTF8.self) else {
            throw Failure(message: "invalid UTF-8 in a string", offset: start)
        }
        scalars.append(contentsOf: text.unicodeScalars)
    }

    /// One escape sequence; the index is on its backslash.
    private mutating func escape() throws(Failure) -> Unicode.Scalar {
        index += 1
        guard let byte = current else { throw failure("unterminated escape") }
        index += 1
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
            let high = try hex4()
            if (0xDC00...0xDFFF).contains(high) { throw failure("lone low surrogate") }
            guard (0xD800...0xDBFF).contains(high) else {
                guard let scalar = Unicode.Scalar(high) else { throw failure("invalid \\u escape") }
                return scalar
            }
            guard current == UInt8(ascii: "\\") else { throw failure("lone high surrogate") }
            index += 1
            guard current == UInt8(ascii: "u") else { throw failure("lone high surrogate") }
            index += 1
            let low = try hex4()
            guard (0xDC00...0xDFFF).contains(low),
                  let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)) else {
                throw failure("invalid surrogate pair")
            }
            return scalar
        default: throw failure("invalid escape '\\\(Self.printable(byte))'")
        }
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current else { throw failure("unterminated \\u escape") }
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw failure("expected 4 hex digits after \\u")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }
}
