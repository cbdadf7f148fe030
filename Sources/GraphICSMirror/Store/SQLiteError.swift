/// A failed SQLite call: SQLite's result code and message, the statement it ran and the database file.
///
/// Made by ``SQLiteDatabase/check(_:_:)`` from a result code and `sqlite3_errmsg`, so that every failure
/// names what was being done: `state.sqlite3: UNIQUE constraint failed: item.uid (SQLite 2067) in
/// INSERT INTO item …`.
public struct SQLiteError: Error, Equatable, Sendable, CustomStringConvertible {
    /// SQLite's extended result code (`SQLITE_BUSY` is 5, `SQLITE_CONSTRAINT_UNIQUE` 2067, …).
    public var code: Int32
    /// `sqlite3_errmsg` at the time of the failure, or what graph-ics found wrong.
    public var message: String
    /// The SQL that failed, or the call (`open`, `close`) when no statement was involved.
    public var sql: String
    /// The database file.
    public var path: String

    public init(code: Int32, message: String, sql: String, path: String) {
        self.code = code
        self.message = message
        self.sql = sql
        self.path = path
    }

    /// The primary result code (the low byte: `SQLITE_CONSTRAINT` for every kind of constraint failure).
    public var primaryCode: Int32 { code & 0xFF }

    public var description: String {
        "\(path): \(message) (SQLite \(code)) in \(sql)"
    }
}
