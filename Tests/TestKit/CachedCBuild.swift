import Foundation

/// A C build the tests repeat (a test plugin for every engine a suite starts, the real-time
/// counter for every take) done once: kept under the package's `.build`, named by what went into
/// it (`cc`'s arguments, the text of the files among them and the plugin ABI's header), so later
/// tests and later runs of every lane use it too, and a changed source or header builds anew.
public enum CachedCBuild {
    /// The reason `cc` gave for not building it.
    public struct Failed: Error, CustomStringConvertible {
        public let description: String
    }

    /// The kept build of `cc ARGUMENTS -o NAME`, built first if there is none.
    public static func build(_ arguments: [String], name: String) throws -> String {
        let folder = Repository.path(".build/test-c-builds")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let kept = folder + "/" + key(arguments) + "-" + name
        if !FileManager.default.fileExists(atPath: kept) {
            // Built beside its final name and renamed onto it: lanes building the same one at
            // once each rename a whole file.
            let partial = kept + ".\(getpid()).partial"
            let result = try runCommand("cc", arguments + ["-o", partial])
            guard result.status == 0 else { throw Failed(description: "cc failed:\n\(result.stderr)") }
            guard rename(partial, kept) == 0 else { throw Failed(description: "could not keep \(partial): errno \(errno)") }
        }
        return kept
    }

    /// `tools/rt-counter.c`, the library that counts allocations and retains on the audio thread.
    public static func realtimeCounter() throws -> String {
        try build(["-O2", "-shared", "-fPIC", Repository.path("tools/rt-counter.c"), "-ldl"], name: "librtcounter.so")
    }

    /// A plugin library at `output` (`…/libNAME.so`) from C `source`, written beside it as
    /// `NAME.c`, built against the plugin ABI's header as docs/plugins.md builds one.
    public static func plugin(_ source: String, output: String) throws {
        let url = URL(fileURLWithPath: output)
        let library = url.deletingPathExtension().lastPathComponent
        let name = library.hasPrefix("lib") ? String(library.dropFirst(3)) : library
        let file = url.deletingLastPathComponent().appendingPathComponent(name + ".c").path
        try source.write(toFile: file, atomically: true, encoding: .utf8)
        try build(["-std=c99", "-O2", "-shared", "-fPIC", "-I", Repository.path("Sources/IAAPluginABI/include"), file, "-lm"],
                  output: output)
    }

    /// A copy of the kept build at `output` (a new file, as the linker writes one).
    public static func build(_ arguments: [String], output: String) throws {
        let kept = try build(arguments, name: URL(fileURLWithPath: output).lastPathComponent)
        try? FileManager.default.removeItem(atPath: output)
        try FileManager.default.copyItem(atPath: kept, toPath: output)
    }

    /// FNV-1a over the arguments (the text of one that names a file rather than its path, which
    /// may be a test's own folder) and the plugin ABI's header.
    static func key(_ arguments: [String]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func add(_ bytes: some Sequence<UInt8>) {
            for byte in bytes {
                hash ^= UInt64(byte)
                hash &*= 0x100_0000_01b3
            }
            // A separator, so that moving bytes from one argument to the next changes the key.
            hash ^= 0xff
            hash &*= 0x100_0000_01b3
        }
        for argument in arguments + [Repository.path("Sources/IAAPluginABI/include/iaa_plugin.h")] {
            if let contents = FileManager.default.contents(atPath: argument) { add(contents) } else { add(argument.utf8) }
        }
        return String(hash, radix: 16)
    }
}
