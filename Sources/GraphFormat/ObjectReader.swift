import AudioGraph
import LocatedJSON

/// Typed access to one JSON object's members, reporting wrong types and missing keys.
///
/// Created once per object: it reports unknown keys (with a did-you-mean) as it is made, so that
/// every key is checked whether or not a getter asks for it.
struct ObjectReader {
    /// Searched, not indexed: graph objects have a handful of keys, and a dictionary per object
    /// was a tenth of loading a large graph. Keys are unique (the reader refuses duplicates).
    private let members: [JSONNode.Member]
    let pointer: String

    init(members: [JSONNode.Member], pointer: String, allowed: [String], sink: inout DiagnosticSink) {
        for member in members {
            guard !allowed.contains(member.key) else { continue }
            let memberPointer = JSONPointer.appending(pointer, member.key)
            let hint = Suggestion.hint(for: member.key, in: allowed)
                ?? "allowed keys: " + allowed.joined(separator: ", ")
            sink.error(.unknownKey, at: memberPointer, atKey: true, "unknown key \(JSONText.quoted(member.key))", hint: hint)
        }
        self.members = members
        self.pointer = pointer
    }

    func member(_ key: String) -> JSONNode? { members.first { $0.hasKey(key) }?.value }

    private func missing(_ key: String, _ sink: inout DiagnosticSink) {
        sink.error(.missingKey, at: JSONPointer.appending(pointer, key), "missing required key \"\(key)\"")
    }

    private func wrongType(_ key: String, expected: String, _ node: JSONNode, _ sink: inout DiagnosticSink) {
        sink.error(.wrongType, at: JSONPointer.appending(pointer, key),
                   "\"\(key)\" must be \(expected), not \(node.typeName)")
    }

    func string(_ key: String, _ sink: inout DiagnosticSink, required: Bool = false) -> String? {
        guard let node = member(key) else {
            if required { missing(key, &sink) }
            return nil
        }
        guard let text = node.string else {
            wrongType(key, expected: "a string", node, &sink)
            return nil
        }
        return text
    }

    func bool(_ key: String, _ sink: inout DiagnosticSink, required: Bool = false) -> Bool? {
        guard let node = member(key) else {
            if required { missing(key, &sink) }
            return nil
        }
        guard case .bool(let value) = node.value else {
            wrongType(key, expected: "true or false", node, &sink)
            return nil
        }
        return value
    }

    /// A number as written; whether it is in range is the caller's question.
    func number(_ key: String, _ sink: inout DiagnosticSink, required: Bool = false) -> Double? {
        guard let node = member(key) else {
            if required { missing(key, &sink) }
            return nil
        }
        guard let number = node.number else {
            wrongType(key, expected: "a number", node, &sink)
            return nil
        }
        return number
    }

    func array(_ key: String, _ sink: inout DiagnosticSink, required: Bool = false) -> [JSONNode]? {
        guard let node = member(key) else {
            if required { missing(key, &sink) }
            return nil
        }
        guard let elements = node.elements else {
            wrongType(key, expected: "an array", node, &sink)
            return nil
        }
        return elements
    }

    /// An array whose elements must all be strings.
    func strings(_ key: String, _ sink: inout DiagnosticSink) -> [String]? {
        guard let elements = array(key, &sink) else { return nil }
        var result: [String] = []
        for (index, element) in elements.enumerated() {
            if let text = element.string {
                result.append(text)
            } else {
                sink.error(.wrongType, at: JSONPointer.appending(JSONPointer.appending(pointer, key), index),
                           "\"\(key)\" must hold strings, not \(element.typeName)")
            }
        }
        return result
    }

    /// The raw node, if it passes `check` (a type test named `expected`).
    func node(_ key: String, of expected: String, _ sink: inout DiagnosticSink,
              check: (JSONNode) -> Bool) -> JSONNode? {
        guard let node = member(key) else { return nil }
        guard check(node) else {
            wrongType(key, expected: "an \(expected)", node, &sink)
            return nil
        }
        return node
    }
}
