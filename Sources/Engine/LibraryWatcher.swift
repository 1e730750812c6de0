import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `iaa run --watch`: watches the folders of the loaded plugin libraries with inotify and, once a
/// loaded library has been written (`IN_CLOSE_WRITE`) or moved into place (`IN_MOVED_TO`) and
/// nothing more happened to it for `settle` seconds, calls `changed` on the control queue.
///
/// Folders, not files: a linker replaces the file (a new inode), which a watch on the old file
/// would never see. The debounce lets a build that writes the file in several steps finish; the
/// engine then compares file identities, so an event that changed nothing reloads nothing.
final class LibraryWatcher: @unchecked Sendable {
    private let descriptor: Int32
    private let queue: DispatchQueue
    private let source: DispatchSourceRead
    private let settle: Double
    private let changed: () -> Void
    /// Watch descriptor by folder, and the library file names watched in each folder.
    private var watches: [String: Int32] = [:]
    private var namesByWatch: [Int32: Set<String>] = [:]
    /// Bumped by every relevant event; only the last one's timer reloads.
    private var generation = 0

    /// Opens the inotify instance; fails with the reason when the system refuses one.
    init(queue: DispatchQueue, settle: Double = 0.2, changed: @escaping () -> Void) throws {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else {
            throw EngineError(code: .io, message: "cannot watch plugin libraries: inotify_init1: \(String(cString: strerror(errno)))",
                              hint: "raise fs.inotify.max_user_instances, or run without --watch")
        }
        self.queue = queue
        self.settle = settle
        self.changed = changed
        source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        source.setEventHandler { [unowned self] in readEvents() }
        source.setCancelHandler { [descriptor] in close(descriptor) }
        source.resume()
    }

    deinit {
        source.cancel()
    }

    /// Watches the folders of `libraries` (paths as loaded) and stops watching the others;
    /// returns a warning for each folder that cannot be watched. On the control queue.
    func watch(libraries: [String]) -> [String] {
        var wanted: [String: Set<String>] = [:]
        for path in libraries {
            let slash = path.lastIndex(of: "/")
            let folder = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
            let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
            wanted[folder, default: []].insert(name)
        }
        for (folder, watch) in watches where wanted[folder] == nil {
            inotify_rm_watch(descriptor, watch)
            watches[folder] = nil
            namesByWatch[watch] = nil
        }
        var warnings: [String] = []
        for (folder, names) in wanted {
            let watch = watches[folder] ?? inotify_add_watch(descriptor, folder, UInt32(IN_CLOSE_WRITE | IN_MOVED_TO))
            guard watch >= 0 else {
                warnings.append("cannot watch \(folder) for rebuilt plugins: \(String(cString: strerror(errno)))")
                continue
            }
            watches[folder] = watch
            namesByWatch[watch] = names
        }
        return warnings
    }

    /// Reads every pending event; a write to a watched library (re)starts the settle timer.
    private func readEvents() {
        let size = 64 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<inotify_event>.alignment)
        defer { buffer.deallocate() }
        var relevant = false
        while true {
            let count = read(descriptor, buffer, size)
            guard count > 0 else { break }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                let nameStart = buffer + offset + MemoryLayout<inotify_event>.size
                let name = event.len > 0 ? String(cString: nameStart.assumingMemoryBound(to: CChar.self)) : ""
                if namesByWatch[event.wd]?.contains(name) == true { relevant = true }
                offset += MemoryLayout<inotify_event>.size + Int(event.len)
            }
        }
        guard relevant else { return }
        generation += 1
        let mine = generation
        queue.asyncAfter(deadline: .now() + settle) { [weak self] in
            guard let self, self.generation == mine else { return }
            self.changed()
        }
    }
}
