/// The keys an object may have, matched against a document's keys by their bytes.
///
/// Readers of large documents ask each object for several keys and check it has no others;
/// comparing `String`s (or bytes, key by key) for that was most of reading a graph's
/// connections. A key here is its length and first 16 bytes as two integers, so telling one
/// key from another is three comparisons (and, past 16 bytes, a look at the rest). A class, so
/// that the readers holding one copy a reference, not its arrays.
public final class JSONKeySet: Sendable {
    public let names: [String]
    private let packed: [Packed]
    private let utf8: [[UInt8]]

    struct Packed: Equatable {
        var low: UInt64
        var high: UInt64
        var length: Int
    }

    public init(_ names: [String]) {
        self.names = names
        utf8 = names.map { Array($0.utf8) }
        packed = utf8.map { bytes in bytes.withUnsafeBufferPointer { Self.pack($0, readable: $0.count) } }
    }

    /// `bytes` packed; `readable` is how many bytes from `bytes.baseAddress` may be read, so that
    /// a key with 16 readable bytes behind it is loaded as two words instead of byte by byte.
    @inline(__always)
    static func pack(_ bytes: UnsafeBufferPointer<UInt8>, readable: Int) -> Packed {
        let count = bytes.count
        guard let base = bytes.baseAddress else { return Packed(low: 0, high: 0, length: 0) }
        var low: UInt64 = 0, high: UInt64 = 0
        if readable >= 16 {
            // Little-endian words, the bytes past the key masked off.
            let raw = UnsafeRawPointer(base)
            low = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
            high = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            if count < 8 {
                low &= (1 << (8 * UInt64(count))) &- 1
                high = 0
            } else if count < 16 {
                high &= (1 << (8 * UInt64(count - 8))) &- 1
            }
        } else {
            var position = 0
            while position < min(count, 16) {
                if position < 8 {
                    low |= UInt64(base[position]) << (8 * UInt64(position))
                } else {
                    high |= UInt64(base[position]) << (8 * UInt64(position - 8))
                }
                position += 1
            }
        }
        return Packed(low: low, high: high, length: count)
    }

    /// The position in `names` of the key whose UTF-8 is `bytes`, packed as `key`.
    @inline(__always)
    func position(of key: Packed, bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var position = 0
        while position < packed.count {
            if packed[position] == key, key.length <= 16 || utf8[position].elementsEqual(bytes) { return position }
            position += 1
        }
        return nil
    }

    /// The position in `names` of `name`. Names differ mostly in length, told apart inline;
    /// equal short names are equal `String`s bit for bit, which `==` sees first.
    public func position(of name: String) -> Int? {
        let length = name.utf8.count
        var position = 0
        while position < names.count {
            if packed[position].length == length, names[position] == name { return position }
            position += 1
        }
        return nil
    }
}

/// An object's members sorted by a ``JSONKeySet``: the value of each key the set names, and
/// the keys it does not name, found in one pass over the object without allocating (for sets
/// of up to 16 keys).
public struct KeyedMembers: Sendable {
    /// By position in the key set: the value's token, or -1.
    private var values = InlineArray<16, Int32>(repeating: -1)
    /// The same past the 16th key (sets built from a document's own keys can be long).
    private var moreValues: [Int32] = []
    /// The keys the set does not name, in document order (usually none).
    public private(set) var unknown: [JSONNode] = []
    private let tape: JSONTape?

    /// `object`'s members; anything but an object has none.
    public init(_ object: JSONNode, by keys: JSONKeySet) {
        if keys.names.count > 16 { moreValues = Array(repeating: -1, count: keys.names.count - 16) }
        guard object.isObject else {
            tape = nil
            return
        }
        let tape = object.tape
        self.tape = tape
        var position = object.index + 1
        let end = tape.tokens[object.index].end
        while position < end {
            if let found = tape.keyPosition(position, in: keys) {
                if found < 16 { values[found] = Int32(position + 1) } else { moreValues[found - 16] = Int32(position + 1) }
            } else {
                unknown.append(JSONNode(tape: tape, index: position))
            }
            position = tape.next(after: position + 1)
        }
    }

    /// The value of the key at `position` in the key set, if the object has it.
    public func value(at position: Int) -> JSONNode? {
        guard let tape else { return nil }
        let token = position < 16 ? values[position] : moreValues[position - 16]
        return token >= 0 ? JSONNode(tape: tape, index: Int(token)) : nil
    }
}

extension JSONTape {
    /// The position in `keys` of the key token at `index`.
    @inline(__always)
    func keyPosition(_ index: Int, in keys: JSONKeySet) -> Int? {
        let token = tokens[index]
        guard !token.sideText else {
            var text = strings[Int(token.payload)]
            return text.withUTF8 { keys.position(of: JSONKeySet.pack($0, readable: $0.count), bytes: $0) }
        }
        return bytes.withUnsafeBufferPointer { all in
            let start = token.textStart
            let key = UnsafeBufferPointer(rebasing: all[start..<start + token.textLength])
            return keys.position(of: JSONKeySet.pack(key, readable: all.count - start), bytes: key)
        }
    }
}
