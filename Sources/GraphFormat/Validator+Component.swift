import AudioGraph
import LocatedJSON
import NodeKit
import Suggestions

extension Validator {
    /// The Inter-App Audio component an app publishes: its `component`, else its node type's; nil
    /// when it has none or the written one is wrong (reported).
    ///
    /// A node app must have one, the graph's may not change the type's component type, and the
    /// component type must fit the app's ports (Inter-App Audio's rules: an effect has an input).
    mutating func component(of app: AppDescription, id: String?, role: AppRole, type: NodeType?,
                            layout: NodeLayout?) -> ComponentDescription? {
        var pointer: String { app.pointer + "/component" }
        // A `component` of the wrong type was reported while reading; it still counts as written.
        let written = app.component != nil || app.mistyped.contains("component")
        var component: ComponentDescription?
        if written {
            guard let parsed = writtenComponent(of: app, id: id) else { return nil }
            if let typeComponent = type?.component, let type, typeComponent.type != parsed.type {
                sink.error(.componentMismatch, at: pointer + "/type",
                           "component type \(JSONText.quoted(parsed.type.rawValue)) differs from \(JSONText.quoted(typeComponent.type.rawValue)), which node type \(JSONText.quoted(type.id)) publishes",
                           hint: "write \"type\": \(JSONText.quoted(typeComponent.type.rawValue)), or leave \"component\" out to publish the node type's own")
                return nil
            }
            component = parsed
        } else {
            component = type?.component
        }
        guard let type, let layout else { return component }
        guard let component else {
            if role == .node { reportMissingComponent(app, id: id, type: type, layout: layout) }
            return nil
        }
        guard let problem = InterAppAudioRules.mismatch(component.type, layout) else { return component }
        let fitting = Self.fittingType(layout)
        sink.error(.componentMismatch, at: written ? pointer + "/type" : app.pointer + "/plugin",
                   "component type \(JSONText.quoted(component.type.rawValue)) needs \(Self.needs(component.type, layout)), but node type \(JSONText.quoted(type.id)) \(problem)",
                   hint: fitting.map { "the ports of \(JSONText.quoted(type.id)) fit \"type\": \(JSONText.quoted($0.rawValue))" }
                       ?? "choose a node type with an audio output")
        return nil
    }

    /// The `component` object as written, or nil after reporting what is wrong with it.
    private mutating func writtenComponent(of app: AppDescription, id: String?) -> ComponentDescription? {
        let pointer = app.pointer + "/component"
        guard let node = app.component else { return nil }
        guard node.isObject else {
            sink.error(.wrongType, at: pointer, "\"component\" must be an object, not \(node.typeName)")
            return nil
        }
        let object = ObjectReader(node, pointer: pointer, allowed: DescriptionReader.Keys.component,
                                  sink: &sink)
        let type = object.string("type", &sink, required: true).flatMap { componentType($0, at: pointer + "/type") }
        let subtype = object.string("subtype", &sink, required: true).flatMap { code($0, "subtype", at: pointer) }
        let manufacturer = object.string("manufacturer", &sink, required: true)
            .flatMap { code($0, "manufacturer", at: pointer) }
        let name = object.string("name", &sink)
        let version = object.number("version", &sink).flatMap { self.version($0, at: pointer + "/version") }
        guard let type, let subtype, let manufacturer,
              name != nil || object.member("name") == nil,
              version != nil || object.member("version") == nil else { return nil }
        return ComponentDescription(type: type, subtype: subtype, manufacturer: manufacturer,
                                    name: name ?? app.displayName ?? app.name ?? id ?? "", version: version ?? 1)
    }

    /// A component type by name (`effect`) or by Apple's code (`aurx`).
    private mutating func componentType(_ text: String, at pointer: String) -> ComponentDescription.ComponentType? {
        if let type = ComponentDescription.ComponentType(rawValue: text) ?? .init(code: text) { return type }
        let types = ComponentDescription.ComponentType.allCases
        sink.error(.invalidValue, at: pointer, "unknown component type \(JSONText.quoted(text))",
                   hint: Suggestion.hint(for: text, in: types.map(\.rawValue) + types.map(\.code))
                       ?? "types: " + types.map { "\($0.rawValue) (\($0.code))" }.joined(separator: ", "))
        return nil
    }

    /// A four-character code: exactly four printable ASCII characters, as Apple's `OSType` holds.
    private mutating func code(_ text: String, _ key: String, at pointer: String) -> String? {
        let scalars = text.unicodeScalars
        if scalars.count == 4, scalars.allSatisfy({ (0x20...0x7E).contains($0.value) }) { return text }
        sink.error(.invalidValue, at: JSONPointer.appending(pointer, key),
                   "\(JSONText.quoted(key)) \(JSONText.quoted(text)) must be exactly four ASCII characters",
                   hint: "a four-character code such as \"poly\" or \"dly \" (spaces count)")
        return nil
    }

    /// A component version: an integer that fits Apple's 32-bit version field.
    private mutating func version(_ number: Double, at pointer: String) -> Int? {
        if number.rounded() == number, number >= 0, number <= Double(UInt32.max) { return Int(number) }
        sink.error(.invalidValue, at: pointer, "\"version\" is \(Self.text(number)); a version is an integer ≥ 0",
                   hint: "write an integer such as 1")
        return nil
    }

    private mutating func reportMissingComponent(_ app: AppDescription, id: String?, type: NodeType, layout: NodeLayout) {
        let name = id.map { "node app \(JSONText.quoted($0))" } ?? "this node app"
        let fitting = Self.fittingType(layout) ?? .generator
        let subtype = Self.suggestedCode(from: id ?? type.id)
        let example = "\"component\": { \"type\": \(JSONText.quoted(fitting.rawValue)), \"subtype\": \(JSONText.quoted(subtype)), \"manufacturer\": \"demo\" }"
        sink.error(.missingComponent, at: app.pointer + "/role",
                   "\(name) has no component, and node type \(JSONText.quoted(type.id)) publishes none",
                   hint: "add \(example) (subtype and manufacturer: four ASCII characters), or make it \"role\": \"app\"")
    }

    /// The first component type whose rules `layout` meets, if any does.
    static func fittingType(_ layout: NodeLayout) -> ComponentDescription.ComponentType? {
        ComponentDescription.ComponentType.allCases.first { InterAppAudioRules.mismatch($0, layout) == nil }
    }

    /// What `type` needs that `layout` lacks or has too much of, the counterpart of
    /// ``InterAppAudioRules/mismatch(_:_:)``'s list (`an audio input and no MIDI input`).
    static func needs(_ type: ComponentDescription.ComponentType, _ layout: NodeLayout) -> String {
        var needs: [String] = []
        if layout.outputs.isEmpty { needs.append("an audio output") }
        if type.takesAudioInput && layout.inputs.isEmpty { needs.append("an audio input") }
        if !type.takesAudioInput && !layout.inputs.isEmpty { needs.append("no audio input") }
        if type.takesMIDI && layout.midiInputs.isEmpty { needs.append("a MIDI input") }
        if !type.takesMIDI && !layout.midiInputs.isEmpty { needs.append("no MIDI input") }
        return needs.joined(separator: " and ")
    }

    /// Four lowercase letters or digits from `text`'s last segment (`synth` → `synt`), padded with `x`.
    static func suggestedCode(from text: String) -> String {
        let last = text.split(separator: ":").last.map(String.init) ?? text
        let characters = last.lowercased().unicodeScalars.filter { ("a"..."z").contains($0) || ("0"..."9").contains($0) }
        return String(String.UnicodeScalarView(characters.prefix(4))) + String(repeating: "x", count: max(0, 4 - characters.count))
    }
}
