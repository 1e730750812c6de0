import CSQLite

/// A value bound to, or read from, an SQL statement.
public enum SQLiteValue: Sendable, Equatable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case null

    public var integer: Int64? { if case .integer(let value) = self { value } else { nil } }
    public var text: String? { if case .text(let value) = self { value } else { nil } }
}

/// Why the store could not read or write: the file, what was being done, and SQLite's own words.
public struct StateStoreError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable { case damaged, newer, full, readOnly, other }
    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

/// One SQLite database file, used by one thread at a time (the engine's control queue).
final class SQLiteConnection {
    private var handle: OpaquePointer?
    let path: String

    /// Opens (or creates) the database at `path`.
    init(path: String) throws(StateStoreError) {
        self.path = path
        let status = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK else {
            let error = failure(status, "open")
            sqlite3_close_v2(handle)
            handle = nil
            throw error
        }
        // A reader meeting a writer's lock waits a moment instead of failing at once.
        sqlite3_busy_timeout(handle, 2000)
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs statements that return no rows.
    func execute(_ sql: String) throws(StateStoreError) {
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw failure(status, sql) }
    }

    /// Runs one statement with `values` bound to its `?`s and returns every row.
    @discardableResult
    func rows(_ sql: String, _ values: [SQLiteValue] = []) throws(StateStoreError) -> [[SQLiteValue]] {
        var statement: OpaquePointer?
        var status = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard status == SQLITE_OK else { throw failure(status, sql) }
        defer { sqlite3_finalize(statement) }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            switch value {
            case .integer(let number): status = sqlite3_bind_int64(statement, index, number)
            case .real(let number): status = sqlite3_bind_double(statement, index, number)
            case .text(let text): status = sqlite3_bind_text(statement, index, text, -1, Self.transient)
            case .null: status = sqlite3_bind_null(statement, index)
            }
            guard status == SQLITE_OK else { throw failure(status, sql) }
        }
        var result: [[SQLiteValue]] = []
        while true {
            status = sqlite3_step(statement)
            if status == SQLITE_DONE { return result }
            guard status == SQLITE_ROW else { throw failure(status, sql) }
            result.append((0..<sqlite3_column_count(statement)).map { column in
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: .integer(sqlite3_column_int64(statement, column))
                case SQLITE_FLOAT: .real(sqlite3_column_double(statement, column))
                case SQLITE_TEXT: .text(String(cString: sqlite3_column_text(statement, column)))
                default: .null
                }
            })
        }
    }

    /// SQLite copies bound text (SQLITE_TRANSIENT), so the Swift string may go at once.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// The error for `status`, with SQLite's message for this connection and what was being done.
    private func failure(_ status: Int32, _ doing: String) -> StateStoreError {
        let primary = status & 0xff
        let detail = handle.flatMap { sqlite3_errmsg($0).map { String(cString: $0) } } ?? String(cString: sqlite3_errstr(status))
        let kind: StateStoreError.Kind = switch primary {
        case SQLITE_CORRUPT, SQLITE_NOTADB: .damaged
        case SQLITE_FULL: .full
        case SQLITE_READONLY, SQLITE_CANTOPEN, SQLITE_PERM: .readOnly
        default: .other
        }
        let statement = doing.count > 60 ? String(doing.prefix(60)) + "…" : doing
        return StateStoreError(kind, "\(path): \(detail) (SQLite error \(status), during \(statement))")
    }
}
