internal import CSQLite
import Foundation

/// One connection to an SQLite database file (`sqlite3 *`), set up for state that must survive a kill.
///
/// Owns the connection from `sqlite3_open_v2` (through ``SQLiteConnection``, which the statements share)
/// and closes it with `sqlite3_close_v2` once the database and every statement made from it are gone. Every
/// connection runs in WAL mode with `synchronous=FULL`, foreign keys enforced, extended result codes and
/// a busy timeout, so that a second connection (another `graph-ics` process) waits for a writer instead
/// of failing at once.
///
/// Not thread-safe and not `Sendable`: one thread uses a connection at a time; another thread or process
/// opens its own.
public final class SQLiteDatabase {
    /// The database file, as given to `init`.
    public var path: String { connection.path }
    let connection: SQLiteConnection
    private var handle: OpaquePointer { connection.handle }
    /// Prepared statements by their SQL, reused by ``run(_:_:)`` and ``query(_:_:row:)``. They hold the
    /// connection, not the database, so the database can go (and take its cache with it).
    private var statements: [String: SQLiteStatement] = [:]

    /// Opens (creating if needed) the database at `path` and sets the connection up.
    ///
    /// - Parameter busyTimeout: how long a statement waits for another connection's write lock before it
    ///   fails with `SQLITE_BUSY`.
    public init(path: String, busyTimeout: Duration = .seconds(5)) throws {
        var connection: OpaquePointer?
        let result = sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil)
        guard let connection else {
            throw SQLiteError(code: result, message: "SQLite could not allocate a connection", sql: "open", path: path)
        }
        guard result == SQLITE_OK else {
            let message = String(cString: sqlite3_errmsg(connection))
            sqlite3_close_v2(connection)
            throw SQLiteError(code: result, message: message, sql: "open", path: path)
        }
        self.connection = SQLiteConnection(handle: connection, path: path)
        sqlite3_extended_result_codes(connection, 1)
        try configure(busyTimeout: busyTimeout)
    }

    /// WAL, `synchronous=FULL`, foreign keys, the busy timeout.
    ///
    /// Why FULL and not NORMAL: with WAL, NORMAL already loses nothing when the process is killed (a
    /// committed transaction is in the WAL file in the kernel's page cache), but after a power cut or a
    /// kernel crash the last transactions can roll back while the `.ics` files written before them
    /// (fsynced) stay. `sync` would then find files that differ from the recorded state and take graph-ics's
    /// own writes for local edits. FULL fsyncs the WAL at every commit, so a commit that returned is on
    /// disk; the cost is one fsync per transaction, which is small next to the Graph request each push
    /// action makes and to a page of pulled events.
    private func configure(busyTimeout: Duration) throws {
        let (seconds, attoseconds) = busyTimeout.components
        let milliseconds = max(0, min(2_000_000, seconds) * 1000 + attoseconds / 1_000_000_000_000_000)
        try check(sqlite3_busy_timeout(handle, Int32(milliseconds)), "busy_timeout")
        let mode = try query("PRAGMA journal_mode=WAL") { $0.string(0) }.first ?? nil
        guard mode?.lowercased() == "wal" else {
            throw SQLiteError(
                code: SQLITE_CANTOPEN,
                message: "the database cannot use a write-ahead log here (journal mode \(mode ?? "none")); "
                    + "keep the state on a local file system",
                sql: "PRAGMA journal_mode=WAL", path: path)
        }
        try execute("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON")
    }

    // MARK: Running SQL

    /// Runs one or more statements separated by `;` that take no parameters (`sqlite3_exec`), rows
    /// discarded. For schema and pragmas.
    public func execute(_ sql: String) throws {
        try check(sqlite3_exec(handle, sql, nil, nil, nil), sql)
    }

    /// A new prepared statement for one SQL statement (`sqlite3_prepare_v3`).
    public func prepare(_ sql: String) throws -> SQLiteStatement {
        var statement: OpaquePointer?
        let rest = try sql.withCString { text -> String in
            var tail: UnsafePointer<CChar>?
            try check(sqlite3_prepare_v3(handle, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, &tail), sql)
            return tail.map { String(cString: $0) } ?? ""
        }
        guard let statement else {
            throw SQLiteError(code: SQLITE_MISUSE, message: "the SQL holds no statement", sql: sql, path: path)
        }
        let prepared = SQLiteStatement(handle: statement, connection: connection, sql: sql)
        // A second statement would be ignored without a word: refuse it (`execute` runs several).
        guard rest.allSatisfy({ $0.isWhitespace || $0 == ";" }) else {
            throw SQLiteError(
                code: SQLITE_MISUSE, message: "more than one statement; prepare them one at a time", sql: sql,
                path: path)
        }
        return prepared
    }

    /// Runs one statement with `values` bound to its parameters, to completion.
    public func run(_ sql: String, _ values: [SQLiteValue] = []) throws {
        try withStatement(sql, values) { statement in
            while try statement.step() {}
        }
    }

    /// Runs one statement with `values` bound and returns what `row` makes of each result row.
    public func query<Row>(_ sql: String, _ values: [SQLiteValue] = [], row: (SQLiteStatement) throws -> Row)
        throws -> [Row]
    {
        try withStatement(sql, values) { statement in
            var rows: [Row] = []
            while try statement.step() {
                rows.append(try row(statement))
            }
            return rows
        }
    }

    /// The rows changed by the last INSERT, UPDATE or DELETE (`sqlite3_changes64`).
    public var changes: Int64 { sqlite3_changes64(handle) }

    /// The cached statement for `sql`, bound to `values`, reset and cleared after `body`.
    private func withStatement<T>(_ sql: String, _ values: [SQLiteValue], _ body: (SQLiteStatement) throws -> T)
        throws -> T
    {
        let statement: SQLiteStatement
        if let cached = statements[sql] {
            statement = cached
        } else {
            statement = try prepare(sql)
            statements[sql] = statement
        }
        defer { statement.reset() }
        try statement.bind(values)
        return try body(statement)
    }

    // MARK: Transactions

    /// Runs `body` in one transaction: `BEGIN IMMEDIATE` (the write lock is taken at once, so two writers
    /// wait for each other through the busy timeout instead of failing halfway), `COMMIT` when `body`
    /// returns, `ROLLBACK` when it throws (its error is rethrown) or when the commit fails. Not nestable.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            if isInTransaction {
                // A failed ROLLBACK leaves nothing to do: SQLite rolls back on close.
                _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
            }
            throw error
        }
    }

    /// Whether a transaction is open on this connection (`sqlite3_get_autocommit` is 0).
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// `PRAGMA user_version`: the number a schema records its version in.
    public var userVersion: Int64 {
        get throws { try query("PRAGMA user_version") { $0.int64(0) }.first ?? 0 }
    }

    public func setUserVersion(_ version: Int64) throws {
        try execute("PRAGMA user_version=\(version)")
    }

    /// `PRAGMA journal_mode` as SQLite reports it (`wal` for every connection this type opens).
    public var journalMode: String {
        get throws { try query("PRAGMA journal_mode") { $0.string(0) ?? "" }.first ?? "" }
    }

    /// `PRAGMA synchronous`: 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA.
    public var synchronous: Int64 {
        get throws { try query("PRAGMA synchronous") { $0.int64(0) }.first ?? 0 }
    }

    // MARK: Result codes

    /// See ``SQLiteConnection/check(_:_:)``.
    func check(_ result: Int32, _ sql: String) throws {
        try connection.check(result, sql)
    }
}

/// The `sqlite3 *` itself, shared by a ``SQLiteDatabase`` and its statements and closed
/// (`sqlite3_close_v2`) when the last of them is gone.
final class SQLiteConnection {
    let handle: OpaquePointer
    let path: String

    init(handle: OpaquePointer, path: String) {
        self.handle = handle
        self.path = path
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Turns a result code into a ``SQLiteError`` naming `sql`; `SQLITE_OK`, `SQLITE_ROW` and
    /// `SQLITE_DONE` pass. The one place graph-ics reads SQLite's result codes.
    func check(_ result: Int32, _ sql: String) throws {
        switch result & 0xFF {
        case SQLITE_OK, SQLITE_ROW, SQLITE_DONE:
            return
        default:
            throw SQLiteError(code: result, message: String(cString: sqlite3_errmsg(handle)), sql: sql, path: path)
        }
    }
}
