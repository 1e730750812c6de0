/// Where a node type's code was loaded from: a plugin library's path and the identity of the
/// file when it was loaded (device, inode, size, modification time).
///
/// Two types with the same id but different identities run different builds of the code: the
/// engine replaces the running node (keeping its parameters and connections) instead of reusing it.
public struct NodeCode: Sendable, Hashable {
    /// The library's path, as resolved when it was loaded.
    public let library: String
    /// The file's identity when it was loaded, as text (`dev 2049 inode 1234 size … mtime …`).
    public let identity: String

    public init(library: String, identity: String) {
        self.library = library
        self.identity = identity
    }
}
