import CPluginFormats
import NodeKit

/// One LV2 or LADSPA plugin, opened and described (ports, parameters, component). Control side.
///
/// It owns the C description (and, for LADSPA, the open library); every node type and node made
/// from it holds it, so the plugin's code stays loaded while any instance lives.
public final class FormatPlugin: @unchecked Sendable {
    /// The plugin format, which also names the graph's prefix (`lv2:`, `ladspa:`).
    public enum Format: String, Sendable {
        case lv2, ladspa
    }

    /// One port as the engine sees it.
    public struct Port: Sendable, Hashable {
        public enum Kind: Sendable, Hashable {
            case audioInput, audioOutput, controlInput, controlOutput, midiInput, other
        }

        /// The LV2 symbol, or the LADSPA name made into one (`amps_gain_db`).
        public let symbol: String
        public let name: String
        public let kind: Kind
        public let range: ClosedRange<Float>
        public let defaultValue: Float
        /// The unit's symbol as the plugin gives it ("dB", "Hz"), if any.
        public let unit: String?
        public let isToggled: Bool
        public let isInteger: Bool
        public let isEnumeration: Bool
        public let isLogarithmic: Bool
        /// Named values (LV2 scale points): value and label.
        public let scalePoints: [(value: Float, label: String)]
        /// An LV2 atom input that also takes time:Position.
        public let takesTimePosition: Bool
        /// A control output holding the plugin's latency in frames (LV2 `reportsLatency`, a
        /// LADSPA output named "latency").
        public let reportsLatency: Bool

        public static func == (a: Port, b: Port) -> Bool { a.symbol == b.symbol && a.kind == b.kind }
        public func hash(into hasher: inout Hasher) { hasher.combine(symbol) }
    }

    public let format: Format
    /// The graph's `plugin` value this was opened for.
    public let reference: String
    /// The LV2 URI, or `LIBRARY/LABEL` for LADSPA.
    public let identifier: String
    public let name: String
    public let author: String
    /// The shared library the plugin's code is in (an LV2 binary, a LADSPA library), if known.
    public let binary: String?
    /// The LV2 class label ("Delay Plugin"), empty for LADSPA.
    public let classLabel: String
    public let ports: [Port]
    /// True for LV2 plugins with the LV2 state extension: their state goes into `pluginState`.
    public let keepsState: Bool
    let raw: OpaquePointer
    private let isInstrumentClass: Bool

    init(format: Format, reference: String, raw: OpaquePointer) {
        self.format = format
        self.reference = reference
        self.raw = raw
        identifier = String(cString: iaa_fx_plugin_identifier(raw))
        name = String(cString: iaa_fx_plugin_name(raw))
        author = String(cString: iaa_fx_plugin_author(raw))
        binary = Optional(String(cString: iaa_fx_plugin_binary(raw))).flatMap { $0.isEmpty ? nil : $0 }
        classLabel = String(cString: iaa_fx_plugin_class(raw))
        isInstrumentClass = iaa_fx_plugin_is_instrument(raw) != 0
        ports = (0..<iaa_fx_plugin_port_count(raw)).map { Self.port(iaa_fx_plugin_port(raw, $0).pointee) }
        keepsState = iaa_fx_plugin_has_state(raw) != 0
    }

    /// Why `state` is not a snapshot of this plugin, or nil when it is. Control side.
    func problem(restoring state: String) -> String? {
        FormatPlugin.withMessage { iaa_fx_state_check(raw, state, $0, $1) != 0 }
    }

    /// Runs `body` with a message buffer; the message when it returns false, else nil.
    static func withMessage(_ body: (UnsafeMutablePointer<CChar>, Int) -> Bool) -> String? {
        let capacity = 1024
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { buffer in
            buffer.initialize(repeating: 0)
            guard let base = buffer.baseAddress else { return "out of memory" }
            return body(base, capacity) ? nil : String(cString: base)
        }
    }

    deinit {
        iaa_fx_plugin_free(raw)
    }

    /// Opens the LV2 plugin `uri`, or says why it cannot be hosted.
    static func openLV2(uri: String, reference: String) throws(PluginLoadError) -> FormatPlugin {
        try open(.lv2, reference: reference) { iaa_lv2_open(uri, $0, $1) }
    }

    /// Opens the LADSPA plugin `label` of the library at `path`.
    static func openLADSPA(path: String, label: String?, reference: String) throws(PluginLoadError) -> FormatPlugin {
        try open(.ladspa, reference: reference) { iaa_ladspa_open(path, label, $0, $1) }
    }

    private static func open(_ format: Format, reference: String,
                             _ body: (UnsafeMutablePointer<CChar>, Int) -> OpaquePointer?) throws(PluginLoadError) -> FormatPlugin {
        let capacity = 1024
        let result: Result<FormatPlugin, PluginLoadError> = withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { buffer in
            buffer.initialize(repeating: 0)
            guard let base = buffer.baseAddress else { return .failure(PluginLoadError(.notAPlugin, "out of memory")) }
            if let raw = body(base, capacity) { return .success(FormatPlugin(format: format, reference: reference, raw: raw)) }
            let reason = String(cString: base)
            let code: PluginLoadError.Code = reason.contains("requires the feature") ? .invalidDescriptor : .notAPlugin
            let hint = code == .invalidDescriptor
                ? "iaa gives LV2 plugins urid:map, urid:unmap, options, boundedBlockLength, log, worker, state:loadDefaultState, state:mapPath and state:freePath; choose a plugin that needs no more"
                : "check the plugin is installed and loads (lv2info URI, or analyseplugin LIBRARY for LADSPA)"
            return .failure(PluginLoadError(code, reason, hint: hint))
        }
        return try result.get()
    }

    private static func port(_ raw: iaa_fx_port) -> Port {
        let kind: Port.Kind = switch raw.kind {
        case IAA_FX_AUDIO_IN: .audioInput
        case IAA_FX_AUDIO_OUT: .audioOutput
        case IAA_FX_CONTROL_IN: .controlInput
        case IAA_FX_CONTROL_OUT: .controlOutput
        case IAA_FX_MIDI_IN: .midiInput
        default: .other
        }
        let flags = Int(raw.flags)
        let low = raw.minimum.isFinite ? raw.minimum : 0
        let high = raw.maximum.isFinite ? max(raw.maximum, low) : low + 1
        let points = (0..<Int(raw.scale_count)).map { index in
            (value: raw.scale_values[index], label: raw.scale_labels[index].map { String(cString: $0) } ?? "")
        }
        return Port(symbol: String(cString: raw.symbol), name: String(cString: raw.name), kind: kind,
                    range: low...high, defaultValue: min(max(raw.default_value.isFinite ? raw.default_value : low, low), high),
                    unit: raw.unit.map { String(cString: $0) }, isToggled: flags & Int(IAA_FX_TOGGLED) != 0,
                    isInteger: flags & Int(IAA_FX_INTEGER) != 0, isEnumeration: flags & Int(IAA_FX_ENUMERATION) != 0,
                    isLogarithmic: flags & Int(IAA_FX_LOGARITHMIC) != 0, scalePoints: points,
                    takesTimePosition: flags & Int(IAA_FX_TIME_POSITION) != 0,
                    reportsLatency: flags & Int(IAA_FX_REPORTS_LATENCY) != 0)
    }

    /// Ports of one kind, in plugin order.
    public func ports(_ kind: Port.Kind) -> [Port] { ports.filter { $0.kind == kind } }

    /// The engine's parameters: one per control input, with the plugin's range, default and unit.
    /// Toggles, integers and enumerations are discrete (they jump, the others are smoothed).
    public var parameters: [ParameterSpec] {
        ports(.controlInput).map { port in
            ParameterSpec(name: port.symbol, displayName: port.name, range: port.range, defaultValue: port.defaultValue,
                          unit: port.isToggled ? .boolean : Self.unit(port.unit ?? Self.unitInName(port.name)),
                          isDiscrete: port.isToggled || port.isInteger || port.isEnumeration)
        }
    }

    /// LADSPA ports, and LV2 ports that declare no unit, carry it in their name: "Gain (dB)".
    static func unitInName(_ name: String) -> String? {
        guard name.hasSuffix(")"), let open = name.lastIndex(of: "(") else { return nil }
        let inside = name[name.index(after: open)..<name.index(before: name.endIndex)].lowercased()
        return inside == "seconds" ? "s" : inside
    }

    private static func unit(_ symbol: String?) -> ParameterSpec.Unit {
        switch symbol?.lowercased() {
        case "db": .decibels
        case "hz", "khz": .hertz
        case "ms": .milliseconds
        case "s": .seconds
        case "%", "pc": .percent
        default: .generic
        }
    }

    /// Audio ports named by the plugin's symbols; the atom MIDI input becomes `midi_in`.
    public var layout: NodeLayout {
        NodeLayout(inputs: ports(.audioInput).map { .input($0.symbol, $0.name) },
                   outputs: ports(.audioOutput).map { .output($0.symbol, $0.name) },
                   midiInputs: ports(.midiInput).isEmpty ? [] : [.input("midi_in", "MIDI In")])
    }

    /// The Inter-App Audio type from the ports (and the LV2 class): MIDI without audio input is an
    /// instrument, MIDI with audio input a music effect, audio input an effect, else a generator.
    public var componentType: ComponentDescription.ComponentType {
        let takesAudio = !ports(.audioInput).isEmpty
        let takesMIDI = !ports(.midiInput).isEmpty
        if takesMIDI { return takesAudio && !isInstrumentClass ? .musicEffect : .instrument }
        return takesAudio ? .effect : .generator
    }

    /// The component: subtype from the URI's last part or the LADSPA label (`amp_`, `lpf_`),
    /// manufacturer `lv2_` or `lads`.
    public var component: ComponentDescription {
        let tail = identifier.split(whereSeparator: { "/#:".contains($0) }).last.map(String.init) ?? name
        let letters = tail.lowercased().unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) }
        let subtype = String(String.UnicodeScalarView(letters.prefix(4))).padding(toLength: 4, withPad: "_", startingAt: 0)
        return ComponentDescription(type: componentType, subtype: subtype, manufacturer: format == .lv2 ? "lv2_" : "lads",
                                    name: name)
    }

    /// A node type named `id` in graphs; its nodes hold this plugin.
    public func nodeType(id: String) -> NodeType {
        let layout = self.layout
        let summary = format == .lv2 ? "LV2 \(classLabel.isEmpty ? "plugin" : classLabel.lowercased()) <\(identifier)>"
                                     : "LADSPA plugin \(identifier)"
        let restorable: @Sendable (String) -> String? = { [self] state in self.problem(restoring: state) }
        let check = keepsState ? restorable : nil
        return NodeType(id: id, displayName: name, summary: summary, parameters: parameters, component: component,
                        binary: binary, checkState: check,
                        layout: { _ in layout },
                        make: { configuration in try FormatPluginNode(plugin: self, id: id, state: configuration.state) })
    }
}
