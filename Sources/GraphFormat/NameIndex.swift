/// Names (app ids; port names, each app's in a namespace of its own) to positions, looked up by
/// their UTF-8 bytes.
///
/// Resolving a connection's `"APP:PORT"` looked up two `String`s made from its halves in
/// dictionaries: making the strings and hashing them with the standard library's SipHash was
/// most of validating a large graph's connections. Here the halves are looked up where they
/// are, in the connection's text, hashed with FNV-1a (a few instructions a byte; names are short)
/// into an open-addressed table whose names live in one byte array. The names come from the
/// graph being loaded, so a file crafted to collide slows only its own load.
struct NameIndex: Sendable {
    private struct Entry {
        var hash: UInt64
        var namespace: Int
        var start: Int32
        var length: Int32
        var value: Int
    }

    /// Positions in `entries`, or -1; a power of two long, at most half full.
    private var slots: [Int32]
    private var entries: [Entry] = []
    private var bytes: [UInt8] = []

    init(capacity: Int = 8) {
        var size = 16
        while size < capacity * 2 { size *= 2 }
        slots = Array(repeating: -1, count: size)
        entries.reserveCapacity(capacity)
        bytes.reserveCapacity(capacity * 12)
    }

    /// The value of `name` (in `namespace`), or nil.
    subscript(name: String, in namespace: Int = 0) -> Int? {
        var name = name
        return name.withUTF8 { self[$0, in: namespace] }
    }

    /// The value of the name whose UTF-8 is `name` (in `namespace`), or nil.
    subscript(name: UnsafeBufferPointer<UInt8>, in namespace: Int = 0) -> Int? {
        let slot = find(name, namespace, hash: Self.hash(name, namespace))
        return slots[slot] >= 0 ? entries[Int(slots[slot])].value : nil
    }

    /// Records `value` for `name` (in `namespace`) unless the name has one; returns the value it keeps.
    @discardableResult
    mutating func insert(_ name: String, in namespace: Int = 0, _ value: Int) -> Int {
        var name = name
        return name.withUTF8 { insert($0, namespace, value) }
    }

    /// The same for a name given as bytes (a key that is not text: a connection's ends).
    @discardableResult
    mutating func insert(_ name: UnsafeBufferPointer<UInt8>, in namespace: Int = 0, _ value: Int) -> Int {
        insert(name, namespace, value)
    }

    private mutating func insert(_ name: UnsafeBufferPointer<UInt8>, _ namespace: Int, _ value: Int) -> Int {
        let hash = Self.hash(name, namespace)
        let slot = find(name, namespace, hash: hash)
        if slots[slot] >= 0 { return entries[Int(slots[slot])].value }
        slots[slot] = Int32(entries.count)
        entries.append(Entry(hash: hash, namespace: namespace, start: Int32(bytes.count), length: Int32(name.count),
                             value: value))
        bytes.append(contentsOf: name)
        if entries.count * 2 > slots.count { grow() }
        return value
    }

    /// The slot holding `name`, or the empty slot where it would go.
    private func find(_ name: UnsafeBufferPointer<UInt8>, _ namespace: Int, hash: UInt64) -> Int {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let position = slots[slot]
            if position < 0 { return slot }
            let entry = entries[Int(position)]
            if entry.hash == hash, entry.namespace == namespace, Int(entry.length) == name.count, equals(entry, name) {
                return slot
            }
            slot = (slot + 1) & mask
        }
    }

    private func equals(_ entry: Entry, _ name: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.withUnsafeBufferPointer { all in
            let start = Int(entry.start)
            var position = 0
            while position < name.count {
                if all[start + position] != name[position] { return false }
                position += 1
            }
            return true
        }
    }

    private mutating func grow() {
        slots = Array(repeating: -1, count: slots.count * 2)
        let mask = slots.count - 1
        for (position, entry) in entries.enumerated() {
            var slot = Int(truncatingIfNeeded: entry.hash) & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(position)
        }
    }

    /// FNV-1a from a basis that the namespace changes, its bits then mixed (murmur3's
    /// finalizer) so that the low bits the table uses depend on every byte.
    @inline(__always)
    private static func hash(_ name: UnsafeBufferPointer<UInt8>, _ namespace: Int) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ (UInt64(truncatingIfNeeded: namespace) &* 0x9E37_79B9_7F4A_7C15)
        for byte in name { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        hash ^= hash >> 33
        hash = hash &* 0xFF51_AFD7_ED55_8CCD
        hash ^= hash >> 33
        return hash
    }
}
