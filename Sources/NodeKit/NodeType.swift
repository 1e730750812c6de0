/// A kind of node that graphs can instantiate by id (`builtin:oscillator`, a plugin's id).
///
/// It tells the validator everything it checks (ports, parameters, configuration) without
/// creating an instance, and creates instances on the control side.
public struct NodeType: Sendable {
    /// The id written in a graph's `plugin` field.
    public let id: String
    public let displayName: String
    /// One sentence for `iaa plugins`.
    public let summary: String
    public let parameters: [ParameterSpec]
    public let configuration: [ConfigurationSpec]
    /// The Inter-App Audio component the node publishes (nil for plain processing nodes).
    public let component: ComponentDescription?
    /// The entitlements this type's nodes need, by the names graph files use ("microphone"): a
    /// request, not a grant. A graph loads only when it grants each of them to the app holding
    /// the node, else validation fails with `missingEntitlement`. Empty for the built-in types.
    public let requestedEntitlements: [String]
    /// The library file the nodes' code comes from and which build of it was loaded, for a type
    /// a plugin library provides; nil for code built into the engine.
    public let code: NodeCode?
    /// The shared library an LV2 or LADSPA type's code is in (the format's host opens it, not
    /// the engine's plugin loader): what decides, as `code` does for a native library, whether
    /// the engine trusts it to run in its own process. Nil for code built into the engine.
    public let binary: String?
    /// For types whose nodes keep state (``StatefulNode``): checks a saved state before a graph
    /// loads, returning why it cannot be restored, or nil. Nil for types without state.
    public let checkState: (@Sendable (String) -> String?)?
    /// The parameter, if any, that multiplies every output and nothing else (a gain stage's gain,
    /// a mixer's master gain, an oscillator's amplitude). The engine folds the app's session gain
    /// into it, so ducking costs no pass over the output of its own.
    public let outputGain: String?
    private let layoutFor: @Sendable (NodeConfiguration) -> NodeLayout
    private let factory: @Sendable (NodeConfiguration) throws -> any AudioNode

    public init(id: String, displayName: String, summary: String,
                parameters: [ParameterSpec] = [], configuration: [ConfigurationSpec] = [],
                component: ComponentDescription? = nil, requestedEntitlements: [String] = [],
                code: NodeCode? = nil, binary: String? = nil, checkState: (@Sendable (String) -> String?)? = nil,
                outputGain: String? = nil, layout: @escaping @Sendable (NodeConfiguration) -> NodeLayout,
                make: @escaping @Sendable (NodeConfiguration) throws -> any AudioNode) {
        self.id = id
        self.displayName = displayName
        self.summary = summary
        self.parameters = parameters
        self.configuration = configuration
        self.component = component
        self.requestedEntitlements = requestedEntitlements
        self.code = code
        self.binary = binary
        self.checkState = checkState
        self.outputGain = outputGain
        self.layoutFor = layout
        self.factory = make
    }

    /// The ports an instance with `configuration` has.
    public func layout(_ configuration: NodeConfiguration) -> NodeLayout {
        layoutFor(configuration)
    }

    /// Creates an instance. Control side only.
    public func makeNode(_ configuration: NodeConfiguration) throws -> any AudioNode {
        try factory(configuration)
    }

    /// The index of the parameter called `name`, if there is one.
    public func parameterIndex(_ name: String) -> Int? {
        parameters.firstIndex { $0.name == name }
    }
}
