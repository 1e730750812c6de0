import LocatedJSON
import Testing

@Suite("The JSON reader")
struct JSONReaderTests {
    static func findings(_ text: String) -> [String] {
        JSONReader.read(text).findings.map { "\($0.location.line):\($0.location.column) \($0.message)" }
    }

    @Test("numbers follow RFC 8259's grammar, stricter than Double's",
          arguments: [("0", true), ("-0", true), ("10", true), ("1.5", true), ("1e3", true), ("1E+3", true),
                      ("-2.5e-7", true), ("", false), ("-", false), ("+1", false), (".5", false), ("01", false),
                      ("1.", false), ("1e", false), ("1e+", false), ("1e+-3", false), ("inf", false),
                      ("0x10", false), ("1.5.2", false), ("--1", false), ("١", false)])
    func numberGrammar(text: String, valid: Bool) {
        #expect(JSONNumber.isValid(text) == valid)
    }

    @Test("every number reads as Double(text) does, to the bit: short decimals take a fast path")
    func numberValues() throws {
        // Decimals of 1 to 17 digits with the point anywhere (15 and fewer take the fast path),
        // from a fixed generator so that a failure repeats; and the edge cases by hand.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var texts = ["0", "-0", "0.0", "-0.0", "0.1", "0.3", "1.7976931348623157", "999999999999999", "-999999999999999.9",
                     "0.000000000000001", "123456789012345", "1234567890123456", "9007199254740993", "1e3", "-2.5e-7"]
        for _ in 0..<5_000 {
            let count = 1 + next(17)
            var digits = (0..<count).map { _ in String(next(10)) }.joined()
            while digits.count > 1, digits.hasPrefix("0") { digits.removeFirst() }
            let point = next(digits.count + 1)
            var text = point == 0 || point == digits.count ? digits
                : String(digits.prefix(point)) + "." + String(digits.dropFirst(point))
            if next(2) == 0 { text = "-" + text }
            texts.append(text)
        }
        let result = JSONReader.read("[" + texts.joined(separator: ",") + "]")
        #expect(result.findings.isEmpty)
        let values = try #require(result.root?.elements).map(\.value)
        for (text, value) in zip(texts, values) {
            guard case .number(let number, let written) = value else {
                Issue.record("\(text) did not read as a number")
                continue
            }
            #expect(written == text)
            #expect(number.bitPattern == Double(text)?.bitPattern, "\(text)")
        }
    }

    @Test("values keep their line and column in Unicode scalars, across LF, CR and CRLF")
    func locations() throws {
        let result = JSONReader.read("{\"é😀\": [1,\r\n  \"a\"],\r\"b\":\n true}")
        #expect(result.findings.isEmpty)
        let members = try #require(result.root?.members)
        #expect(members.map(\.key) == ["é😀", "b"])
        #expect(members[0].keyLocation == SourceLocation(line: 1, column: 2))
        #expect(members[0].value.location == SourceLocation(line: 1, column: 8))
        #expect(members[0].value.elements?[1].location == SourceLocation(line: 2, column: 3))
        #expect(members[1].keyLocation == SourceLocation(line: 3, column: 1))
        #expect(members[1].value.location == SourceLocation(line: 4, column: 2))
    }

    @Test("what the author evidently meant is reported and read on: every such mistake in one pass")
    func recovery() {
        let result = JSONReader.read("{ name: 'x', \"n\": yes, // note\n \"list\": [1, 2,], }")
        #expect(Self.findings("{ name: 'x', \"n\": yes, // note\n \"list\": [1, 2,], }") == [
            "1:3 object keys must be double-quoted strings", "1:9 single-quoted strings are not JSON",
            "1:19 unquoted string yes; JSON strings need double quotes", "1:24 comments are not JSON",
            "2:15 trailing comma before ']'", "2:17 trailing comma before '}'",
        ])
        #expect(result.root?.members?.map(\.key) == ["name", "n", "list"])
        #expect(result.findings.map(\.pointer) == ["", "/name", "/n", "", "/list", ""])
    }

    @Test("a duplicate key is found in small and large objects; the document is then refused")
    func duplicates() {
        let many = (0..<40).map { "\"k\($0)\": \($0)" }.joined(separator: ", ")
        for text in ["{\"a\": 1, \"a\": 2}", "{\(many), \"k7\": 0}"] {
            let result = JSONReader.read(text)
            #expect(result.root == nil)
            #expect(result.findings.count == 1)
            #expect(result.findings.first?.message.hasPrefix("duplicate key") == true, "\(result.findings)")
        }
    }

    @Test("a syntax error ends the reading at its place, naming the container it was in")
    func syntaxError() {
        #expect(Self.findings("{\"a\": [1 2]}") == ["1:10 expected ',' or ']' after an array element, found '2' (the array began at line 1, column 7)"])
        #expect(Self.findings("{\"a\" 1}") == ["1:6 expected ':' after the key \"a\""])
        #expect(Self.findings("[\"open") == ["1:2 unterminated string (it began at line 1, column 2)"])
        #expect(Self.findings("") == ["1:1 the text is empty"])
    }

    @Test("a byte-order mark is skipped; invalid UTF-8 in bytes is refused, not repaired")
    func encoding() {
        #expect(JSONReader.read("\u{FEFF}{}").findings.isEmpty)
        let bytes: [UInt8] = [0x5B, 0x22, 0xC3, 0x28, 0x22, 0x5D]
        let result = bytes.withUnsafeBufferPointer { JSONReader.read(bytes: $0) }
        #expect(result.root == nil)
        #expect(result.findings.map(\.offset) == [2])
    }

    @Test("the one escaper: controls, DEL and the Unicode line separators are escaped")
    func escaper() {
        #expect(JSONText.quoted("a\"\\\n\u{1}\u{7F}\u{2028}é") == #""a\"\\\n\u0001\u007f\u2028é""#)
    }
}
