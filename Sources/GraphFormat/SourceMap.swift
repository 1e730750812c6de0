import LocatedJSON

/// Where each value and key of a graph file was written, by JSON pointer.
///
/// Descriptions keep plain values; diagnostics find their line and column here, so that a
/// description built by a command (not from a file) still validates, just without locations.
/// It keeps the read document and walks it when a diagnostic asks, rather than indexing every
/// value up front: a file with no error (the common case) never pays for locations.
public struct SourceMap: Sendable, Hashable {
    private let root: JSONNode?

    public init() {
        root = nil
    }

    /// The locations of every value and key under `root`, whose pointer is the empty string.
    init(root: JSONNode) {
        self.root = root
    }

    /// Whether a value was written exactly at `pointer`.
    public func contains(_ pointer: String) -> Bool {
        let found = walk(pointer)
        return found?.complete == true
    }

    /// The location of the value at `pointer`, or of its nearest written ancestor (so that a
    /// missing key is reported at the object that lacks it).
    public func location(of pointer: String) -> SourceLocation? {
        walk(pointer)?.node.location
    }

    /// The location of the key that introduces `pointer`, falling back to its value's location.
    public func keyLocation(of pointer: String) -> SourceLocation? {
        guard let found = walk(pointer) else { return nil }
        return found.complete ? found.keyLocation ?? found.node.location : found.node.location
    }

    /// The deepest node on `pointer`'s path, whether it is the one named (`complete`), and the
    /// location of the key that introduced it.
    private func walk(_ pointer: String) -> (node: JSONNode, keyLocation: SourceLocation?, complete: Bool)? {
        guard var node = root else { return nil }
        var keyLocation: SourceLocation?
        guard !pointer.isEmpty else { return (node, nil, true) }
        // Token by token, without splitting: validation asks this for every app it checks.
        var rest = pointer.utf8.dropFirst()
        while true {
            let end = rest.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex
            let token = Substring(rest[rest.startIndex..<end])
            if node.isObject {
                let name = Self.unescaped(token)
                guard let (key, value) = node.entries.first(where: { $0.key.isString(name) }) else {
                    return (node, keyLocation, false)
                }
                node = value
                keyLocation = key.location
            } else if node.isArray {
                guard let index = Int(token), index >= 0, index < node.count,
                      let element = node.items.dropFirst(index).first(where: { _ in true }) else {
                    return (node, keyLocation, false)
                }
                node = element
                keyLocation = nil
            } else {
                return (node, keyLocation, false)
            }
            guard end < rest.endIndex else { break }
            rest = rest[rest.index(after: end)...]
        }
        return (node, keyLocation, true)
    }

    /// An RFC 6901 reference token as written in the file (`~1` is '/', `~0` is '~').
    private static func unescaped(_ token: Substring) -> String {
        guard token.utf8.contains(UInt8(ascii: "~")) else { return String(token) }
        return String(token).replacing("~1", with: "/").replacing("~0", with: "~")
    }
}
