import Glibc

/// One acknowledged change as the journal holds it: its number, what kind of record it is, and
/// the record itself (JSON; the engine reads and writes it, the store only keeps it).
public struct JournalRecord: Sendable, Equatable {
    public let seq: Int64
    public let kind: String
    public let body: String

    public init(seq: Int64, kind: String, body: String) {
        self.seq = seq
        self.kind = kind
        self.body = body
    }
}

/// The changes acknowledged since the snapshot, in an SQLite database in write-ahead-log mode with
/// `synchronous=FULL`: an append returns once the log is on disk (`fsync`), so a record survives a
/// crash of the engine and a power cut. SQLite checksums the log's frames, so a record torn by a
/// power failure is one whose commit never returned. The log is folded into the database every
/// 64 pages and cut back to 256 KiB, so a small state folder holds it.
final class StateJournal {
    /// The schema version this iaa writes (`PRAGMA user_version`); a higher one is a newer iaa's.
    static let version: Int64 = 1

    private let database: SQLiteConnection
    /// The number of the last record, or of the snapshot when the journal is empty: numbers go on
    /// from the snapshot's even when the journal was lost and begun again.
    private(set) var lastSeq: Int64

    var path: String { database.path }

    /// Opens the journal at `path`, creating it when missing, and checks it.
    init(path: String, after snapshotSeq: Int64) throws(StateStoreError) {
        Self.makePrivate(path)
        database = try SQLiteConnection(path: path)
        let version = try database.rows("PRAGMA user_version").first?.first?.integer ?? 0
        guard version <= Self.version else {
            throw StateStoreError(.newer, "\(path) was written by a newer iaa (journal version \(version); this one reads \(Self.version))")
        }
        try database.execute("""
            PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;
            PRAGMA wal_autocheckpoint=64; PRAGMA journal_size_limit=262144;
            CREATE TABLE IF NOT EXISTS journal(seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, body TEXT NOT NULL, written REAL NOT NULL);
            PRAGMA user_version=\(Self.version);
            """)
        // Reads every page once: a truncated or overwritten file is found now, not mid-request.
        let check = try database.rows("PRAGMA quick_check").compactMap { $0.first?.text }
        guard check == ["ok"] else {
            throw StateStoreError(.damaged, "\(path): SQLite's check found damage: \(check.prefix(3).joined(separator: "; "))")
        }
        let last = try database.rows("SELECT max(seq) FROM journal").first?.first?.integer ?? 0
        lastSeq = max(last, snapshotSeq)
    }

    /// The journal is as private as the snapshot (0600): SQLite creates a database 0644 and its
    /// `-wal` and `-shm` with the database's mode, so the file is made 0600 before SQLite opens it,
    /// and files an earlier iaa made 0644 are made 0600. A link is neither followed nor changed.
    private static func makePrivate(_ path: String) {
        let created = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if created >= 0 {
            close(created)
            return
        }
        for file in [path, path + "-wal", path + "-shm"] {
            var info = stat()
            guard lstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid(), info.st_mode & 0o077 != 0 else { continue }
            chmod(file, 0o600)
        }
    }

    /// Every record after `seq`, in order.
    func records(after seq: Int64) throws(StateStoreError) -> [JournalRecord] {
        try database.rows("SELECT seq, kind, body FROM journal WHERE seq > ? ORDER BY seq", [.integer(seq)]).map { row in
            JournalRecord(seq: row[0].integer ?? 0, kind: row[1].text ?? "", body: row[2].text ?? "")
        }
    }

    /// Appends `entries` in one transaction; returns once they are on disk, with the last one's
    /// number. On failure nothing was appended.
    @discardableResult
    func append(_ entries: [(kind: String, body: String)], at time: Double) throws(StateStoreError) -> Int64 {
        try database.execute("BEGIN IMMEDIATE")
        var seq = lastSeq
        do {
            for entry in entries {
                seq += 1
                try database.rows("INSERT INTO journal(seq, kind, body, written) VALUES (?, ?, ?, ?)",
                                  [.integer(seq), .text(entry.kind), .text(entry.body), .real(time)])
            }
            try database.execute("COMMIT")
        } catch {
            try? database.execute("ROLLBACK")
            throw error
        }
        lastSeq = seq
        return seq
    }

    /// Deletes the records a snapshot now holds (through `seq`), and lets SQLite fold its log back
    /// into the database so the log stops growing.
    func trim(through seq: Int64) throws(StateStoreError) {
        try database.rows("DELETE FROM journal WHERE seq <= ?", [.integer(seq)])
        try database.execute("PRAGMA wal_checkpoint(PASSIVE)")
    }
}
