/// The one JSON reader of the project: graph files, timelines, grants, the configuration file
/// and every control-protocol line go through it.
///
/// It reads RFC 8259 JSON into ``JSONNode``s that remember their line and column (in Unicode
/// scalars; a line ends at LF, CR or CRLF), and reports what is not JSON as ``JSONFinding``s in
/// document order. Where the author's meaning is plain (a trailing comma, a comment, an
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
        let location: SourceLocation
        /// The pointer of this container, made only when a finding needs it.
        var elements: [JSONNode] = []
        var members: [JSONNode.Member] = []
        /// The key whose value is being read, and where it was written.
        var key: String?
        var keyLocation = SourceLocation(line: 0, column: 0)
        /// Every key of a large object, for the duplicate check (a small one is searched).
        var keyIndex: [String: SourceLocation]?
    }

    enum State {
        /// A value, or (`closingAllowed`) the `]` of an empty array.
        case value(closingAllowed: Bool)
        /// A key, or (`closingAllowed`) the `}` of an empty object.
        case key(closingAllowed: Bool)
        case colon
        case afterValue
    }

    let bytes: UnsafeBufferPointer<UInt8>
    let options: Options
    var index = 0
    var line = 1
    var column = 1
    var stack: [Frame] = []
    var findings: [JSONFinding] = []
    var root: JSONNode?
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
            reader.fail(.syntax("the text is not valid UTF-8"), at: reader.here, offset: Self.firstInvalidUTF8(bytes))
            return Result(root: nil, findings: reader.findings)
        }
        return read(validUTF8: bytes, options: options)
    }

    private static func read(validUTF8 bytes: UnsafeBufferPointer<UInt8>, options: Options) -> Result {
        var reader = JSONReader(bytes, options: options)
        reader.run()
        return Result(root: reader.unusable || reader.duplicated ? nil : reader.root, findings: reader.findings)
    }

    var here: SourceLocation { SourceLocation(line: line, column: column) }
    // Inlined, as `advance()`: they run once per byte of the document.
    var current: UInt8? {
        @inline(__always) get { index < bytes.count ? bytes[index] : nil }
    }

    /// Consumes one byte, keeping the line and the column (which counts scalars, not bytes).
    @inline(__always)
    mutating func advance() {
        let byte = bytes[index]
        index += 1
        if byte == 0x0A {
            line += 1
            column = 1
        } else if byte == 0x0D {
            if current != 0x0A {
                line += 1
                column = 1
            }
        } else if byte & 0xC0 != 0x80 {
            column += 1
        }
    }

    mutating func note(_ kind: JSONFinding.Kind, at location: SourceLocation, offset: Int, pointer: String) {
        findings.append(JSONFinding(kind: kind, location: location, offset: offset, pointer: pointer))
    }

    /// Reports what ends the reading.
    mutating func fail(_ kind: JSONFinding.Kind, at location: SourceLocation, offset: Int, pointer: String = "") {
        note(kind, at: location, offset: offset, pointer: pointer)
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
                guard let key = frame.key else { break }
                pointer = JSONPointer.appending(pointer, key)
            } else {
                pointer = JSONPointer.appending(pointer, frame.elements.count)
            }
        }
        return pointer
    }

    private mutating func run() {
        // A byte-order mark is not part of the document.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
        var state = State.value(closingAllowed: false)
        skipSpace()
        if current == nil {
            fail(.syntax("the text is empty"), at: here, offset: index)
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
            case .colon:
                guard current == UInt8(ascii: ":") else {
                    let key = stack.last?.key ?? ""
                    fail(.syntax("expected ':' after the key \"\(key)\""), at: here, offset: index)
                    return
                }
                advance()
                state = .value(closingAllowed: false)
            case .afterValue:
                guard let next = readAfterValue() else { return }
                state = next
            }
        }
    }

    /// Reads one value, or opens a container; nil when the reading ended.
    private mutating func readValue(closingAllowed: Bool) -> State? {
        let start = here, offset = index
        guard let byte = current else {
            fail(.syntax("unexpected end of the text" + openedAt), at: start, offset: offset)
            return nil
        }
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard stack.count < options.maximumDepth else {
                fail(.tooDeep(limit: options.maximumDepth), at: start, offset: offset, pointer: valuePointer)
                return nil
            }
            advance()
            let isObject = byte == UInt8(ascii: "{")
            var frame = Frame(isObject: isObject, location: start)
            // Room for a typical object's members at once: growing from empty reallocated (and
            // copied) each object's members two or three times.
            if isObject { frame.members.reserveCapacity(4) }
            stack.append(frame)
            return isObject ? .key(closingAllowed: true) : .value(closingAllowed: true)
        case UInt8(ascii: "]") where closingAllowed:
            advance()
            return close()
        case UInt8(ascii: "\""):
            guard let text = readString() else { return nil }
            return complete(JSONNode(.string(text), location: start))
        case UInt8(ascii: "'"):
            guard let text = readSingleQuoted() else { return nil }
            note(.singleQuoted(text), at: start, offset: offset, pointer: valuePointer)
            return complete(JSONNode(.string(text), location: start))
        default:
            guard Self.startsPlainWord(byte) else {
                fail(.syntax("expected a value, found " + describe(byte) + openedAt), at: start, offset: offset)
                return nil
            }
            let word = readPlainWord()
            guard let value = plainValue(word, at: start, offset: offset) else { return nil }
            return complete(JSONNode(value, location: start))
        }
    }

    /// Reads a key; nil when the reading ended.
    private mutating func readKey(closingAllowed: Bool) -> State? {
        let start = here, offset = index
        let key: String
        switch current {
        case UInt8(ascii: "}")? where closingAllowed:
            advance()
            return close()
        case UInt8(ascii: "\"")?:
            guard let text = readString() else { return nil }
            key = text
        case UInt8(ascii: "'")?:
            guard let text = readSingleQuoted() else { return nil }
            note(.unquotedKey(text), at: start, offset: offset, pointer: containerPointer)
            key = text
        case let byte? where Self.startsPlainWord(byte):
            key = readPlainWord()
            note(.unquotedKey(key), at: start, offset: offset, pointer: containerPointer)
        case let byte:
            let found = byte.map(describe) ?? "the end of the text"
            fail(.syntax("expected a key in double quotes, found \(found)" + openedAt), at: start, offset: offset)
            return nil
        }
        noteDuplicate(key, at: start, offset: offset)
        stack[stack.count - 1].key = key
        stack[stack.count - 1].keyLocation = start
        return .colon
    }

    /// After a value: a comma, the container's end, or (for the document) the end of the text.
    private mutating func readAfterValue() -> State? {
        let start = here, offset = index
        // Only the kind of the container is needed: copying its frame (`stack.last`) retained
        // and released its four buffers for every value of the document.
        guard !stack.isEmpty else {
            if current == nil { return nil }
            if current == UInt8(ascii: ":") {
                fail(.pairOutsideObject(inArray: false), at: start, offset: offset, pointer: valuePointer)
            } else {
                fail(.syntax("unexpected text after the document's value"), at: start, offset: offset)
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
                note(.trailingComma(closing: Character(Unicode.Scalar(closing))), at: start, offset: offset, pointer: containerPointer)
                advance()
                return close()
            }
            return isObject ? .key(closingAllowed: false) : .value(closingAllowed: false)
        case closing?:
            advance()
            return close()
        case UInt8(ascii: ":")? where !isObject:
            fail(.pairOutsideObject(inArray: true), at: start, offset: offset, pointer: valuePointer)
            return nil
        case let byte:
            let expected = isObject ? "',' or '}' after an object member" : "',' or ']' after an array element"
            let found = byte.map(describe) ?? "the end of the text"
            fail(.syntax("expected \(expected), found \(found)" + openedAt), at: start, offset: offset)
            return nil
        }
    }

    /// Ends the container on top of the stack (its closing bracket is consumed).
    private mutating func close() -> State {
        let frame = stack.removeLast()
        let node = frame.isObject ? JSONNode(.object(frame.members), location: frame.location)
                                  : JSONNode(.array(frame.elements), location: frame.location)
        return complete(node)
    }

    /// Puts a finished value where it belongs: the document, an array or the pending key.
    private mutating func complete(_ node: JSONNode) -> State {
        guard !stack.isEmpty else {
            root = node
            return .afterValue
        }
        let top = stack.count - 1
        if stack[top].isObject {
            let key = stack[top].key ?? ""
            stack[top].members.append(JSONNode.Member(key: key, keyLocation: stack[top].keyLocation, value: node))
            stack[top].key = nil
        } else {
            stack[top].elements.append(node)
        }
        return .afterValue
    }

    /// A duplicate is reported where it repeats; the reading goes on, without a document.
    private mutating func noteDuplicate(_ key: String, at location: SourceLocation, offset: Int) {
        let top = stack.count - 1
        var first: SourceLocation?
        if let index = stack[top].keyIndex {
            first = index[key]
        } else {
            // By index, comparing keys in place: `first(where:)` copied (and retained) each member.
            var position = 0
            while position < stack[top].members.count {
                if stack[top].members[position].hasKey(key) {
                    first = stack[top].members[position].keyLocation
                    break
                }
                position += 1
            }
            // Searching is quicker for the small objects graphs are made of; an index for large ones.
            if stack[top].members.count == 16 {
                stack[top].keyIndex = Dictionary(stack[top].members.map { ($0.key, $0.keyLocation ?? location) },
                                                 uniquingKeysWith: { first, _ in first })
            }
        }
        if let first {
            let base = containerPointer
            note(.duplicateKey(key: key, first: first), at: location, offset: offset, pointer: JSONPointer.appending(base, key))
            duplicated = true
        } else {
            stack[top].keyIndex?[key] = location
        }
    }

    /// ` (the array began at line 4, column 11)` for the container being read, or nothing.
    var openedAt: String {
        guard let frame = stack.last else { return "" }
        return " (the \(frame.isObject ? "object" : "array") began at line \(frame.location.line), column \(frame.location.column))"
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
