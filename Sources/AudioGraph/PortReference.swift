/// `APP:PORT` as written in a connection, split at its colon.
struct PortReference {
    let app: String
    let port: String

    /// Nil unless `text` has exactly one colon with something on both sides.
    init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        app = String(parts[0])
        port = String(parts[1])
    }

    /// Whether `text` is a valid app or port id: `[A-Za-z0-9_-]+`, which keeps JACK names
    /// unambiguous.
    static func isValidId(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-"
        }
    }
}
