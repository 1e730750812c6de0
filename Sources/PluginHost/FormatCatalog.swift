import CPluginFormats
import Suggestions
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The installed LV2 and LADSPA plugins, scanned once per process and kept (lilv loads the LV2
/// world once; LADSPA libraries are opened once to read their labels). Control side.
///
/// Graphs name them as `lv2:URI`, or `ladspa:NAME` where NAME is a plugin's label (`amp_mono`),
/// its unique id (`1181`) or a library holding one plugin (`amp_1181`), or `ladspa:LIBRARY/LABEL`
/// (`ladspa:amp/amp_mono`, LIBRARY being a file name without `.so` or a path).
public enum FormatCatalog {
    /// One installed plugin, for listings and lookups.
    public struct Entry: Sendable, Hashable {
        public let format: FormatPlugin.Format
        /// What a graph writes after the prefix: the LV2 URI, or `LIBRARY/LABEL` for LADSPA.
        public let name: String
        public let title: String
        /// The LV2 class label, or empty.
        public let classLabel: String
        /// LADSPA: the library path, label and unique id.
        public let path: String?
        public let label: String?
        public let uniqueID: UInt?

        /// The graph's `plugin` value.
        public var reference: String { "\(format.rawValue):\(name)" }
    }

    /// The folders searched for LADSPA libraries: `LADSPA_PATH` first, then the usual ones.
    public static var ladspaFolders: [String] {
        let variable = getenv("LADSPA_PATH").map { String(cString: $0) }
        return PluginResolver.searchPath(from: variable)
            + ["/usr/local/lib/ladspa", "/usr/lib/ladspa", "/usr/lib/x86_64-linux-gnu/ladspa"]
    }

    private static let cache = Mutex<(lv2: [Entry]?, ladspa: [Entry]?, untrusted: [String])>((nil, nil, []))

    /// Every installed LV2 plugin, sorted by URI.
    public static func lv2() -> [Entry] {
        if let cached = cache.withLock({ $0.lv2 }) { return cached }
        final class Box { var entries: [Entry] = [] }
        let box = Box()
        iaa_lv2_each({ context, uri, name, classLabel in
            guard let context, let uri else { return }
            let box = Unmanaged<Box>.fromOpaque(context).takeUnretainedValue()
            box.entries.append(Entry(format: .lv2, name: String(cString: uri), title: name.map { String(cString: $0) } ?? "",
                                     classLabel: classLabel.map { String(cString: $0) } ?? "",
                                     path: nil, label: nil, uniqueID: nil))
        }, Unmanaged.passUnretained(box).toOpaque())
        let entries = box.entries.sorted { $0.name < $1.name }
        cache.withLock { $0.lv2 = entries }
        return entries
    }

    /// Every plugin of every LADSPA library in ``ladspaFolders`` (the first library of a name
    /// wins). Reading a LADSPA library means opening it, which runs its constructors in this
    /// process, so only libraries ``LibraryTrust`` trusts are read; the others are skipped and
    /// named by ``untrustedLADSPA()``.
    public static func ladspa() -> [Entry] {
        if let cached = cache.withLock({ $0.ladspa }) { return cached }
        final class Box { var entries: [Entry] = []; var path = "" }
        let box = Box()
        var seen: Set<String> = []
        var untrusted: [String] = []
        let trust = LibraryTrust.fromEnvironment()
        for folder in ladspaFolders {
            for path in PluginScan.libraries(at: folder) where path.hasSuffix(".so") {
                guard seen.insert(Self.libraryName(path)).inserted else { continue }
                guard trust.trusts(library: path) else {
                    untrusted.append(path)
                    continue
                }
                box.path = path
                _ = iaa_ladspa_each(path, { context, label, id, name in
                    guard let context, let label else { return }
                    let box = Unmanaged<Box>.fromOpaque(context).takeUnretainedValue()
                    let labelText = String(cString: label)
                    box.entries.append(Entry(format: .ladspa, name: FormatCatalog.libraryName(box.path) + "/" + labelText,
                                             title: name.map { String(cString: $0) } ?? "", classLabel: "",
                                             path: box.path, label: labelText, uniqueID: UInt(id)))
                }, Unmanaged.passUnretained(box).toOpaque())
            }
        }
        cache.withLock {
            $0.ladspa = box.entries
            $0.untrusted = untrusted
        }
        return box.entries
    }

    /// The LADSPA libraries on the search path that ``ladspa()`` did not read, being outside the
    /// folders the engine trusts.
    public static func untrustedLADSPA() -> [String] {
        _ = ladspa()
        return cache.withLock { $0.untrusted }
    }

    /// The refusal of a LADSPA library the engine may not open.
    static func untrustedLADSPAError(_ path: String) -> PluginLoadError {
        PluginLoadError(.notAPlugin, "the LADSPA library \(path) lies outside the folders only root writes; reading it would run its code inside the engine, so iaa does not open it",
                        hint: "install it under /usr/local/lib/ladspa, or add its folder to IAA_TRUSTED_PATH if you trust it")
    }

    /// `amp` for `/usr/lib/ladspa/amp.so`.
    static func libraryName(_ path: String) -> String {
        let file = path.split(separator: "/").last.map(String.init) ?? path
        return file.hasSuffix(".so") ? String(file.dropLast(3)) : file
    }

    /// Opens the plugin a graph's `lv2:`/`ladspa:` value names, with a did-you-mean when nothing matches.
    static func open(_ reference: String) throws(PluginLoadError) -> FormatPlugin {
        if reference.hasPrefix("lv2:") {
            let uri = String(reference.dropFirst(4))
            let uris = lv2().map(\.name)
            guard uris.contains(uri) else {
                let hint = Suggestion.closest(to: uri, in: uris).map { "did you mean \"lv2:\($0)\"?" }
                    ?? "list installed plugins with `iaa plugins --lv2`; install LV2 plugins from your distribution (swh-lv2, x42-plugins)"
                throw PluginLoadError(.unknownPlugin, "no installed LV2 plugin has the URI <\(uri)>", hint: hint)
            }
            return try FormatPlugin.openLV2(uri: uri, reference: reference)
        }
        let name = String(reference.dropFirst("ladspa:".count))
        let (path, label) = try locateLADSPA(name)
        return try FormatPlugin.openLADSPA(path: path, label: label, reference: reference)
    }

    /// The library and label `name` stands for (see the type's documentation).
    static func locateLADSPA(_ name: String) throws(PluginLoadError) -> (path: String, label: String) {
        let entries = ladspa()
        var matches: [Entry]
        if let slash = name.lastIndex(of: "/") {
            let library = String(name[..<slash])
            let label = String(name[name.index(after: slash)...])
            if library.hasPrefix("/") || library.hasSuffix(".so") {
                guard LibraryTrust.fromEnvironment().trusts(library: library) else { throw untrustedLADSPAError(library) }
                return (library, label)
            }
            matches = entries.filter { libraryName($0.path ?? "") == library && $0.label == label }
        } else {
            matches = entries.filter { $0.label == name || $0.uniqueID.map(String.init) == name }
            if matches.isEmpty {
                let inLibrary = entries.filter { libraryName($0.path ?? "") == name }
                if inLibrary.count == 1 { matches = inLibrary }
                if inLibrary.count > 1 {
                    throw PluginLoadError(.unknownPlugin, "LADSPA library \(name) holds \(inLibrary.count) plugins; name one",
                                          hint: "write one of: " + inLibrary.map { "\"\($0.reference)\"" }.joined(separator: ", "))
                }
            }
        }
        if matches.count > 1 {
            throw PluginLoadError(.unknownPlugin, "the LADSPA label \"\(name)\" is in \(matches.count) libraries",
                                  hint: "write one of: " + matches.map { "\"\($0.reference)\"" }.joined(separator: ", "))
        }
        guard let found = matches.first, let path = found.path, let label = found.label else {
            if let skipped = untrustedLADSPA().first(where: { libraryName($0) == name || name.hasPrefix(libraryName($0) + "/") }) {
                throw untrustedLADSPAError(skipped)
            }
            let names = entries.compactMap(\.label) + entries.map(\.name)
            let skipped = untrustedLADSPA()
            let unread = skipped.isEmpty ? "" : "; not read, being outside the trusted folders: " + skipped.joined(separator: ", ")
            let hint = (Suggestion.closest(to: name, in: names).map { "did you mean \"ladspa:\($0)\"?" }
                ?? "list installed plugins with `iaa plugins --ladspa`; iaa searches LADSPA_PATH and " + ladspaFolders.suffix(3).joined(separator: ", ")) + unread
            throw PluginLoadError(.unknownPlugin, "no installed LADSPA plugin is called \"\(name)\"", hint: hint)
        }
        return (path, label)
    }
}
