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
}
