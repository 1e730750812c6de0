import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Copies a plugin library to a private file the engine then `dlopen`s, so a rebuilt library at
/// the same path can be loaded while the old build still runs.
///
/// Why a copy: `dlopen` returns the already-loaded object for a path it has seen (and for a file
/// whose device and inode it has mapped), so opening the rebuilt file by its own path would hand
/// back the old code. Each copy has a name never used before in this process (pid plus a counter,
/// created with `O_EXCL`), so every load is a fresh object; the old build is `dlclose`d when the
/// last node and plan holding its ``PluginLibrary`` are gone. The copy is unlinked as soon as it
/// is mapped, so nothing is left on disk, and a library rewritten in place (`cp new.so lib.so`)
/// cannot change the pages the audio thread is running. The cost: `$ORIGIN` in the plugin's
/// run path means the temporary folder, so a plugin must not find sibling libraries that way.
enum LibraryCopy {
    private static let counter = Atomic<Int>(0)

    /// Copies `path` to a new private file; returns its path and the identity of the bytes copied.
    static func make(of path: String) throws(PluginLoadError) -> (copy: String, identity: LibraryFileIdentity) {
        let source = open(path, O_RDONLY | O_CLOEXEC)
        guard source >= 0 else {
            throw PluginLoadError(.notAPlugin, "\(path) could not be read: \(String(cString: strerror(errno)))",
                                  hint: "check the file's permissions")
        }
        defer { close(source) }
        var info = stat()
        guard fstat(source, &info) == 0 else {
            throw PluginLoadError(.notAPlugin, "\(path) could not be read: \(String(cString: strerror(errno)))")
        }
        let (copy, target) = try create(for: path)
        defer { close(target) }
        guard transfer(from: source, to: target) else {
            let reason = String(cString: strerror(errno))
            unlink(copy)
            throw PluginLoadError(.notAPlugin, "\(path) could not be copied to \(copy) for loading: \(reason)",
                                  hint: "is the temporary folder ($TMPDIR, else /tmp) writable and not full?")
        }
        return (copy, LibraryFileIdentity(info))
    }

    /// Where the copies go: `$TMPDIR`, else `/tmp`.
    static var folder: String {
        getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    }

    /// True when `folder` is on a file system mounted `noexec`, where no library can be mapped.
    static var folderIsNoExec: Bool {
        // ST_NOEXEC (8 in <sys/statvfs.h>) is declared only with _GNU_SOURCE, which Swift's Glibc lacks.
        let noExec: UInt = 8
        var info = statvfs()
        return statvfs(folder, &info) == 0 && (info.f_flag & noExec) != 0
    }

    /// A new file, readable and executable only by us, under a name this process never used.
    private static func create(for path: String) throws(PluginLoadError) -> (String, Int32) {
        let folder = Self.folder
        let base = path.split(separator: "/").last.map(String.init) ?? "plugin.so"
        for _ in 0..<100 {
            let name = "\(folder)/iaa-plugin-\(getpid())-\(nextNumber())-\(base)"
            let fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o700)
            if fd >= 0 { return (name, fd) }
            guard errno == EEXIST else {
                throw PluginLoadError(.notAPlugin, "cannot create \(name) to load \(path): \(String(cString: strerror(errno)))",
                                      hint: "set TMPDIR to a writable folder")
            }
        }
        throw PluginLoadError(.notAPlugin, "cannot create a private copy of \(path) in \(folder)")
    }

    private static func nextNumber() -> Int {
        counter.add(1, ordering: .relaxed).newValue
    }

    private static func transfer(from source: Int32, to target: Int32) -> Bool {
        let size = 1 << 16
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(source, buffer, size)
            if count == 0 { return true }
            if count < 0 { if errno == EINTR { continue }; return false }
            var written = 0
            while written < count {
                let step = write(target, buffer + written, count - written)
                if step < 0 { if errno == EINTR { continue }; return false }
                written += step
            }
        }
    }
}
