import Engine
import Foundation
import PluginHost

/// What an isolated child may read while it loads its plugin (docs/isolation.md, "Least
/// privilege"): the loader's folders and cache, the folders of the shared libraries this process
/// already maps (the Swift runtime, wherever its toolchain lives), and what the plugin's kind
/// reads: the LV2 or LADSPA search path, or a native plugin's library file itself (not its
/// folder, which may be a home folder). Nothing else, and nothing to write.
enum LoadPhasePaths {
    /// Where the dynamic loader finds a plugin's dependencies.
    static let systemLibraries = ["/usr/lib", "/lib", "/usr/lib64", "/lib64", "/usr/local/lib", "/etc/ld.so.cache"]

    static func readable(plugin: String, directory: String) -> [String] {
        var paths = systemLibraries
        for folder in mappedLibraryFolders() where !paths.contains(where: { folder == $0 || folder.hasPrefix($0 + "/") }) {
            paths.append(folder)
        }
        if plugin.hasPrefix("lv2:") {
            paths += lv2Folders()
        } else if plugin.hasPrefix("ladspa:") {
            paths += FormatCatalog.ladspaFolders
        } else if !plugin.hasPrefix("builtin:") {
            let reference = PluginResolver.split(plugin).reference
            paths += PluginResolver.fromEnvironment().candidates(reference, graphDirectory: directory)
        }
        return paths
    }

    /// lilv's search path: `LV2_PATH`, else its default for Linux.
    static func lv2Folders() -> [String] {
        let home = ProcessInfo.processInfo.environment["HOME"] ?? ""
        let variable = ProcessInfo.processInfo.environment["LV2_PATH"]
            ?? (home.isEmpty ? "" : home + "/.lv2:") + "/usr/local/lib/lv2:/usr/lib/lv2"
        return PluginResolver.searchPath(from: variable).map { $0.hasPrefix("~/") ? home + $0.dropFirst() : $0 }
    }

    /// The folders of the shared objects mapped now (from /proc/self/maps), not the executable's.
    static func mappedLibraryFolders() -> [String] {
        guard let maps = ProcFile.read("/proc/self/maps") else { return [] }
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        var folders: [String] = []
        for line in maps.split(separator: "\n") {
            guard let slash = line.firstIndex(of: "/") else { continue }
            let path = String(line[slash...])
            guard path != executable, path.contains(".so"), let end = path.lastIndex(of: "/") else { continue }
            let folder = String(path[..<end])
            if !folder.isEmpty && !folders.contains(folder) { folders.append(folder) }
        }
        return folders
    }
}
