/// A JSON document as one flat array of tokens over its text: what ``JSONReader`` writes and
/// what every ``JSONNode`` reads.
///
/// A tree of values made a heap array for every object and array, a `String` for every string,
/// and retained and released them all whenever a reader copied a node; reading a 1 MB graph
/// was mostly that. Here a value is a token: strings stay bytes of the text until a
/// reader asks for one, a container records where its last descendant ends (so a reader skips
/// it in one step), and lines and columns are worked out from byte offsets only when a
/// diagnostic needs them. A token is 16 bytes: a 1 MB graph has about 300,000 of them. Immutable once made, so nodes share it freely across threads.
public final class JSONTape: Sendable {
    enum Kind: UInt8 {
        case null, falseValue, trueValue, number, string, array, object
    }

    /// Where a string's or number's text is.
    enum TextPlace: UInt8 {
        /// In `bytes`, after the opening quote at `offset`.
        case quoted
        /// In `bytes` from `offset` (a number, or a word JSON does not have).
        case bare
        /// `strings[payload]`: a string with escapes or in single quotes, or any string of a
        /// tape built from values.
        case side
    }

    struct Token {
        var kind: Kind
        var place: TextPlace
        /// Where the value (a string's opening quote, a container's bracket) begins in `bytes`.
        var offset: Int32
        /// The text's length in bytes; a container's count of members or elements.
        var length: Int32
        /// A container's end (the index after its last descendant); a number's index in
        /// `numbers`; a side string's in `strings`.
        var payload: Int32

        var sideText: Bool { place == .side }
        var textStart: Int { Int(offset) + (place == .quoted ? 1 : 0) }
        var textLength: Int { Int(length) }
        var end: Int { Int(payload) }
        var count: Int { Int(length) }

        /// The index after this token's value and its descendants, this token being at `index`:
        /// its next sibling, if it has one. (The reader asks it of containers already closed.)
        @inline(__always)
        func indexAfterValue(at index: Int) -> Int {
            kind == .array || kind == .object ? end : index + 1
        }

        /// A string's or number's text: a side string, or bytes of the document.
        func text(strings: [String], bytes: UnsafeBufferPointer<UInt8>) -> String {
            if sideText { return strings[Int(payload)] }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[textStart..<textStart + textLength]), as: UTF8.self)
        }
    }

    /// The document's UTF-8 (empty for a tape built from values).
    let bytes: [UInt8]
    /// In document order; an object's member is its key (a string token) then its value.
    let tokens: [Token]
    let strings: [String]
    let numbers: [Double]
    /// Where each line begins in `bytes`: the first after a byte-order mark, the rest after a line
    /// break (LF, CR or CRLF).
    let lineStarts: [Int32]
    /// Each token's location, for a tape built from values (line 0: none); empty for one read.
    let locations: [SourceLocation]

    init(bytes: [UInt8], tokens: [Token], strings: [String], numbers: [Double], lineStarts: [Int32],
         locations: [SourceLocation] = []) {
        self.bytes = bytes
        self.tokens = tokens
        self.strings = strings
        self.numbers = numbers
        self.lineStarts = lineStarts
        self.locations = locations
    }

    /// The index after `index`'s value and its descendants: its next sibling, if it has one.
    @inline(__always)
    func next(after index: Int) -> Int {
        tokens[index].indexAfterValue(at: index)
    }

    func location(of index: Int) -> SourceLocation? {
        guard locations.isEmpty else {
            let location = locations[index]
            return location.line == 0 ? nil : location
        }
        return Self.location(atOffset: Int(tokens[index].offset), lineStarts: lineStarts, in: bytes)
    }

    /// The line (by search among the line starts) and the column (counting the scalars between
    /// the line's start and `offset`) of the byte at `offset`.
    static func location(atOffset offset: Int, lineStarts: [Int32], in bytes: some RandomAccessCollection<UInt8>) -> SourceLocation {
        var low = 0, high = lineStarts.count
        while low < high {
            let middle = (low + high) / 2
            if Int(lineStarts[middle]) <= offset { low = middle + 1 } else { high = middle }
        }
        let line = max(low, 1)
        var column = 1
        var position = lineStarts.isEmpty ? 0 : Int(lineStarts[line - 1])
        while position < offset {
            if bytes[bytes.index(bytes.startIndex, offsetBy: position)] & 0xC0 != 0x80 { column += 1 }
            position += 1
        }
        return SourceLocation(line: line, column: column)
    }

    /// Calls `body` with a string's or number's UTF-8, without making a `String`.
    @inline(__always)
    func withText<Result>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        let token = tokens[index]
        if token.sideText {
            var text = strings[Int(token.payload)]
            return text.withUTF8(body)
        }
        return bytes.withUnsafeBufferPointer { all in
            body(UnsafeBufferPointer(rebasing: all[token.textStart..<token.textStart + token.textLength]))
        }
    }

    func text(_ index: Int) -> String {
        bytes.withUnsafeBufferPointer { tokens[index].text(strings: strings, bytes: $0) }
    }

    /// Whether the string at `index` is `text`, compared as bytes.
    func text(_ index: Int, equals text: String) -> Bool {
        guard tokens[index].sideText || tokens[index].textLength == text.utf8.count else { return false }
        var text = text
        return text.withUTF8 { expected in
            withText(index) { written in
                guard written.count == expected.count else { return false }
                for position in 0..<expected.count where written[position] != expected[position] { return false }
                return true
            }
        }
    }

    /// The member of the object at `index` whose key is `key`, as the index of its value.
    func member(of index: Int, _ key: String) -> Int? {
        var position = index + 1
        let end = tokens[index].end
        while position < end {
            if text(position, equals: key) { return position + 1 }
            position = next(after: position + 1)
        }
        return nil
    }

    /// The value at `index`, its containers' contents made as arrays of nodes.
    func value(at index: Int) -> JSONNode.Value {
        let token = tokens[index]
        switch token.kind {
        case .null: return .null
        case .falseValue: return .bool(false)
        case .trueValue: return .bool(true)
        case .number: return .number(numbers[Int(token.payload)], text: text(index))
        case .string: return .string(text(index))
        case .array:
            var elements: [JSONNode] = []
            elements.reserveCapacity(token.count)
            var position = index + 1
            while position < token.end {
                elements.append(JSONNode(tape: self, index: position))
                position = next(after: position)
            }
            return .array(elements)
        case .object:
            var members: [JSONNode.Member] = []
            members.reserveCapacity(token.count)
            var position = index + 1
            while position < token.end {
                members.append(JSONNode.Member(key: text(position), keyToken: position, in: self,
                                               value: JSONNode(tape: self, index: position + 1)))
                position = next(after: position + 1)
            }
            return .object(members)
        }
    }
}

extension JSONTape {
    /// Writes a tape from values (nodes made in code, or from YAML): every string a side string,
    /// every location given.
    struct Builder {
        var tokens: [Token] = []
        var strings: [String] = []
        var numbers: [Double] = []
        var locations: [SourceLocation] = []

        mutating func append(_ value: JSONNode.Value, at location: SourceLocation?) {
            let index = tokens.count
            var token = Token(kind: .null, place: .bare, offset: 0, length: 0, payload: 0)
            tokens.append(token)
            locations.append(location ?? SourceLocation(line: 0, column: 0))
            switch value {
            case .null: break
            case .bool(let flag): token.kind = flag ? .trueValue : .falseValue
            case .number(let number, let text):
                token.kind = .number
                side(text, &token, number: number)
            case .string(let text):
                token.kind = .string
                side(text, &token)
            case .array(let elements):
                token.kind = .array
                for element in elements { append(element.value, at: element.location) }
                token.payload = Int32(tokens.count)
                token.length = Int32(elements.count)
            case .object(let members):
                token.kind = .object
                for member in members {
                    append(.string(member.key), at: member.keyLocation)
                    append(member.value.value, at: member.value.location)
                }
                token.payload = Int32(tokens.count)
                token.length = Int32(members.count)
            }
            tokens[index] = token
        }

        /// A side string; `numbers` runs beside `strings` here, so that one index finds both a
        /// number's text and its value.
        private mutating func side(_ text: String, _ token: inout Token, number: Double = 0) {
            token.place = .side
            token.payload = Int32(strings.count)
            token.length = Int32(text.utf8.count)
            strings.append(text)
            numbers.append(number)
        }

        func finish() -> JSONTape {
            JSONTape(bytes: [], tokens: tokens, strings: strings, numbers: numbers, lineStarts: [], locations: locations)
        }
    }
}
