import IAAPluginABI

/// Exports Swift nodes through the C plugin ABI (`iaa_plugin.h`), so the engine loads a Swift
/// plugin exactly as it loads a C one.
///
/// A plugin library holds one global export and one `@_cdecl` function returning its list:
///
/// ```swift
/// let plugin = PluginExport([.node(RingModulator.description) { _, _ in RingModulator() }])
///
/// @_cdecl("iaa_plugin_entry")
/// public func iaaPluginEntry() -> UnsafeRawPointer { plugin.entry }
/// ```
///
/// Everything the C side sees (descriptors, strings, tables) is allocated once and never freed:
/// it lives as long as the library, which the engine never unloads while it is in use. Each
/// cycle calls the node through `Unmanaged` and a generic class, so it allocates and retains
/// nothing (the release-build counter test, RealtimeSafetyTests, checks it).
public final class PluginExport: @unchecked Sendable {
    // @unchecked: immutable after init; the C tables it points to are never written again.

    /// One exported node type: its description and how to make an instance.
    public struct Node: @unchecked Sendable {
        let description: PluginNodeDescription
        let factory: ExportedFactory

        /// A node type that `make` instantiates with the engine's sample rate and maximum cycle
        /// size (control side). A thrown error's description becomes the plugin's `create`
        /// failure message. The engine calls `prepare` right after `make`, with the same values.
        public static func node<Node: AudioNode>(
            _ description: PluginNodeDescription,
            make: @escaping @Sendable (_ sampleRate: Double, _ maximumFrames: Int) throws -> Node
        ) -> PluginExport.Node {
            PluginExport.Node(description: description,
                              factory: TypedFactory(make: make, parameterCount: description.parameters.count))
        }
    }

    /// The `iaa_plugin_list` to return from `iaa_plugin_entry`.
    public let entry: UnsafeRawPointer

    /// Builds the C descriptors for `nodes`, in order.
    public init(_ nodes: [Node]) {
        let table = UnsafeMutablePointer<UnsafePointer<iaa_plugin_descriptor>?>.allocate(capacity: max(nodes.count, 1))
        for (index, node) in nodes.enumerated() {
            (table + index).initialize(to: UnsafePointer(Self.descriptor(node)))
        }
        let list = UnsafeMutablePointer<iaa_plugin_list>.allocate(capacity: 1)
        list.initialize(to: iaa_plugin_list(abi_version: IAA_PLUGIN_ABI_VERSION, count: UInt32(nodes.count),
                                             descriptors: UnsafePointer(table)))
        entry = UnsafeRawPointer(list)
    }

    private static func descriptor(_ node: Node) -> UnsafeMutablePointer<iaa_plugin_descriptor> {
        let description = node.description
        let layout = description.layout
        let ports = layout.inputs.map { port(cString: $0, kind: IAA_PORT_AUDIO) }
            + layout.outputs.map { port(cString: $0, kind: IAA_PORT_AUDIO) }
            + layout.midiInputs.map { port(cString: $0, kind: IAA_PORT_MIDI) }
        let parameters = description.parameters.map { spec in
            iaa_parameter(name: cString(spec.name), display_name: cString(spec.displayName),
                          min: spec.range.lowerBound, max: spec.range.upperBound, default_value: spec.defaultValue,
                          unit: unitCode(spec.unit), discrete: spec.isDiscrete ? 1 : 0)
        }
        let component = description.component
        let entitlements = description.requestedEntitlements.map { Optional(cString($0)) }
        let descriptor = UnsafeMutablePointer<iaa_plugin_descriptor>.allocate(capacity: 1)
        descriptor.initialize(to: iaa_plugin_descriptor(
            id: cString(description.id), name: cString(description.name), summary: cString(description.summary),
            component: iaa_component(type: cString(component.type.code), subtype: cString(component.subtype),
                                     manufacturer: cString(component.manufacturer), name: cString(component.name),
                                     version: UInt32(clamping: component.version)),
            ports: table(ports), port_count: UInt32(ports.count),
            parameters: table(parameters), parameter_count: UInt32(parameters.count),
            create: ExportThunks.create, process: ExportThunks.process, set_parameter: nil,
            reset: ExportThunks.reset, destroy: ExportThunks.destroy,
            user_data: UnsafeRawPointer(Unmanaged.passRetained(node.factory).toOpaque()),
            entitlements: table(entitlements), entitlement_count: UInt32(entitlements.count)))
        return descriptor
    }

    private static func port(cString spec: PortSpec, kind: UInt32) -> iaa_port {
        iaa_port(name: cString(spec.name), display_name: cString(spec.displayName),
                 direction: spec.direction == .input ? IAA_PORT_INPUT : IAA_PORT_OUTPUT, kind: kind,
                 group: spec.group.map(cString))
    }

    /// A NUL-terminated copy that is never freed (it lives as long as the library).
    private static func cString(_ text: String) -> UnsafePointer<CChar> {
        let bytes = Array(text.utf8)
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
        for (index, byte) in bytes.enumerated() { (copy + index).initialize(to: CChar(bitPattern: byte)) }
        (copy + bytes.count).initialize(to: 0)
        return UnsafePointer(copy)
    }

    private static func table<Element>(_ elements: [Element]) -> UnsafePointer<Element>? {
        guard !elements.isEmpty else { return nil }
        let copy = UnsafeMutablePointer<Element>.allocate(capacity: elements.count)
        copy.initialize(from: elements, count: elements.count)
        return UnsafePointer(copy)
    }

    private static func unitCode(_ unit: ParameterSpec.Unit) -> UInt32 {
        switch unit {
        case .generic: return IAA_UNIT_GENERIC
        case .hertz: return IAA_UNIT_HERTZ
        case .linearGain: return IAA_UNIT_LINEAR_GAIN
        case .decibels: return IAA_UNIT_DECIBELS
        case .seconds: return IAA_UNIT_SECONDS
        case .milliseconds: return IAA_UNIT_MILLISECONDS
        case .percent: return IAA_UNIT_PERCENT
        case .boolean: return IAA_UNIT_BOOLEAN
        }
    }
}
