import NodeKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns a graph's `plugin` value into a node type by loading a library. Control side only.
///
/// - A value with a `/` or ending in `.so` is a path, relative to the graph file's folder.
/// - Any other value is a name looked up on the search path (`IAA_PLUGIN_PATH`, colon-separated),
///   as `lib<name>.so`, `<name>.so` and `<name>` in each folder, in that order.
/// - `#id` after either picks one descriptor of a library that holds several
///   (`plugins/libdemo.so#tremolo`).
///
/// - `lv2:URI` and `ladspa:NAME` name installed LV2 and LADSPA plugins (``FormatCatalog``).
///
/// Native plugins load only from these places, never from the library search path of the system.
///
/// With a ``Sandbox``, a native library that is not trusted (``LibraryTrust``) is never opened in
/// this process: a sandboxed child describes it (docs/isolation.md, "The describe child").
public struct PluginResolver: Sendable {
    /// How the engine learns an untrusted library's node types without running its code.
    public struct Sandbox: Sendable {
        /// Which libraries may be opened in this process.
        public let trust: LibraryTrust
        /// The description of the library at a path (absolute, a file), from a sandboxed child.
        public let describe: @Sendable (String) -> Result<LibraryDescription, PluginLoadError>

        public init(trust: LibraryTrust, describe: @escaping @Sendable (String) -> Result<LibraryDescription, PluginLoadError>) {
            self.trust = trust
            self.describe = describe
        }
    }

    /// Folders searched for bare names, in order.
    public let searchPath: [String]
    /// Nil: every native library is opened in this process (the isolated child, which is the
    /// sandbox; tests of the loader).
    public let sandbox: Sandbox?

    /// A resolver searching `searchPath` for bare names.
    public init(searchPath: [String], sandbox: Sandbox? = nil) {
        self.searchPath = searchPath
        self.sandbox = sandbox
    }

    /// The same resolver, describing untrusted libraries through `sandbox`.
    public func sandboxed(_ sandbox: Sandbox) -> PluginResolver {
        PluginResolver(searchPath: searchPath, sandbox: sandbox)
    }

    /// The library at `path` (a file): described by the sandbox when there is one and it does not
    /// trust the path, else loaded here.
    public func open(library path: String) throws(PluginLoadError) -> NativeLibrary {
        if let sandbox, !sandbox.trust.trusts(library: path) {
            return .described(try sandbox.describe(path).get())
        }
        return .loaded(try PluginLibrary.load(path: path))
    }

    /// A resolver searching `IAA_PLUGIN_PATH` (empty entries are skipped).
    public static func fromEnvironment() -> PluginResolver {
        PluginResolver(searchPath: searchPath(from: getenv("IAA_PLUGIN_PATH").map { String(cString: $0) }))
    }

    /// The folders of a colon-separated path list.
    public static func searchPath(from variable: String?) -> [String] {
        (variable ?? "").split(separator: ":").map(String.init).filter { !$0.isEmpty }
    }

    /// The node type for `plugin`, or why there is none. The type's id is `plugin` itself.
    public func resolve(_ plugin: String, graphDirectory: String) -> Result<NodeType, PluginLoadError> {
        if plugin.hasPrefix("lv2:") || plugin.hasPrefix("ladspa:") {
            do {
                return .success(try FormatCatalog.open(plugin).nodeType(id: plugin))
            } catch {
                return .failure(error)
            }
        }
        let (reference, selector) = Self.split(plugin)
        let library: NativeLibrary
        do {
            let path = try locate(reference, graphDirectory: graphDirectory)
            library = try open(library: path)
        } catch {
            return .failure(error)
        }
        let ids = library.descriptorIDs
        if let selector {
            guard let type = library.nodeType(selector, id: plugin) else {
                return .failure(PluginLoadError(.unknownPlugin, "\(library.path) has no node type \"\(selector)\"",
                                                hint: "its node types: " + ids.joined(separator: ", ")))
            }
            return .success(type)
        }
        guard ids.count == 1, let only = ids.first, let type = library.nodeType(only, id: plugin) else {
            let choices = ids.map { "\(reference)#\($0)" }
            return .failure(PluginLoadError(.unknownPlugin, "\(library.path) holds \(ids.count) node types; name one",
                                            hint: "write one of: " + choices.joined(separator: ", ")))
        }
        return .success(type)
    }

    /// Every file `reference` could name, in the order they are tried.
    public func candidates(_ reference: String, graphDirectory: String) -> [String] {
        if Self.isPath(reference) {
            if reference.hasPrefix("/") { return [reference] }
            // Always a path with a folder: dlopen searches the system's library folders for a bare
            // name like `libfuzz.so`, never the graph's folder.
            return [Self.absolute(graphDirectory.isEmpty ? reference : graphDirectory + "/" + reference)]
        }
        return searchPath.flatMap { folder in
            ["lib\(reference).so", "\(reference).so", reference].map { folder + "/" + $0 }
        }
    }

    /// The first candidate that is a file; otherwise a `pluginNotFound` naming every path tried.
    public func locate(_ reference: String, graphDirectory: String) throws(PluginLoadError) -> String {
        let paths = candidates(reference, graphDirectory: graphDirectory)
        if let found = paths.first(where: Self.isFile) { return found }
        if paths.isEmpty {
            throw PluginLoadError(.pluginNotFound, "plugin \"\(reference)\" not found: IAA_PLUGIN_PATH is empty, so no folder was searched",
                                  hint: "write a path relative to the graph file (\"./lib\(reference).so\"), or set IAA_PLUGIN_PATH to the folder holding lib\(reference).so")
        }
        let hint = Self.isPath(reference)
            ? "build the plugin (its build.sh) or fix the path; it is relative to the graph file's folder"
            : "build the plugin, or add its folder to IAA_PLUGIN_PATH (searched: \(searchPath.joined(separator: ":")))"
        throw PluginLoadError(.pluginNotFound, "plugin \"\(reference)\" not found; searched: " + paths.joined(separator: ", "),
                              hint: hint)
    }

    /// `path` made absolute against the current folder, with `./` segments removed.
    public static func absolute(_ path: String) -> String {
        var full = path
        if !path.hasPrefix("/") {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let folder = getcwd(&buffer, buffer.count).map { _ in String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) } ?? "."
            full = folder + "/" + path
        }
        let parts = full.split(separator: "/").filter { $0 != "." }
        return "/" + parts.joined(separator: "/")
    }

    static func isPath(_ reference: String) -> Bool {
        reference.contains("/") || reference.hasSuffix(".so")
    }

    /// A `plugin` value's library reference and its `#id` selector, if any.
    public static func split(_ plugin: String) -> (reference: String, selector: String?) {
        guard let mark = plugin.lastIndex(of: "#") else { return (plugin, nil) }
        return (String(plugin[..<mark]), String(plugin[plugin.index(after: mark)...]))
    }

    static func isFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) != S_IFDIR
    }
}
