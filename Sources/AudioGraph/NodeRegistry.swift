import NodeKit

/// The node types a graph may name in its `plugin` field, by id.
public struct NodeRegistry: Sendable {
    public private(set) var types: [String: NodeType]

    public init(_ types: [NodeType] = []) {
        self.types = [:]
        for type in types { self.types[type.id] = type }
    }

    public subscript(id: String) -> NodeType? { types[id] }

    /// Every id, sorted, for listings and "did you mean" hints.
    public var ids: [String] { types.keys.sorted() }

    public mutating func register(_ type: NodeType) {
        types[type.id] = type
    }

    /// Resolves a `plugin` value that is no registered id: a library path (relative to the graph
    /// file's folder) or a name on `IAA_PLUGIN_PATH`. The engine installs it; validation calls it
    /// on the control side and reports its failure at the app's `plugin` field.
    public var resolver: (@Sendable (_ plugin: String, _ graphDirectory: String) -> Result<NodeType, PluginResolutionError>)?
}

/// Why a plugin could not be loaded, in the validator's terms.
public struct PluginResolutionError: Error, Sendable, Hashable {
    public let code: GraphErrorCode
    public let message: String
    public let hint: String?

    public init(code: GraphErrorCode, message: String, hint: String? = nil) {
        self.code = code
        self.message = message
        self.hint = hint
    }
}
