import IAAPluginABI
import NodeKit
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One loaded plugin library: its handle and its checked descriptors. Control side only.
///
/// Every node type made from it and every instance of those types holds the library, so it stays
/// loaded as long as any of them lives; `dlclose` happens only when the last one is gone. A
/// library that links the Swift runtime is never closed: the runtime keeps pointers into every
/// image it has seen (type metadata, conformances), so unloading one is not safe.
public final class PluginLibrary: @unchecked Sendable {
    /// The path it was loaded from, as resolved (shown in errors and listings).
    public let path: String
    /// The node types it offers, checked, in the order of its list.
    public let descriptors: [PluginDescriptor]
    /// The file's identity when it was loaded: a rebuild changes it (see ``LibraryFileIdentity``).
    public let identity: LibraryFileIdentity
    // Immutable after init; dlopen handles may be used from any thread.
    private let handle: UnsafeMutableRawPointer
    private let closesOnRelease: Bool

    /// Whether libraries are loaded from a private copy (see ``LibraryCopy``): yes in the engine,
    /// which may load a rebuild of a path it loaded before; no in an isolated child, which loads
    /// its one library once and may create no file (docs/isolation.md).
    public static let loadsPrivateCopy = Atomic<Bool>(true)

    /// Loads the library at `path` (which must exist) and checks its list and every descriptor.
    /// It loads a private copy of the file (see ``LibraryCopy``), so each call loads the code on
    /// disk now, even when an older build of the same path is still loaded; without
    /// ``loadsPrivateCopy``, the file itself.
    public init(path: String) throws(PluginLoadError) {
        self.path = path
        let copy: String
        if Self.loadsPrivateCopy.load(ordering: .relaxed) {
            (copy, identity) = try LibraryCopy.make(of: path)
        } else {
            guard let current = LibraryFileIdentity(path: path) else {
                throw PluginLoadError(.notAPlugin, "\(path) could not be read: \(String(cString: strerror(errno)))",
                                      hint: "check the file's permissions")
            }
            (copy, identity) = (path, current)
        }
        // RTLD_LOCAL: two plugins may define the same symbols without one using the other's.
        let opened = dlopen(copy, RTLD_NOW | RTLD_LOCAL)
        let openError = opened == nil ? Self.lastError().replacing(copy, with: path) : ""
        // Mapped (or refused): the name is no longer needed, and nothing stays on disk.
        if copy != path { unlink(copy) }
        guard let handle = opened else {
            let hint = copy != path && LibraryCopy.folderIsNoExec
                ? "the engine loads a private copy from \(LibraryCopy.folder), which is mounted noexec; set TMPDIR to a folder that is not"
                : "is it a shared library built for this machine (cc -shared -fPIC)?"
            throw PluginLoadError(.notAPlugin, "\(path) could not be loaded: \(openError)", hint: hint)
        }
        dlerror()
        guard let symbol = dlsym(handle, IAA_PLUGIN_ENTRY_SYMBOL) else {
            let reason = Self.lastError()
            dlclose(handle)
            throw PluginLoadError(.notAPlugin, "\(path) is not an iaa plugin: it exports no \(IAA_PLUGIN_ENTRY_SYMBOL) (\(reason))",
                                  hint: "export `const iaa_plugin_list *iaa_plugin_entry(void)` with IAA_PLUGIN_EXPORT (C) or @_cdecl(\"iaa_plugin_entry\") (Swift)")
        }
        // Only a Swift image pulls in the Swift runtime; a C plugin's dependency tree has no swift_retain.
        closesOnRelease = dlsym(handle, "swift_retain") == nil
        do {
            let entry = unsafeBitCast(symbol, to: iaa_plugin_entry_function.self)
            descriptors = try Self.readList(entry(), path: path)
        } catch {
            if closesOnRelease { dlclose(handle) }
            throw error
        }
        self.handle = handle
    }

    deinit {
        if closesOnRelease { dlclose(handle) }
    }

    /// Libraries loaded so far by path, held weakly: a library lives as long as its nodes and types.
    private static let loaded = Mutex<[String: WeakLibrary]>([:])

    /// The library at `path`: the one already loaded when the file is unchanged since (same
    /// ``identity``), else the file's current build, freshly loaded. Every graph load resolves its
    /// plugins again, so without this each `apply` would load another copy of every library.
    public static func load(path: String) throws(PluginLoadError) -> PluginLibrary {
        if let current = LibraryFileIdentity(path: path),
           let known = loaded.withLock({ $0[path]?.library }), known.identity == current {
            return known
        }
        let library = try PluginLibrary(path: path)
        loaded.withLock { $0[path] = WeakLibrary(library: library) }
        return library
    }

    /// The descriptor called `id`.
    public func descriptor(_ id: String) -> PluginDescriptor? {
        descriptors.first { $0.id == id }
    }

    /// A node type for the descriptor `descriptor`, named `id` in graphs (the graph's `plugin`
    /// value). The type and every node it makes hold this library.
    public func nodeType(_ descriptor: PluginDescriptor, id: String) -> NodeType {
        descriptor.nodeType(id: id, code: NodeCode(library: path, identity: identity.description)) { _ in
            try PluginNode(library: self, descriptor: descriptor, plugin: id)
        }
    }

    /// The plugin ABI versions this engine loads, oldest first; the last is the header's
    /// `IAA_PLUGIN_ABI_VERSION`. Version 1 descriptors end at `user_data`; version 2 added the
    /// entitlements a node requests; version 3 the process context's `latency` (the descriptor
    /// is version 2's). The list's own layout is the same in all.
    public static let supportedABIVersions: [UInt32] = [1, 2, 3]

    /// "versions 1, 2 and 3", for errors.
    static var supportedVersionsText: String {
        let names = supportedABIVersions.map(String.init)
        guard let last = names.last, names.count > 1 else { return "version " + (names.first ?? "none") }
        return "versions " + names.dropLast().joined(separator: ", ") + " and " + last
    }

    private static func readList(_ list: UnsafePointer<iaa_plugin_list>?, path: String) throws(PluginLoadError) -> [PluginDescriptor] {
        guard let list else {
            throw PluginLoadError(.invalidDescriptor, "\(path): iaa_plugin_entry returned NULL",
                                  hint: "return a pointer to a static iaa_plugin_list")
        }
        // abi_version is the first field in every version, so it can be read before anything else.
        let version = list.pointee.abi_version
        guard supportedABIVersions.contains(version) else {
            throw PluginLoadError(.abiMismatch, "\(path) was built for plugin ABI version \(version); this engine loads \(supportedVersionsText)",
                                  hint: "rebuild the plugin against this engine's iaa_plugin.h (Sources/IAAPluginABI/include)")
        }
        let count = Int(list.pointee.count)
        guard count > 0 else {
            throw PluginLoadError(.invalidDescriptor, "\(path): the plugin list is empty (count 0)",
                                  hint: "list at least one descriptor")
        }
        guard let table = list.pointee.descriptors else {
            throw PluginLoadError(.invalidDescriptor, "\(path): descriptors is NULL but count is \(count)",
                                  hint: "point descriptors at a static array of descriptor pointers")
        }
        var result: [PluginDescriptor] = []
        for position in 0..<count {
            let descriptor = try PluginDescriptor.read(table[position], abiVersion: version, position: position, library: path)
            if result.contains(where: { $0.id == descriptor.id }) {
                throw PluginLoadError(.invalidDescriptor, "\(path): descriptor \(position): id \"\(descriptor.id)\" is used twice",
                                      hint: "give every descriptor of a library its own id")
            }
            result.append(descriptor)
        }
        return result
    }

    private static func lastError() -> String {
        dlerror().map { String(cString: $0) } ?? "no reason given"
    }
}

/// A weak reference to a loaded library, for ``PluginLibrary/load(path:)``'s table.
private struct WeakLibrary: @unchecked Sendable {
    weak var library: PluginLibrary?
}
