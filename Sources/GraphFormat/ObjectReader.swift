import LocatedJSON
import Suggestions

/// Typed access to one JSON object's members, reporting wrong types and missing keys.
///
/// Created once per object: it reports unknown keys (with a did-you-mean) as it is made, so that
/// every key is checked whether or not a getter asks for it.
struct ObjectReader {
    private let object: JSONNode
    /// The object's members by key, sorted in one pass that also finds the unknown keys:
    /// graph objects have a handful of keys, and a dictionary per object was a tenth of loading
    /// a large graph, looking each key up in place most of the rest.
    private let members: KeyedMembers
    private let allowed: JSONKeySet
    /// The object's JSON pointer, made when a report (or a caller) asks.
    private let place: ElementPlace
    var pointer: String { place.pointer }

    /// `object` must be an object (callers report any other type in their own words).
    init(_ object: JSONNode, pointer: String, allowed: JSONKeySet, sink: inout DiagnosticSink) {
        self.init(object, at: .written(pointer), allowed: allowed, sink: &sink)
    }

    init(_ object: JSONNode, at place: ElementPlace, allowed: JSONKeySet, sink: inout DiagnosticSink) {
        members = KeyedMembers(object, by: allowed)
        for key in members.unknown {
            let name = key.string ?? ""
            let hint = Suggestion.hint(for: name, in: allowed.names)
                ?? "allowed keys: " + allowed.names.joined(separator: ", ")
            sink.error(.unknownKey, at: JSONPointer.appending(place.pointer, name), atKey: true,
                       "unknown key \(JSONText.quoted(name))", hint: hint)
        }
        self.object = object
        self.allowed = allowed
        self.place = place
    }

    init(_ object: JSONNode, pointer: String, allowed: [String], sink: inout DiagnosticSink) {
        self.init(object, pointer: pointer, allowed: JSONKeySet(allowed), sink: &sink)
    }

    /// A key outside the allowed set was reported as unknown, but is still there to read.
    func member(_ key: String) -> JSONNode? {
        guard let position = allowed.position(of: key) else { return object.member(key) }
        return members.value(at: position)
    }

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
        guard let value = node.bool else {
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
        arrayNode(key, &sink, required: required)?.elements
    }

    /// The array itself, for reading its `items` in place (a graph's apps and connections).
    func arrayNode(_ key: String, _ sink: inout DiagnosticSink, required: Bool = false) -> JSONNode? {
        guard let node = member(key) else {
            if required { missing(key, &sink) }
            return nil
        }
        guard node.isArray else {
            wrongType(key, expected: "an array", node, &sink)
            return nil
        }
        return node
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
