import Foundation

/// One engine's kept state (docs/state.md) in its ``StatePlace``: `NAME.snapshot.json`, the whole
/// state at one point, and `NAME.journal.sqlite`, every change acknowledged since. Opening never
/// fails: what cannot be read is moved aside and said, and while nothing can be written
/// `unwritable` says why (the engine then refuses changes rather than acknowledge what it cannot
/// keep).
public final class StateKeeper {
    public let folder: String
    /// The files' name before `.snapshot.json` and `.journal.sqlite`.
    public let name: String
    private var journal: StateJournal?
    /// The last record the snapshot on disk includes; nil while there is no snapshot.
    private(set) var snapshotSeq: Int64?
    /// Why changes cannot be kept now; nil while they can.
    public private(set) var unwritable: String?
    /// Why the folder is not trusted with the state (``StateFiles/untrustedFolder(_:)``): then
    /// nothing in it is read or written, for as long as the engine runs.
    private var untrusted: String?

    public var snapshotPath: String { folder + "/" + name + ".snapshot.json" }
    public var journalPath: String { folder + "/" + name + ".journal.sqlite" }
    /// The number of the last change kept.
    public var lastSeq: Int64 { journal?.lastSeq ?? snapshotSeq ?? 0 }
    /// Changes kept since the snapshot.
    public var recordsSinceSnapshot: Int64 { lastSeq - (snapshotSeq ?? 0) }

    /// What opening found: the snapshot and the records after it, and what had to be discarded.
    public struct Opened {
        public let keeper: StateKeeper
        public let snapshot: StateSnapshot?
        public let records: [JournalRecord]
        public let discarded: [String]
    }

    /// `$XDG_STATE_HOME/iaa`, or `~/.local/state/iaa`.
    public static func defaultFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let state = environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()) + "/.local/state"
        return state + "/iaa"
    }

    private init(folder: String, name: String) {
        self.folder = folder
        self.name = name
    }

    /// Opens the state kept in `place` (its folder created 0700 when missing).
    public static func open(_ place: StatePlace, fresh: Bool) -> Opened {
        open(folder: place.folder, name: place.name, fresh: fresh)
    }

    /// Opens the state kept as `name` in `folder` (created 0700 when missing). With `fresh`, what
    /// was kept is deleted and nothing is read.
    public static func open(folder: String, name: String, fresh: Bool) -> Opened {
        let keeper = StateKeeper(folder: folder, name: name)
        var discarded: [String] = []
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            keeper.unwritable = "the state folder \(folder) cannot be created: \(error.localizedDescription)"
        }
        if keeper.unwritable == nil, let why = StateFiles.untrustedFolder(folder) {
            let refusal = "the state folder is not trusted: \(why); nothing kept there is read or written (give --state-folder a folder of your own, or fix its owner and mode)"
            keeper.untrusted = refusal
            keeper.unwritable = refusal
            return Opened(keeper: keeper, snapshot: nil, records: [], discarded: [refusal])
        }
        if fresh {
            for path in keeper.journalFiles + [keeper.snapshotPath] { unlink(path) }
        }
        var snapshot: StateSnapshot?
        do {
            snapshot = try StateSnapshot.read(keeper.snapshotPath)
        } catch {
            // Without its snapshot the journal's records have nothing to apply to.
            let suffix = error.kind == .newer ? "newer" : "damaged"
            discarded.append("\(error.message); set aside as \(keeper.setAside(keeper.snapshotPath, suffix)), with its journal")
            for path in keeper.journalFiles { _ = keeper.setAside(path, suffix) }
        }
        keeper.snapshotSeq = snapshot?.seq
        var records: [JournalRecord] = []
        do {
            let journal = try keeper.openJournal(after: snapshot?.seq ?? 0, discarded: &discarded)
            records = try journal.records(after: snapshot?.seq ?? 0)
        } catch {
            discarded.append("the journal could not be read (\(error.message)); the changes after the snapshot are not restored")
        }
        if snapshot == nil, !records.isEmpty {
            discarded.append("\(records.count) journal records had no snapshot to apply to")
            records = []
        }
        return Opened(keeper: keeper, snapshot: snapshot, records: records, discarded: discarded)
    }

    /// Opens the journal for writing; a damaged one is set aside and begun again, and one that
    /// cannot be written is opened to be read only, with `unwritable` saying why.
    private func openJournal(after seq: Int64, discarded: inout [String]) throws(StateStoreError) -> StateJournal {
        // What SQLite would open (and a FIFO would hang it there): regular files of ours only.
        for path in journalFiles {
            guard case .refused(let why) = StateFiles.entry(path, limit: StateFiles.journalLimit) else { continue }
            let aside = setAside(journalPath, "damaged")
            for other in journalFiles.dropFirst() { _ = setAside(other, "damaged") }
            discarded.append("\(why); the changes after the snapshot are discarded, the journal set aside as \(aside)")
            break
        }
        do {
            let opened = try StateJournal(path: journalPath, after: seq)
            journal = opened
            unwritable = nil
            return opened
        } catch where error.kind == .damaged || error.kind == .newer {
            let suffix = error.kind == .newer ? "newer" : "damaged"
            let aside = setAside(journalPath, suffix)
            for path in journalFiles.dropFirst() { _ = setAside(path, suffix) }
            discarded.append("\(error.message); the changes after the snapshot are discarded, the journal set aside as \(aside)")
            let opened = try StateJournal(path: journalPath, after: seq)
            journal = opened
            unwritable = nil
            return opened
        } catch {
            unwritable = "changes cannot be kept: \(error.message)"
            return try readOnlyCopy(after: seq)
        }
    }

    /// The journal as it is, from a copy: SQLite cannot open a log it may not write beside, and a
    /// read-only folder may still hold the log of an engine that was killed. The copy is made in
    /// a folder of its own that `mkdtemp` creates (0700, a name no one can foresee), as new
    /// files of this user's, 0600 whatever the originals' mode (SQLite could not open a copy of
    /// a 0444 journal), and removed once read.
    private func readOnlyCopy(after seq: Int64) throws(StateStoreError) -> StateJournal {
        var template = Array((NSTemporaryDirectory() + "iaa-journal-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw StateStoreError(.readOnly, "\(journalPath): no private folder for its copy: \(String(cString: strerror(errno)))")
        }
        let copy = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        for path in journalFiles {
            guard let data = try StateFiles.read(path, limit: StateFiles.journalLimit) else { continue }
            try StateFiles.create(copy + "/" + (path as NSString).lastPathComponent, data)
        }
        return try StateJournal(path: copy + "/" + (journalPath as NSString).lastPathComponent, after: seq)
    }

    /// Keeps `entries` (one transaction, on disk when it returns); the snapshot must exist first.
    public func append(_ entries: [(kind: String, body: String)], at time: Double) throws(StateStoreError) {
        if let untrusted { throw StateStoreError(.readOnly, untrusted) }
        guard snapshotSeq != nil else { throw StateStoreError(.other, "no snapshot to keep changes against (\(unwritable ?? "not written yet"))") }
        if journal == nil || unwritable != nil {
            var ignored: [String] = []
            _ = try? openJournal(after: snapshotSeq ?? 0, discarded: &ignored)
        }
        guard let journal, unwritable == nil else {
            throw StateStoreError(.readOnly, unwritable ?? "changes cannot be kept: \(journalPath) is not open")
        }
        do {
            try journal.append(entries, at: time)
        } catch {
            throw StateStoreError(error.kind, "changes cannot be kept: \(error.message)")
        }
    }

    /// Replaces the snapshot with `graph` (and what goes with it), including every change kept so
    /// far, then deletes those changes from the journal.
    public func writeSnapshot(source: String, sourceText: String, graph: String, held: [[String]]) throws(StateStoreError) {
        if let untrusted { throw StateStoreError(.readOnly, untrusted) }
        let seq = lastSeq
        do {
            try StateSnapshot(seq: seq, source: source, sourceText: sourceText, graph: graph, held: held).write(to: snapshotPath)
        } catch {
            throw StateStoreError(error.kind, "changes cannot be kept: \(error.message)")
        }
        snapshotSeq = seq
        if journal == nil || unwritable != nil {
            var ignored: [String] = []
            _ = try? openJournal(after: seq, discarded: &ignored)
        }
        // Records left behind are harmless: every reader skips those the snapshot includes.
        try? journal?.trim(through: seq)
    }

    /// The journal and SQLite's log and index beside it.
    private var journalFiles: [String] { [journalPath, journalPath + "-wal", journalPath + "-shm"] }

    /// Renames `path` to `path.SUFFIX` (or `.SUFFIX-2`, …, never over an earlier one) and returns
    /// the new name.
    private func setAside(_ path: String, _ suffix: String) -> String {
        var target = "\(path).\(suffix)"
        var number = 2
        var info = stat()
        // lstat: a link left there counts as taken, even one that points nowhere.
        while lstat(target, &info) == 0 {
            target = "\(path).\(suffix)-\(number)"
            number += 1
        }
        rename(path, target)
        return target
    }
}
