import IAAPluginABI
import NodeKit

/// One node type of a plugin library, read from its C descriptor and checked field by field.
///
/// It keeps the descriptor's pointer: the descriptor is static data of the library, which the
/// ``PluginLibrary`` that read it keeps loaded.
public struct PluginDescriptor: @unchecked Sendable {
    /// The descriptor's `id`, unique within its library.
    public let id: String
    /// The descriptor's `name`.
    public let name: String
    /// One sentence for listings ("" when the plugin gave none).
    public let summary: String
    /// The Inter-App Audio component, whose type matches the ports.
    public let component: ComponentDescription
    /// Audio inputs, audio outputs and MIDI inputs, each in table order.
    public let layout: NodeLayout
    /// The parameter table, in order (the process context's ramps follow it).
    public let parameters: [ParameterSpec]
    /// The entitlements the node requests, in table order (always empty for an ABI 1 plugin).
    /// A graph must grant each of them to the app holding the node.
    public let requestedEntitlements: [String]
    /// The plugin ABI version of the library's list.
    public let abiVersion: UInt32
    /// The C descriptor (static data of the library), passed back to `create`.
    let raw: UnsafePointer<iaa_plugin_descriptor>
    /// A copy of the fields `abiVersion` defines; the later ones are zero. Read function pointers
    /// here, never through `raw`: an older descriptor is shorter than this header's struct.
    let fields: iaa_plugin_descriptor

    /// The size of a version 1 descriptor: this header's struct up to `entitlements`.
    static let version1Size = MemoryLayout<iaa_plugin_descriptor>.offset(of: \.entitlements)!

    /// Reads and checks `raw`, a descriptor of a list carrying `abiVersion` (one the engine loads);
    /// `position` is its index in the library's list, `library` the path shown in errors.
    static func read(_ raw: UnsafePointer<iaa_plugin_descriptor>?, abiVersion: UInt32, position: Int,
                     library: String) throws(PluginLoadError) -> PluginDescriptor {
        var check = DescriptorCheck(library: library, position: position)
        guard let raw else { throw check.failure("descriptors[\(position)] is NULL") }
        // Copy only the bytes the plugin's version defines: reading a whole struct of this header
        // from a version 1 plugin would read past the end of its descriptor.
        var descriptor = iaa_plugin_descriptor()
        let size = abiVersion == 1 ? version1Size : MemoryLayout<iaa_plugin_descriptor>.size
        withUnsafeMutableBytes(of: &descriptor) { bytes in
            bytes.copyMemory(from: UnsafeRawBufferPointer(start: UnsafeRawPointer(raw), count: size))
        }
        let id = try check.symbol(descriptor.id, field: "id", pattern: .pluginID)
        check.id = id
        let name = try check.text(descriptor.name, field: "name")
        let summary = try check.optionalText(descriptor.summary, field: "summary") ?? ""
        let component = try check.component(descriptor.component, defaultName: name)
        let layout = try check.ports(descriptor.ports, count: descriptor.port_count, type: component.type)
        let parameters = try check.parameters(descriptor.parameters, count: descriptor.parameter_count)
        if descriptor.create == nil { throw check.failure("create is NULL") }
        if descriptor.process == nil { throw check.failure("process is NULL") }
        if descriptor.reset == nil { throw check.failure("reset is NULL") }
        if descriptor.destroy == nil { throw check.failure("destroy is NULL") }
        let entitlements = try check.entitlements(descriptor.entitlements, count: descriptor.entitlement_count)
        return PluginDescriptor(id: id, name: name, summary: summary, component: component, layout: layout,
                                parameters: parameters, requestedEntitlements: entitlements, abiVersion: abiVersion,
                                raw: raw, fields: descriptor)
    }
}

/// What a plugin library says of one of its node types, read from its C descriptor here or from
/// the describe child's answer (``PluginNodeDescription``): enough to make the ``NodeType``.
protocol DescribedPluginNode {
    var name: String { get }
    var summary: String { get }
    var component: ComponentDescription { get }
    var layout: NodeLayout { get }
    var parameters: [ParameterSpec] { get }
    var requestedEntitlements: [String] { get }
}

extension PluginDescriptor: DescribedPluginNode {}
extension PluginNodeDescription: DescribedPluginNode {}

extension DescribedPluginNode {
    /// The node type, named `id` in graphs, of the library `code` names; `make` makes its nodes.
    func nodeType(id: String, code: NodeCode, make: @escaping @Sendable (NodeConfiguration) throws -> any AudioNode) -> NodeType {
        let layout = layout
        return NodeType(id: id, displayName: name, summary: summary, parameters: parameters, component: component,
                        requestedEntitlements: requestedEntitlements, code: code, layout: { _ in layout }, make: make)
    }
}
