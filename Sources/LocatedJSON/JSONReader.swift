/// The one JSON reader of the project: graph files, timelines, grants, the configuration file
/// and every control-protocol line go through it.
///
/// It reads RFC 8259 JSON into a ``JSONTape`` whose ``JSONNode``s know their line and column (in
/// Unicode scalars; a line ends at LF, CR or CRLF), and reports what is not JSON as
/// ``JSONFinding``s in document order. Where the author's meaning is plain (a trailing comma, a comment, an
/// unquoted word) it reports and reads on, so that one load shows every such mistake; a graph
/// file with findings is still refused. The reading is iterative, so nesting costs heap, not
/// stack, and is capped at `maximumDepth`.
public struct JSONReader {
    /// What one reading gave: the document (nil when a finding made it unusable) and every finding.
    public struct Result: Sendable {
        public var root: JSONNode?
        public var findings: [JSONFinding]
    }

    /// How strict to be beyond JSON's grammar.
    public struct Options: Sendable {
        /// Arrays and objects nested deeper than this end the reading.
        public var maximumDepth: Int
        /// Numbers too large for a `Double` are a syntax error instead of infinity.
        public var finiteNumbers: Bool

        public init(maximumDepth: Int = 512, finiteNumbers: Bool = false) {
            self.maximumDepth = maximumDepth
            self.finiteNumbers = finiteNumbers
        }
    }

    /// One array or object being read.
    struct Frame {
        let isObject: Bool
        /// The container's token.
        let token: Int
        /// Members or elements read so far.
        var count = 0
        /// The token of the key whose value is being read (-1: none).
        var key = -1
        /// Every key of a large object, by its token, for the duplicate check (a small one is searched).
        var keyIndex: [String: Int]?
    }

    enum State {
        /// A value, or (`closingAllowed`) the `]` of an empty array.
        case value(closingAllowed: Bool)
        /// A key and its colon, or (`closingAllowed`) the `}` of an empty object.
        case key(closingAllowed: Bool)
        case afterValue
    }

    let bytes: UnsafeBufferPointer<UInt8>
    let options: Options
    var index = 0
    /// Where each line begins, as the tape keeps them: locations are worked out from offsets
    /// only for a finding or a node asked for its place.
    var lineStarts: [Int32] = [0]
    var stack: [Frame] = []
    var findings: [JSONFinding] = []
    var tokens: [JSONTape.Token] = []
    var strings: [String] = []
    var numbers: [Double] = []
    /// The document's value is complete.
    var complete = false
    /// A finding ended the reading.
    var unusable = false
    /// A key repeated: the reading goes on to report more, but gives no document.
    var duplicated = false

    init(_ bytes: UnsafeBufferPointer<UInt8>, options: Options) {
        self.bytes = bytes
        self.options = options
    }

    /// Reads `text` (valid UTF-8, as every `String` is).
    public static func read(_ text: String, options: Options = Options()) -> Result {
        var text = text
        return text.withUTF8 { read(validUTF8: $0, options: options) }
    }

    /// Reads UTF-8 `bytes`; invalid UTF-8 is a syntax finding, not repaired.
    public static func read(bytes: UnsafeBufferPointer<UInt8>, options: Options = Options()) -> Result {
        guard String(validating: bytes, as: UTF8.self) != nil else {
            var reader = JSONReader(bytes, options: options)
            let offset = Self.firstInvalidUTF8(bytes)
            // Past the valid part, so that the finding knows its line.
            while reader.index < offset { reader.advance() }
            reader.fail(.syntax("the text is not valid UTF-8"), at: offset)
            return Result(root: nil, findings: reader.findings)
        }
        return read(validUTF8: bytes, options: options)
    }

    private static func read(validUTF8 bytes: UnsafeBufferPointer<UInt8>, options: Options) -> Result {
        var reader = JSONReader(bytes, options: options)
        guard bytes.count < Int(Int32.max) else {
            reader.fail(.syntax("the text is larger than 2 GiB"), at: 0)
            return Result(root: nil, findings: reader.findings)
        }
        // About one token per three bytes in a graph file; growing from empty copied the tape
        // a dozen times on a large one.
        reader.tokens.reserveCapacity(bytes.count / 3)
        reader.run()
        guard reader.complete, !reader.unusable, !reader.duplicated else { return Result(root: nil, findings: reader.findings) }
        let tape = JSONTape(bytes: Array(bytes), tokens: reader.tokens, strings: reader.strings, numbers: reader.numbers,
                            lineStarts: reader.lineStarts)
        return Result(root: JSONNode(tape: tape, index: 0), findings: reader.findings)
    }

    /// The line and column of the byte at `offset` (at or before the reading's place).
    func location(atOffset offset: Int) -> SourceLocation {
        JSONTape.location(atOffset: offset, lineStarts: lineStarts, in: bytes)
    }
    // Inlined, as `advance()`: they run once per byte of the document.
    var current: UInt8? {
        @inline(__always) get { index < bytes.count ? bytes[index] : nil }
    }

    /// Consumes one byte, noting where a line begins (LF, a CR alone, or the LF of CRLF ends one).
    @inline(__always)
    mutating func advance() {
        let byte = bytes[index]
        index += 1
        if byte == 0x0A || (byte == 0x0D && current != 0x0A) { lineStarts.append(Int32(index)) }
    }

    /// Reports something at byte `offset`.
    mutating func note(_ kind: JSONFinding.Kind, at offset: Int, pointer: String) {
        findings.append(JSONFinding(kind: kind, location: location(atOffset: offset), offset: offset, pointer: pointer))
    }

    /// Reports what ends the reading.
    mutating func fail(_ kind: JSONFinding.Kind, at offset: Int, pointer: String = "") {
        note(kind, at: offset, pointer: pointer)
        unusable = true
    }

    /// The pointer of the container on top of the stack (`""` for the document).
    var containerPointer: String { pointer(includingCurrent: false) }
    /// The pointer of the value being read now.
    var valuePointer: String { pointer(includingCurrent: true) }

    private func pointer(includingCurrent: Bool) -> String {
        var pointer = ""
        for (position, frame) in stack.enumerated() {
            let isLast = position == stack.count - 1
            guard !isLast || includingCurrent else { break }
            if frame.isObject {
                guard frame.key >= 0 else { break }
                pointer = JSONPointer.appending(pointer, text(frame.key))
            } else {
                pointer = JSONPointer.appending(pointer, frame.count)
            }
        }
        return pointer
    }

    private mutating func run() {
        // A byte-order mark is not part of the document.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            index = 3
            lineStarts[0] = 3
        }
        var state = State.value(closingAllowed: false)
        skipSpace()
        if current == nil {
            fail(.syntax("the text is empty"), at: index)
            return
        }
        while !unusable {
            skipSpace()
            switch state {
            case .value(let closingAllowed):
                guard let next = readValue(closingAllowed: closingAllowed) else { return }
                state = next
            case .key(let closingAllowed):
                guard let next = readKey(closingAllowed: closingAllowed) else { return }
                state = next
            case .afterValue:
                guard let next = readAfterValue() else { return }
                state = next
            }
        }
    }

    /// Appends a token for a value or key that begins at `offset`; returns its index.
    @inline(__always)
    mutating func emit(_ kind: JSONTape.Kind, at offset: Int, text: TextSpan = .bytes(start: 0, length: 0),
                       payload: Int32 = 0) -> Int {
        let token: JSONTape.Token
        switch text {
        case .bytes(let start, let length):
            // A quoted string's text starts after its quote; a number's or a word's, where it is.
            token = JSONTape.Token(kind: kind, place: start == offset ? .bare : .quoted, offset: Int32(offset),
                                   length: Int32(length), payload: payload)
        case .side(let string):
            token = JSONTape.Token(kind: kind, place: .side, offset: Int32(offset), length: Int32(string.utf8.count),
                                   payload: Int32(strings.count))
            strings.append(string)
        }
        tokens.append(token)
        return tokens.count - 1
    }

    /// The text of the string token at `token` (a key, for pointers and messages).
    func text(_ token: Int) -> String {
        tokens[token].text(strings: strings, bytes: bytes)
    }

    /// Reads one value, or opens a container; nil when the reading ended.
    private mutating func readValue(closingAllowed: Bool) -> State? {
        let offset = index
        guard let byte = current else {
            fail(.syntax("unexpected end of the text" + openedAt), at: offset)
            return nil
        }
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard stack.count < options.maximumDepth else {
                fail(.tooDeep(limit: options.maximumDepth), at: offset, pointer: valuePointer)
                return nil
            }
            advance()
            let isObject = byte == UInt8(ascii: "{")
            stack.append(Frame(isObject: isObject, token: emit(isObject ? .object : .array, at: offset)))
            return isObject ? .key(closingAllowed: true) : .value(closingAllowed: true)
        case UInt8(ascii: "]") where closingAllowed:
            advance()
            return close()
        case UInt8(ascii: "\""):
            guard let text = readString() else { return nil }
            _ = emit(.string, at: offset, text: text)
            return completed()
        case UInt8(ascii: "'"):
            guard let text = readSingleQuoted() else { return nil }
            note(.singleQuoted(text), at: offset, pointer: valuePointer)
            _ = emit(.string, at: offset, text: .side(text))
            return completed()
        default:
            guard Self.startsPlainWord(byte) else {
                fail(.syntax("expected a value, found " + describe(byte) + openedAt), at: offset)
                return nil
            }
            let word = readPlainWord()
            guard plainValue(word, at: offset) else { return nil }
            return completed()
        }
    }

    /// Reads a key; nil when the reading ended.
    private mutating func readKey(closingAllowed: Bool) -> State? {
        let offset = index
        let key: TextSpan
        switch current {
        case UInt8(ascii: "}")? where closingAllowed:
            advance()
            return close()
        case UInt8(ascii: "\"")?:
            guard let text = readString() else { return nil }
            key = text
        case UInt8(ascii: "'")?:
            guard let text = readSingleQuoted() else { return nil }
            note(.unquotedKey(text), at: offset, pointer: containerPointer)
            key = .side(text)
        case let byte? where Self.startsPlainWord(byte):
            let word = readPlainWord()
            key = .bytes(start: word.lowerBound, length: word.count)
            note(.unquotedKey(text(of: word)), at: offset, pointer: containerPointer)
        case let byte:
            let found = byte.map(describe) ?? "the end of the text"
            fail(.syntax("expected a key in double quotes, found \(found)" + openedAt), at: offset)
            return nil
        }
        let token = emit(.string, at: offset, text: key)
        noteDuplicate(token)
        stack[stack.count - 1].key = token
        // The colon is read here, not by a turn of the reading loop: every member has one.
        skipSpace()
        guard current == UInt8(ascii: ":") else {
            fail(.syntax("expected ':' after the key \"\(text(token))\""), at: index)
            return nil
        }
        advance()
        return .value(closingAllowed: false)
    }

    /// After a value: a comma, the container's end, or (for the document) the end of the text.
    private mutating func readAfterValue() -> State? {
        let offset = index
        // Only the kind of the container is needed: copying its frame (`stack.last`) retained
        // and released its buffers for every value of the document.
        guard !stack.isEmpty else {
            if current == nil { return nil }
            if current == UInt8(ascii: ":") {
                fail(.pairOutsideObject(inArray: false), at: offset, pointer: valuePointer)
            } else {
                fail(.syntax("unexpected text after the document's value"), at: offset)
            }
            return nil
        }
        let isObject = stack[stack.count - 1].isObject
        let closing = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
        switch current {
        case UInt8(ascii: ",")?:
            advance()
            skipSpace()
            if current == closing {
                note(.trailingComma(closing: Character(Unicode.Scalar(closing))), at: offset, pointer: containerPointer)
                advance()
                return close()
            }
            return isObject ? .key(closingAllowed: false) : .value(closingAllowed: false)
        case closing?:
            advance()
            return close()
        case UInt8(ascii: ":")? where !isObject:
            fail(.pairOutsideObject(inArray: true), at: offset, pointer: valuePointer)
            return nil
        case let byte:
            let expected = isObject ? "',' or '}' after an object member" : "',' or ']' after an array element"
            let found = byte.map(describe) ?? "the end of the text"
            fail(.syntax("expected \(expected), found \(found)" + openedAt), at: offset)
            return nil
        }
    }

    /// Ends the container on top of the stack (its closing bracket is consumed): its token
    /// learns where its descendants end and how many members or elements it has.
    private mutating func close() -> State {
        let frame = stack.removeLast()
        tokens[frame.token].payload = Int32(tokens.count)
        tokens[frame.token].length = Int32(frame.count)
        return completed()
    }

    /// A value (its tokens written) is complete: the document's, an array's or the pending key's.
    private mutating func completed() -> State {
        guard !stack.isEmpty else {
            complete = true
            return .afterValue
        }
        let top = stack.count - 1
        stack[top].count += 1
        stack[top].key = -1
        return .afterValue
    }

    /// A duplicate is reported where it repeats; the reading goes on, without a document.
    private mutating func noteDuplicate(_ key: Int) {
        let top = stack.count - 1
        var first: Int?
        if stack[top].keyIndex != nil {
            first = stack[top].keyIndex?[text(key)]
        } else {
            // The earlier keys are searched in place, by bytes; a tape skips each value at once.
            var position = stack[top].token + 1
            while position < key {
                if sameText(position, key) {
                    first = position
                    break
                }
                position = tokens[position + 1].indexAfterValue(at: position + 1)
            }
            // Searching is quicker for the small objects graphs are made of; an index for large ones.
            if stack[top].count == 16 {
                var index: [String: Int] = [:]
                var earlier = stack[top].token + 1
                while earlier < key {
                    index[text(earlier)] = index[text(earlier)] ?? earlier
                    earlier = tokens[earlier + 1].indexAfterValue(at: earlier + 1)
                }
                let keyText = text(key)
                index[keyText] = index[keyText] ?? key
                stack[top].keyIndex = index
            }
        }
        if let first {
            let keyText = text(key)
            note(.duplicateKey(key: keyText, first: location(atOffset: Int(tokens[first].offset))),
                 at: Int(tokens[key].offset), pointer: JSONPointer.appending(containerPointer, keyText))
            duplicated = true
        } else if stack[top].keyIndex != nil {
            let keyText = text(key)
            stack[top].keyIndex?[keyText] = key
        }
    }

    /// Whether two string tokens hold the same text.
    private func sameText(_ first: Int, _ second: Int) -> Bool {
        let a = tokens[first], b = tokens[second]
        if a.sideText || b.sideText { return text(first) == text(second) }
        guard a.textLength == b.textLength else { return false }
        var position = 0
        while position < a.textLength {
            if bytes[a.textStart + position] != bytes[b.textStart + position] { return false }
            position += 1
        }
        return true
    }
    /// ` (the array began at line 4, column 11)` for the container being read, or nothing.
    var openedAt: String {
        guard let frame = stack.last else { return "" }
        let location = location(atOffset: Int(tokens[frame.token].offset))
        return " (the \(frame.isObject ? "object" : "array") began at line \(location.line), column \(location.column))"
    }

    /// A byte as a message shows it: `'x'`, or a code point for what does not print.
    func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        // The scalar that starts here, decoded for its code point.
        var iterator = UnsafeBufferPointer(rebasing: bytes[index...]).makeIterator()
        var decoder = UTF8()
        if case .scalarValue(let scalar) = decoder.decode(&iterator) {
            let digits = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        }
        return "byte 0x" + String(byte, radix: 16, uppercase: true)
    }

    static func firstInvalidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput, .error: return offset
            }
        }
    }
}
