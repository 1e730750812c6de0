#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds plugin libraries for listings (`iaa plugins`). Control side only.
public enum PluginScan {
    /// What was found at one library path: the loaded library, or why it is not a usable plugin.
    public struct Entry: Sendable {
        /// The library's path.
        public let path: String
        /// The library, or its load error.
        public let result: Result<NativeLibrary, PluginLoadError>
    }

    /// Opens every library named by `paths` as `resolver` does (an untrusted one is described by
    /// a sandboxed child when the resolver has a sandbox): a file as is, a folder contributes its
    /// `*.so` files in name order. A path that does not exist gives a `pluginNotFound` entry.
    public static func scan(_ paths: [String], resolver: PluginResolver) -> [Entry] {
        var seen: Set<String> = []
        var result: [Entry] = []
        for path in paths {
            for file in libraries(at: path) where seen.insert(file).inserted {
                guard PluginResolver.isFile(file) else {
                    result.append(Entry(path: file, result: .failure(PluginLoadError(.pluginNotFound, "\(file) does not exist"))))
                    continue
                }
                do {
                    result.append(Entry(path: file, result: .success(try resolver.open(library: file))))
                } catch {
                    result.append(Entry(path: file, result: .failure(error)))
                }
            }
        }
        return result
    }

    /// `path` itself, or the `*.so` files in it when it is a folder.
    static func libraries(at path: String) -> [String] {
        guard let directory = opendir(path) else { return [path] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasSuffix(".so") { names.append(name) }
        }
        let folder = path.hasSuffix("/") ? String(path.dropLast()) : path
        return names.sorted().map { folder + "/" + $0 }
    }
}
