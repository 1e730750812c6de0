/// Where each value and key of a graph file was written, by JSON pointer.
///
/// Descriptions keep plain values; diagnostics find their line and column here, so that a
/// description built by a command (not from a file) still validates, just without locations.
public struct SourceMap: Sendable, Hashable {
    public private(set) var values: [String: SourceLocation] = [:]
    public private(set) var keys: [String: SourceLocation] = [:]

    public init() {}

    /// The locations of every value and key under `root`, whose pointer is the empty string.
    init(root: JSONNode) {
        record(tree: root, pointer: "")
    }

    private mutating func record(tree node: JSONNode, pointer: String) {
        record(node, at: pointer)
        switch node.value {
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                record(tree: element, pointer: JSONPointer.appending(pointer, index))
            }
        case .object(let members):
            for member in members {
                let memberPointer = JSONPointer.appending(pointer, member.key)
                recordKey(member.keyLocation, at: memberPointer)
                record(tree: member.value, pointer: memberPointer)
            }
        default:
            break
        }
    }

    mutating func record(_ node: JSONNode, at pointer: String) {
        if let location = node.location { values[pointer] = location }
    }

    mutating func recordKey(_ location: SourceLocation?, at pointer: String) {
        if let location { keys[pointer] = location }
    }

    /// The location of the value at `pointer`, or of its nearest recorded ancestor (so that a
    /// missing key is reported at the object that lacks it).
    public func location(of pointer: String) -> SourceLocation? {
        var current = pointer
        while true {
            if let location = values[current] { return location }
            guard let slash = current.lastIndex(of: "/") else { return nil }
            current = String(current[..<slash])
        }
    }

    /// The location of the key that introduces `pointer`, falling back to its value's location.
    public func keyLocation(of pointer: String) -> SourceLocation? {
        keys[pointer] ?? location(of: pointer)
    }
}

/// RFC 6901 pointers.
enum JSONPointer {
    /// `base` extended by one reference token, with `~` and `/` escaped.
    static func appending(_ base: String, _ token: String) -> String {
        // Keys almost never hold '~' or '/'; `replacing` searched every key twice and was a
        // quarter of loading a large graph.
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else {
            return base + "/" + token
        }
        return base + "/" + token.replacing("~", with: "~0").replacing("/", with: "~1")
    }

    static func appending(_ base: String, _ index: Int) -> String {
        base + "/\(index)"
    }
}
