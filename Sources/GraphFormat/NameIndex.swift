/// Names (app ids; port names, each app's in a namespace of its own) to positions, looked up by
/// their UTF-8 bytes.
///
/// Resolving a connection's `"APP:PORT"` looked up two `String`s made from its halves in
/// dictionaries: making the strings and hashing them with the standard library's SipHash was
/// most of validating a large graph's connections. Here the halves are looked up where they
/// are, in the connection's text, hashed with FNV-1a (a few instructions a byte; names are short)
/// into an open-addressed table whose names live in one byte buffer. The names come from the
/// graph being loaded, so a file crafted to collide slows only its own load.
///
/// The table lives in unsafe buffers owned by one object (copied on write): read through
/// arrays, every lookup retained and released three array buffers, which cost more than the
/// lookup itself.
struct NameIndex {
    fileprivate struct Entry {
        var hash: UInt64
        var namespace: Int
        var start: Int
        var length: Int
        var value: Int
    }

    private var storage: Storage

    init(capacity: Int = 8) {
        storage = Storage(capacity: capacity)
    }

    /// The value of `name` (in `namespace`), or nil.
    subscript(name: String, in namespace: Int = 0) -> Int? {
        var name = name
        return name.withUTF8 { self[$0, in: namespace] }
    }

    /// The value of the name whose UTF-8 is `name` (in `namespace`), or nil.
    subscript(name: UnsafeBufferPointer<UInt8>, in namespace: Int = 0) -> Int? {
        let slot = storage.find(name, namespace, hash: Storage.hash(name, namespace))
        let position = storage.slots[slot]
        return position >= 0 ? storage.entries[Int(position)].value : nil
    }

    /// Records `value` for `name` (in `namespace`) unless the name has one; returns the value it keeps.
    @discardableResult
    mutating func insert(_ name: String, in namespace: Int = 0, _ value: Int) -> Int {
        var name = name
        return name.withUTF8 { insert($0, in: namespace, value) }
    }

    /// The same for a name given as bytes (a key that is not text: a connection's ends).
    @discardableResult
    mutating func insert(_ name: UnsafeBufferPointer<UInt8>, in namespace: Int = 0, _ value: Int) -> Int {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(copying: storage) }
        return storage.insert(name, namespace, value)
    }
}

extension NameIndex {
    private final class Storage {
        /// Positions in `entries`, or -1; a power of two long, at most half full.
        var slots: UnsafeMutableBufferPointer<Int32>
        var entries: UnsafeMutablePointer<Entry>
        var entryCount = 0, entryCapacity: Int
        var bytes: UnsafeMutablePointer<UInt8>
        var byteCount = 0, byteCapacity: Int

        init(capacity: Int) {
            var size = 16
            while size < capacity * 2 { size *= 2 }
            slots = .allocate(capacity: size)
            slots.initialize(repeating: -1)
            entryCapacity = max(capacity, 8)
            entries = .allocate(capacity: entryCapacity)
            byteCapacity = max(capacity * 12, 64)
            bytes = .allocate(capacity: byteCapacity)
        }

        deinit {
            slots.deallocate()
            entries.deinitialize(count: entryCount)
            entries.deallocate()
            bytes.deallocate()
        }

        /// A copy of `other`, its buffers the same size.
        init(copying other: Storage) {
            slots = .allocate(capacity: other.slots.count)
            _ = slots.initialize(from: other.slots)
            entryCapacity = other.entryCapacity
            entries = .allocate(capacity: entryCapacity)
            entries.initialize(from: other.entries, count: other.entryCount)
            entryCount = other.entryCount
            byteCapacity = other.byteCapacity
            bytes = .allocate(capacity: byteCapacity)
            bytes.initialize(from: other.bytes, count: other.byteCount)
            byteCount = other.byteCount
        }

        /// The slot holding `name`, or the empty slot where it would go.
        @inline(__always)
        func find(_ name: UnsafeBufferPointer<UInt8>, _ namespace: Int, hash: UInt64) -> Int {
            let mask = slots.count - 1
            var slot = Int(truncatingIfNeeded: hash) & mask
            while true {
                let position = slots[slot]
                if position < 0 { return slot }
                let entry = entries[Int(position)]
                if entry.hash == hash, entry.namespace == namespace, entry.length == name.count, equals(entry, name) {
                    return slot
                }
                slot = (slot + 1) & mask
            }
        }

        @inline(__always)
        private func equals(_ entry: Entry, _ name: UnsafeBufferPointer<UInt8>) -> Bool {
            var position = 0
            while position < name.count {
                if bytes[entry.start + position] != name[position] { return false }
                position += 1
            }
            return true
        }

        func insert(_ name: UnsafeBufferPointer<UInt8>, _ namespace: Int, _ value: Int) -> Int {
            let hash = Self.hash(name, namespace)
            let slot = find(name, namespace, hash: hash)
            if slots[slot] >= 0 { return entries[Int(slots[slot])].value }
            if entryCount == entryCapacity {
                entries = Self.grown(entries, count: entryCount, to: entryCapacity * 2)
                entryCapacity *= 2
            }
            if byteCount + name.count > byteCapacity {
                let capacity = max(byteCapacity * 2, byteCount + name.count)
                bytes = Self.grown(bytes, count: byteCount, to: capacity)
                byteCapacity = capacity
            }
            slots[slot] = Int32(entryCount)
            (entries + entryCount).initialize(to: Entry(hash: hash, namespace: namespace, start: byteCount,
                                                        length: name.count, value: value))
            entryCount += 1
            if let base = name.baseAddress { (bytes + byteCount).update(from: base, count: name.count) }
            byteCount += name.count
            if entryCount * 2 > slots.count { rehash() }
            return value
        }

        private static func grown<Element>(_ old: UnsafeMutablePointer<Element>, count: Int,
                                           to capacity: Int) -> UnsafeMutablePointer<Element> {
            let new = UnsafeMutablePointer<Element>.allocate(capacity: capacity)
            new.moveInitialize(from: old, count: count)
            old.deallocate()
            return new
        }

        private func rehash() {
            slots.deallocate()
            slots = .allocate(capacity: slots.count * 2)
            slots.initialize(repeating: -1)
            let mask = slots.count - 1
            for position in 0..<entryCount {
                var slot = Int(truncatingIfNeeded: entries[position].hash) & mask
                while slots[slot] >= 0 { slot = (slot + 1) & mask }
                slots[slot] = Int32(position)
            }
        }

        /// FNV-1a from a basis that the namespace changes, its bits then mixed (murmur3's
        /// finalizer) so that the low bits the table uses depend on every byte.
        @inline(__always)
        static func hash(_ name: UnsafeBufferPointer<UInt8>, _ namespace: Int) -> UInt64 {
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ (UInt64(truncatingIfNeeded: namespace) &* 0x9E37_79B9_7F4A_7C15)
            for byte in name { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
            hash ^= hash >> 33
            hash = hash &* 0xFF51_AFD7_ED55_8CCD
            hash ^= hash >> 33
            return hash
        }
    }
}
