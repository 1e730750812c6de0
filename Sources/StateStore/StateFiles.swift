import FileTrust
import Foundation

/// What the engine trusts of its state folder and the files in it (docs/state.md, "Who may
/// write there"). Whoever may write the kept state decides what the engine runs on its next
/// start, plugins included, so the folder is held to the grants file's rule (no one else can
/// reach into it then), and a file is read only when it is a regular file of this user's: never
/// through a link, never a FIFO (opening one waits for a writer forever), never past a bound.
enum StateFiles {
    /// The most a snapshot may be: a graph of 4,000 apps keeps well under 4 MB.
    static let snapshotLimit = 64 << 20
    /// The most the journal and SQLite's files beside it may be: a snapshot every 256 records
    /// and the log cut back to 256 KiB keep them under 1 MB.
    static let journalLimit = 256 << 20

    /// Why `folder` cannot be trusted with the engine's state, or nil (``OwnershipRule``; a file
    /// someone else put in a sticky folder is refused by ``entry(_:limit:)`` as not this user's).
    static func untrustedFolder(_ folder: String) -> String? {
        guard let resolved = realpath(folder, nil) else { return nil }
        let path = String(cString: resolved)
        free(resolved)
        switch OwnershipRule.problem(path, isFile: false) {
        case nil, .unreadable: return nil
        case .owner(let owned, let uid):
            return "\(owned) is owned by uid \(uid), not by this user (uid \(geteuid())) or root: whoever owns it decides what the engine runs at its next start"
        case .mode(let writable, let mode):
            return "\(writable) has mode \(OwnershipRule.octal(mode)): group or others may replace what is kept there"
        }
    }

    /// What is at `path`, looked at without following a link.
    enum Entry: Equatable {
        case none
        case file(size: Int)
        /// Something not to read, and why.
        case refused(String)
    }

    static func entry(_ path: String, limit: Int) -> Entry {
        var info = stat()
        guard lstat(path, &info) == 0 else { return errno == ENOENT ? .none : .refused("\(path): \(String(cString: strerror(errno)))") }
        return check(path, info, limit: limit)
    }

    private static func check(_ path: String, _ info: stat, limit: Int) -> Entry {
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFLNK: return .refused("\(path) is a symbolic link, which the engine does not follow in its state folder")
        case S_IFIFO: return .refused("\(path) is a FIFO, not a file")
        default: return .refused("\(path) is not a regular file")
        }
        if info.st_uid != geteuid() { return .refused("\(path) is owned by uid \(info.st_uid), not by this user") }
        if Int(info.st_size) > limit { return .refused("\(path) is \(info.st_size) bytes, more than the \(limit >> 20) MiB kept state ever needs") }
        return .file(size: Int(info.st_size))
    }

    /// The bytes of the regular file at `path`, of at most `limit`; nil when there is none.
    /// Opened without following a link and without waiting (a FIFO put there in between is
    /// refused by the check of what was opened).
    static func read(_ path: String, limit: Int) throws(StateStoreError) -> Data? {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            if errno == ELOOP { throw StateStoreError(.damaged, "\(path) is a symbolic link, which the engine does not follow in its state folder") }
            throw StateStoreError(.readOnly, "\(path): cannot be read: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw StateStoreError(.readOnly, "\(path): \(String(cString: strerror(errno)))") }
        if case .refused(let why) = check(path, info, limit: limit) { throw StateStoreError(.damaged, why) }
        var data = Data(count: Int(info.st_size))
        var filled = 0
        let failed: Int32 = data.withUnsafeMutableBytes { buffer in
            while filled < buffer.count {
                let got = Foundation.read(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
                if got < 0 { if errno == EINTR { continue }; return errno }
                if got == 0 { break }
                filled += got
            }
            return 0
        }
        guard failed == 0 else { throw StateStoreError(.readOnly, "\(path): cannot be read: \(String(cString: strerror(failed)))") }
        return data.prefix(filled)
    }

    /// Writes `data` to a new file at `path`, 0600, failing rather than following a link or
    /// reusing what is there.
    static func create(_ path: String, _ data: Data) throws(StateStoreError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw StateStoreError(.readOnly, "\(path): cannot create: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let failed = writeAll(descriptor, data)
        guard failed == 0 else { throw StateStoreError(.readOnly, "\(path): cannot write: \(String(cString: strerror(failed)))") }
    }

    /// Writes all of `data` to `descriptor`, again after an interruption; the `errno` of a
    /// failure, or 0.
    static func writeAll(_ descriptor: Int32, _ data: Data) -> Int32 {
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 { if errno == EINTR { continue }; return errno }
                offset += written
            }
            return 0
        }
    }
}
