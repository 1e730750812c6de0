import Foundation
import AudioSession
import NodeKit

/// A native plugin library's node types as a sandboxed describe child read them
/// (`iaa isolated-node --describe`, docs/isolation.md "The describe child"): everything
/// a ``NodeType`` needs, without the library's code in this process. Control side only.
///
/// A native descriptor's ports and parameters are static data, the same for every
/// configuration (``PluginLibrary/nodeType(_:id:)`` ignores the configuration), and native
/// types have no configuration values or saved state, so one description per library file serves
/// every app that names it.
public struct LibraryDescription: Sendable {
    /// The library's path, as resolved.
    public let path: String
    /// The file's identity when it was described.
    public let identity: LibraryFileIdentity
    /// The node types, checked again on this side, in the library's order.
    public let descriptors: [PluginNodeDescription]

    /// The node type of `descriptor`, named `id` in graphs. Its nodes run in an isolated child;
    /// making one in this process (an app the graph runs with `"isolation": "none"`) loads the
    /// library here only then, and only if it still offers what was described.
    public func nodeType(_ descriptor: PluginNodeDescription, id: String) -> NodeType {
        descriptor.nodeType(id: id, code: NodeCode(library: path, identity: identity.description)) { [path] _ in
            try Self.makeInProcess(path: path, described: descriptor, plugin: id)
        }
    }

    /// The node made in this process from the library as it is now, refused when that build
    /// no longer matches the description the graph was checked against.
    static func makeInProcess(path: String, described: PluginNodeDescription, plugin: String) throws -> any AudioNode {
        let library = try PluginLibrary.load(path: path)
        guard let descriptor = library.descriptor(described.id) else {
            throw PluginLoadError(.unknownPlugin, "\(path) no longer offers \"\(described.id)\"",
                                  hint: "its node types: " + library.descriptors.map(\.id).joined(separator: ", "))
        }
        guard descriptor.layout == described.layout, descriptor.parameters == described.parameters,
              descriptor.requestedEntitlements == described.requestedEntitlements, descriptor.component == described.component else {
            throw PluginLoadError(.invalidDescriptor, "\(path) changed since the graph was checked: \"\(described.id)\" has other ports, parameters, entitlements or component now",
                                  hint: "apply the graph again")
        }
        return try PluginNode(library: library, descriptor: descriptor, plugin: plugin)
    }
}

/// What the describe child writes on descriptor 3: `{"format": "iaa-describe/1", "descriptors":
/// [...]}` or `{"format": ..., "error": {"code", "message", "hint"}}`.
public struct LibraryDescriptionWire: Codable {
    public static let format = "iaa-describe/1"

    struct Component: Codable {
        let type, subtype, manufacturer, name: String
        let version: Int
    }
    struct Port: Codable {
        let name, displayName, direction, kind: String
        let group: String?
    }
    struct Parameter: Codable {
        let name, displayName, unit: String
        let min, max, `default`: Float
        let discrete: Bool
    }
    struct Descriptor: Codable {
        let id, name, summary: String
        let component: Component
        let ports: [Port]
        let parameters: [Parameter]
        let entitlements: [String]
    }
    struct Failure: Codable {
        let code, message: String
        let hint: String?
    }

    let format: String
    let descriptors: [Descriptor]?
    let error: Failure?

    /// The child's answer for a library it loaded.
    public init(_ library: PluginLibrary) {
        format = Self.format
        error = nil
        descriptors = library.descriptors.map { descriptor in
            let component = descriptor.component
            func ports(_ specs: [PortSpec], _ kind: String) -> [Port] {
                specs.map { Port(name: $0.name, displayName: $0.displayName, direction: $0.direction.rawValue, kind: kind, group: $0.group) }
            }
            return Descriptor(
                id: descriptor.id, name: descriptor.name, summary: descriptor.summary,
                component: Component(type: component.type.code, subtype: component.subtype, manufacturer: component.manufacturer,
                                     name: component.name, version: component.version),
                ports: ports(descriptor.layout.inputs, "audio") + ports(descriptor.layout.midiInputs, "midi")
                    + ports(descriptor.layout.outputs, "audio"),
                parameters: descriptor.parameters.map {
                    Parameter(name: $0.name, displayName: $0.displayName, unit: $0.unit.rawValue, min: $0.range.lowerBound,
                              max: $0.range.upperBound, default: $0.defaultValue, discrete: $0.isDiscrete)
                },
                entitlements: descriptor.requestedEntitlements)
        }
    }

    /// The child's answer for a library it could not load.
    public init(_ failure: PluginLoadError) {
        format = Self.format
        descriptors = nil
        error = Failure(code: failure.code.rawValue, message: failure.message, hint: failure.hint)
    }

    /// The answer as one line of JSON.
    public func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(self)) ?? Data())
    }

    /// The description in `bytes`, checked as the engine checks a descriptor it reads itself:
    /// the child runs the plugin's code, so nothing it says is taken on trust. A load error the
    /// child reported comes back as itself.
    public static func decode(_ bytes: [UInt8], path: String, identity: LibraryFileIdentity) throws(PluginLoadError) -> LibraryDescription {
        let wire: LibraryDescriptionWire
        do {
            wire = try JSONDecoder().decode(LibraryDescriptionWire.self, from: Data(bytes))
        } catch {
            throw PluginLoadError(.notAPlugin, "\(path): its describe child gave no readable description (\(bytes.count) bytes)",
                                  hint: "the library's code wrote on the child's answer descriptor, or the child failed; run `iaa plugins \(path)`")
        }
        guard wire.format == format else {
            throw PluginLoadError(.notAPlugin, "\(path): its describe child answered in format \"\(wire.format)\", not \(format)")
        }
        if let failure = wire.error {
            throw PluginLoadError(PluginLoadError.Code(rawValue: failure.code) ?? .notAPlugin, failure.message, hint: failure.hint)
        }
        guard let descriptors = wire.descriptors, !descriptors.isEmpty else {
            throw PluginLoadError(.invalidDescriptor, "\(path): the plugin list is empty (count 0)", hint: "list at least one descriptor")
        }
        guard descriptors.count <= 1024 else {
            throw PluginLoadError(.invalidDescriptor, "\(path): \(descriptors.count) descriptors are more than 1024")
        }
        var checked: [PluginNodeDescription] = []
        for (position, descriptor) in descriptors.enumerated() {
            let node = try descriptor.checked(DescriptorCheck(library: path, position: position))
            if checked.contains(where: { $0.id == node.id }) {
                throw PluginLoadError(.invalidDescriptor, "\(path): descriptor \(position): id \"\(node.id)\" is used twice",
                                      hint: "give every descriptor of a library its own id")
            }
            checked.append(node)
        }
        return LibraryDescription(path: path, identity: identity, descriptors: checked)
    }
}

extension LibraryDescriptionWire.Descriptor {
    /// The same checks ``DescriptorCheck`` makes on a C descriptor, on the child's words.
    func checked(_ check: DescriptorCheck) throws(PluginLoadError) -> PluginNodeDescription {
        var check = check
        guard DescriptorCheck.Pattern.pluginID.matches(id) else { throw check.failure("id \"\(id)\" must match \(DescriptorCheck.Pattern.pluginID.rawValue)") }
        check.id = id
        if name.isEmpty { throw check.failure("name is empty") }
        guard let type = ComponentDescription.ComponentType(code: component.type) else {
            throw check.failure("component.type \"\(component.type)\" is not one of aurg, auri, aurx, aurm")
        }
        for (field, code) in [("component.subtype", component.subtype), ("component.manufacturer", component.manufacturer)]
        where code.utf8.count != 4 || !code.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            throw check.failure("\(field) \"\(code)\" must be four ASCII characters")
        }
        if ports.count > 1024 { throw check.failure("port_count \(ports.count) is more than 1024") }
        var inputs: [PortSpec] = [], outputs: [PortSpec] = [], midi: [PortSpec] = []
        var names: Set<String> = []
        for (index, port) in ports.enumerated() {
            let field = "ports[\(index)]"
            guard DescriptorCheck.Pattern.symbol.matches(port.name) else { throw check.failure("\(field).name \"\(port.name)\" must match \(DescriptorCheck.Pattern.symbol.rawValue)") }
            guard names.insert(port.name).inserted else { throw check.failure("\(field).name \"\(port.name)\" is used twice") }
            guard let direction = PortSpec.Direction(rawValue: port.direction) else { throw check.failure("\(field).direction is \"\(port.direction)\"") }
            let spec = PortSpec(name: port.name, displayName: port.displayName, direction: direction, group: port.group)
            switch (port.kind, direction) {
            case ("audio", .input): inputs.append(spec)
            case ("audio", .output): outputs.append(spec)
            case ("midi", .input): midi.append(spec)
            default: throw check.failure("\(field) is a \(port.kind) \(port.direction), which iaa does not support")
            }
        }
        let layout = NodeLayout(inputs: inputs, outputs: outputs, midiInputs: midi)
        try check.checkPorts(layout, against: type)
        if parameters.count > 1024 { throw check.failure("parameter_count \(parameters.count) is more than 1024") }
        var specs: [ParameterSpec] = []
        names = []
        for (index, parameter) in parameters.enumerated() {
            let field = "parameters[\(index)]"
            guard DescriptorCheck.Pattern.symbol.matches(parameter.name) else { throw check.failure("\(field).name \"\(parameter.name)\" must match \(DescriptorCheck.Pattern.symbol.rawValue)") }
            guard names.insert(parameter.name).inserted else { throw check.failure("\(field).name \"\(parameter.name)\" is used twice") }
            let (low, high, value) = (parameter.min, parameter.max, parameter.default)
            // Checked before the range is made: a ClosedRange with its bounds reversed traps.
            guard low.isFinite, high.isFinite, value.isFinite, low <= high, (low...high).contains(value) else {
                throw check.failure("\(field) (\"\(parameter.name)\"): min \(low), max \(high) and default_value \(value) must be finite and ordered")
            }
            guard let unit = ParameterSpec.Unit(rawValue: parameter.unit) else { throw check.failure("\(field) (\"\(parameter.name)\"): unit \"\(parameter.unit)\" is unknown") }
            specs.append(ParameterSpec(name: parameter.name, displayName: parameter.displayName, range: low...high, defaultValue: value,
                                       unit: unit, isDiscrete: parameter.discrete))
        }
        let known = Entitlement.allCases.map(\.rawValue)
        for (index, name) in entitlements.enumerated() where !known.contains(name) || entitlements[..<index].contains(name) {
            throw check.failure("entitlements[\(index)] \"\(name)\" is not an entitlement, or is requested twice")
        }
        return PluginNodeDescription(id: id, name: name, summary: summary,
                                     component: ComponentDescription(type: type, subtype: component.subtype,
                                                                     manufacturer: component.manufacturer,
                                                                     name: component.name, version: component.version),
                                     layout: layout, parameters: specs, requestedEntitlements: entitlements)
    }
}
