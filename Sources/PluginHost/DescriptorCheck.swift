import AudioSession
import IAAPluginABI
import NodeKit

/// Checks the fields of one C descriptor, naming the first bad field in an `invalidDescriptor`
/// error: `libx.so: descriptor 0 ("tremolo"): ports[1].name "in put" must match [A-Za-z0-9_-]+`.
struct DescriptorCheck {
    enum Pattern: String {
        /// Port and parameter names, like JACK port names.
        case symbol = "[A-Za-z0-9_-]+"
        /// Descriptor ids, which may also hold dots (`com.example.tremolo`).
        case pluginID = "[A-Za-z0-9_.-]+"

        func matches(_ text: String) -> Bool {
            !text.isEmpty && text.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x5F || byte == 0x2D || (self == .pluginID && byte == 0x2E)
            }
        }
    }

    let library: String
    let position: Int
    var id: String?

    init(library: String, position: Int) {
        self.library = library
        self.position = position
    }

    func failure(_ problem: String) -> PluginLoadError {
        let which = id.map { "descriptor \(position) (\"\($0)\")" } ?? "descriptor \(position)"
        return PluginLoadError(.invalidDescriptor, "\(library): \(which): \(problem)",
                               hint: "fix the descriptor in the plugin's source and rebuild it (iaa_plugin.h documents every field)")
    }

    func optionalText(_ pointer: UnsafePointer<CChar>?, field: String) throws(PluginLoadError) -> String? {
        guard let pointer else { return nil }
        guard let text = String(validatingCString: pointer) else { throw failure("\(field) is not valid UTF-8") }
        return text
    }

    func text(_ pointer: UnsafePointer<CChar>?, field: String) throws(PluginLoadError) -> String {
        guard let text = try optionalText(pointer, field: field) else { throw failure("\(field) is NULL") }
        if text.isEmpty { throw failure("\(field) is empty") }
        return text
    }

    func symbol(_ pointer: UnsafePointer<CChar>?, field: String, pattern: Pattern) throws(PluginLoadError) -> String {
        let text = try text(pointer, field: field)
        guard pattern.matches(text) else { throw failure("\(field) \"\(text)\" must match \(pattern.rawValue)") }
        return text
    }

    /// Four printable ASCII characters.
    func fourCharacterCode(_ pointer: UnsafePointer<CChar>?, field: String) throws(PluginLoadError) -> String {
        let text = try text(pointer, field: field)
        guard text.utf8.count == 4, text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
            throw failure("\(field) \"\(text)\" must be four ASCII characters")
        }
        return text
    }

    func component(_ component: iaa_component, defaultName: String) throws(PluginLoadError) -> ComponentDescription {
        let code = try text(component.type, field: "component.type")
        guard let type = ComponentDescription.ComponentType(code: code) else {
            throw failure("component.type \"\(code)\" is not one of aurg, auri, aurx, aurm")
        }
        let subtype = try fourCharacterCode(component.subtype, field: "component.subtype")
        let manufacturer = try fourCharacterCode(component.manufacturer, field: "component.manufacturer")
        let name = try optionalText(component.name, field: "component.name") ?? defaultName
        return ComponentDescription(type: type, subtype: subtype, manufacturer: manufacturer, name: name,
                                    version: Int(component.version))
    }

    func ports(_ table: UnsafePointer<iaa_port>?, count: UInt32, type: ComponentDescription.ComponentType)
        throws(PluginLoadError) -> NodeLayout {
        if count > 0 && table == nil { throw failure("ports is NULL but port_count is \(count)") }
        if count > 1024 { throw failure("port_count \(count) is more than 1024") }
        var inputs: [PortSpec] = [], outputs: [PortSpec] = [], midi: [PortSpec] = []
        var names: Set<String> = []
        for index in 0..<Int(count) {
            guard let port = table?[index] else { break }
            let field = "ports[\(index)]"
            let name = try symbol(port.name, field: field + ".name", pattern: .symbol)
            guard names.insert(name).inserted else { throw failure("\(field).name \"\(name)\" is used twice") }
            let display = try optionalText(port.display_name, field: field + ".display_name")
            let group = try optionalText(port.group, field: field + ".group")
            guard port.direction == IAA_PORT_INPUT || port.direction == IAA_PORT_OUTPUT else {
                throw failure("\(field).direction is \(port.direction) (IAA_PORT_INPUT 0 or IAA_PORT_OUTPUT 1)")
            }
            let direction: PortSpec.Direction = port.direction == IAA_PORT_INPUT ? .input : .output
            let spec = PortSpec(name: name, displayName: display, direction: direction, group: group)
            switch (port.kind, direction) {
            case (IAA_PORT_AUDIO, .input): inputs.append(spec)
            case (IAA_PORT_AUDIO, .output): outputs.append(spec)
            case (IAA_PORT_MIDI, .input): midi.append(spec)
            case (IAA_PORT_MIDI, .output): throw failure("\(field) is a MIDI output, which iaa does not support")
            default: throw failure("\(field).kind is \(port.kind) (IAA_PORT_AUDIO 0 or IAA_PORT_MIDI 1)")
            }
        }
        let layout = NodeLayout(inputs: inputs, outputs: outputs, midiInputs: midi)
        try checkPorts(layout, against: type)
        return layout
    }

    /// Inter-App Audio's rules: what each component type takes in and gives out.
    func checkPorts(_ layout: NodeLayout, against type: ComponentDescription.ComponentType) throws(PluginLoadError) {
        let expected: String
        switch type {
        case .generator: expected = "a generator (aurg) has audio outputs only"
        case .instrument: expected = "an instrument (auri) has a MIDI input and audio outputs, no audio input"
        case .effect: expected = "an effect (aurx) has audio inputs and outputs, no MIDI input"
        case .musicEffect: expected = "a music effect (aurm) has audio inputs, a MIDI input and audio outputs"
        }
        let has = "it has \(layout.inputs.count) audio inputs, \(layout.midiInputs.count) MIDI inputs, \(layout.outputs.count) audio outputs"
        let fits = !layout.outputs.isEmpty
            && layout.inputs.isEmpty != type.takesAudioInput
            && layout.midiInputs.isEmpty != type.takesMIDI
        if !fits { throw failure("ports do not match component.type: \(expected); \(has)") }
    }

    func parameters(_ table: UnsafePointer<iaa_parameter>?, count: UInt32) throws(PluginLoadError) -> [ParameterSpec] {
        if count > 0 && table == nil { throw failure("parameters is NULL but parameter_count is \(count)") }
        if count > 1024 { throw failure("parameter_count \(count) is more than 1024") }
        var result: [ParameterSpec] = []
        var names: Set<String> = []
        for index in 0..<Int(count) {
            guard let parameter = table?[index] else { break }
            let field = "parameters[\(index)]"
            let name = try symbol(parameter.name, field: field + ".name", pattern: .symbol)
            guard names.insert(name).inserted else { throw failure("\(field).name \"\(name)\" is used twice") }
            let display = try optionalText(parameter.display_name, field: field + ".display_name")
            let (low, high, value) = (parameter.min, parameter.max, parameter.default_value)
            guard low.isFinite, high.isFinite, value.isFinite else {
                throw failure("\(field) (\"\(name)\"): min, max and default_value must be finite")
            }
            guard low <= high else { throw failure("\(field) (\"\(name)\"): min \(low) is greater than max \(high)") }
            guard (low...high).contains(value) else {
                throw failure("\(field) (\"\(name)\"): default_value \(value) is outside \(low)…\(high)")
            }
            guard let unit = Self.units[Int(exactly: parameter.unit) ?? -1] else {
                throw failure("\(field) (\"\(name)\"): unit \(parameter.unit) is not one of IAA_UNIT_* (0…\(Self.units.count - 1))")
            }
            result.append(ParameterSpec(name: name, displayName: display, range: low...high, defaultValue: value,
                                        unit: unit, isDiscrete: parameter.discrete != 0))
        }
        return result
    }

    /// The entitlement names of an ABI 2 descriptor: each one the graph's vocabulary knows, none
    /// twice. (An ABI 1 descriptor has no table: its copy holds NULL and 0.)
    func entitlements(_ table: UnsafePointer<UnsafePointer<CChar>?>?, count: UInt32) throws(PluginLoadError) -> [String] {
        if count > 0 && table == nil { throw failure("entitlements is NULL but entitlement_count is \(count)") }
        let known = Entitlement.allCases.map(\.rawValue)
        if count > UInt32(known.count) {
            throw failure("entitlement_count \(count) is more than the \(known.count) entitlements there are")
        }
        var result: [String] = []
        for index in 0..<Int(count) {
            guard let pointer = table?[index] else { throw failure("entitlements[\(index)] is NULL") }
            let field = "entitlements[\(index)]"
            let name = try text(pointer, field: field)
            guard known.contains(name) else {
                throw failure("\(field) \"\(name)\" is not an entitlement; valid names: " + known.joined(separator: ", "))
            }
            if result.contains(name) { throw failure("\(field) \"\(name)\" is requested twice") }
            result.append(name)
        }
        return result
    }

    /// IAA_UNIT_* in order.
    static let units: [Int: ParameterSpec.Unit] = [
        0: .generic, 1: .hertz, 2: .linearGain, 3: .decibels, 4: .seconds, 5: .milliseconds, 6: .percent, 7: .boolean,
    ]
}
