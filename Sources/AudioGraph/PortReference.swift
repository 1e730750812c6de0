/// `APP:PORT` as written in a connection, split at its colon.
package struct PortReference {
    package let app: String
    package let port: String

    /// Nil unless `text` has exactly one colon with something on both sides.
    package init?(_ text: String) {
        // By bytes: every connection of a graph goes through here twice.
        let utf8 = text.utf8
        guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")), colon != utf8.startIndex else { return nil }
        let after = utf8.index(after: colon)
        guard after != utf8.endIndex, !utf8[after...].contains(UInt8(ascii: ":")) else { return nil }
        app = String(Substring(utf8[..<colon]))
        port = String(Substring(utf8[after...]))
    }

    /// Whether `text` is a valid app or port id: `[A-Za-z0-9_-]+`, which keeps JACK names
    /// unambiguous.
    package static func isValidId(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-"
        }
    }
}
