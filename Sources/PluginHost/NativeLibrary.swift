import NodeKit

/// A native plugin library as the engine knows it: loaded into this process (a trusted library,
/// or any library where nothing sandboxes: the isolated child itself, tests), or described by a
/// sandboxed child (``LibraryDescription``). Either way it offers node types by descriptor id.
public enum NativeLibrary: Sendable {
    case loaded(PluginLibrary)
    case described(LibraryDescription)

    /// The path it was opened or described from, as resolved.
    public var path: String {
        switch self {
        case .loaded(let library): library.path
        case .described(let description): description.path
        }
    }

    /// The file's identity when it was opened or described.
    public var identity: LibraryFileIdentity {
        switch self {
        case .loaded(let library): library.identity
        case .described(let description): description.identity
        }
    }

    /// Its descriptors' ids, in the library's order.
    public var descriptorIDs: [String] {
        switch self {
        case .loaded(let library): library.descriptors.map(\.id)
        case .described(let description): description.descriptors.map(\.id)
        }
    }

    /// The node type of the descriptor `descriptorID`, named `id` in graphs; nil when there is none.
    public func nodeType(_ descriptorID: String, id: String) -> NodeType? {
        switch self {
        case .loaded(let library):
            library.descriptor(descriptorID).map { library.nodeType($0, id: id) }
        case .described(let description):
            description.descriptors.first { $0.id == descriptorID }.map { description.nodeType($0, id: id) }
        }
    }
}
