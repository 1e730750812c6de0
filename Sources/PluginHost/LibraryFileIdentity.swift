#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which build of a library file the engine loaded: device, inode, size and modification time.
///
/// A rebuild changes at least one of them (a linker writes a new inode, `cp` over the file changes
/// its size or mtime), so comparing the identity stored at load time with the file's identity now
/// tells `apply`, `iaa reload` and `iaa run --watch` whether the code on disk is new.
public struct LibraryFileIdentity: Sendable, Hashable, CustomStringConvertible {
    public let device: UInt64
    public let inode: UInt64
    public let size: Int64
    public let modified: timespec

    /// The identity of the file at `path` now, or nil when it cannot be read.
    public init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = info.st_mtim
    }

    public var description: String {
        "dev \(device) inode \(inode) size \(size) mtime \(modified.tv_sec).\(modified.tv_nsec)"
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.device == rhs.device && lhs.inode == rhs.inode && lhs.size == rhs.size
            && lhs.modified.tv_sec == rhs.modified.tv_sec && lhs.modified.tv_nsec == rhs.modified.tv_nsec
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(device)
        hasher.combine(inode)
        hasher.combine(size)
        hasher.combine(modified.tv_sec)
        hasher.combine(modified.tv_nsec)
    }
}
