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
    /// The C descriptor (static data of the library).
    let raw: UnsafePointer<iaa_plugin_descriptor>

    /// Reads and checks `raw`; `position` is its index in the library's list, `library` the path
    /// shown in errors.
    static func read(_ raw: UnsafePointer<iaa_plugin_descriptor>?, position: Int,
                     library: String) throws(PluginLoadError) -> PluginDescriptor {
        var check = DescriptorCheck(library: library, position: position)
        guard let raw else { throw check.failure("descriptors[\(position)] is NULL") }
        let descriptor = raw.pointee
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
        return PluginDescriptor(id: id, name: name, summary: summary, component: component, layout: layout,
                                parameters: parameters, raw: raw)
    }
}
