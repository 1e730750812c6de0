/// What a Swift plugin publishes about one node type: the same facts a C plugin's
/// `iaa_plugin_descriptor` holds. ``PluginExport`` turns it into that descriptor.
public struct PluginNodeDescription: Sendable, Hashable {
    /// Unique within the library: `[A-Za-z0-9_.-]+`. A graph names it as `lib.so#id` when the
    /// library exports more than one node type.
    public var id: String
    /// A human name, such as "Ring Modulator".
    public var name: String
    /// One sentence for `iaa plugins`.
    public var summary: String
    /// The Inter-App Audio component; its type must match the ports (an effect has audio inputs
    /// and outputs, a generator audio outputs only, and so on).
    public var component: ComponentDescription
    /// Audio inputs, audio outputs and MIDI inputs, in the order `process` sees them.
    public var layout: NodeLayout
    /// The parameters, in the order of `ProcessContext.parameters`.
    public var parameters: [ParameterSpec]
    /// The entitlements the node needs, by the names graph files use: `"inter-app-audio"`,
    /// `"priority-audio"`, `"microphone"`. A request, not a grant: a graph using the node loads
    /// only when it grants each one to the app holding it. Empty for most nodes.
    public var requestedEntitlements: [String]

    /// Describes one node type.
    public init(id: String, name: String, summary: String = "", component: ComponentDescription,
                layout: NodeLayout, parameters: [ParameterSpec] = [], requestedEntitlements: [String] = []) {
        self.id = id
        self.name = name
        self.summary = summary
        self.component = component
        self.layout = layout
        self.parameters = parameters
        self.requestedEntitlements = requestedEntitlements
    }
}
