/// `APP:PORT` as written in a connection, split at its colon.
package struct PortReference {
    package let app: String
    package let port: String

    /// Nil unless `text` has exactly one colon with something on both sides.
    package init?(_ text: String) {
        // By bytes, in the string's own storage: every connection of a graph goes through here
        // twice, and the generic UTF-8 view walks cost more than the rest of resolving a port.
        var text = text
        let parts = text.withUTF8 { bytes -> (String, String)? in
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon != 0, colon + 1 < bytes.count,
                  !bytes[(colon + 1)...].contains(UInt8(ascii: ":")) else { return nil }
            return (String(decoding: UnsafeBufferPointer(rebasing: bytes[..<colon]), as: UTF8.self),
                    String(decoding: UnsafeBufferPointer(rebasing: bytes[(colon + 1)...]), as: UTF8.self))
        }
        guard let parts else { return nil }
        (app, port) = parts
    }

    /// Whether `text` is a valid app or port id: `[A-Za-z0-9_-]+`, which keeps JACK names
    /// unambiguous.
    package static func isValidId(_ text: String) -> Bool {
        // By bytes: every allowed character is ASCII, and a byte of any other is outside the ranges.
        !text.isEmpty && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"): true
            default: false
            }
        }
    }
}
