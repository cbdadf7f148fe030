internal import CSQLite
import Foundation

/// A value bound to a statement's parameter.
public enum SQLiteValue: Equatable, Sendable {
    case integer(Int64)
    case text(String)
    case blob(Data)
    case null

    /// The bytes of text or a blob (0 for numbers and NULL).
    var byteCount: Int {
        switch self {
        case .text(let text): text.utf8.count
        case .blob(let bytes): bytes.count
        case .integer, .null: 0
        }
    }

    /// `.text`, or `.null` for nil.
    public static func nullable(_ value: String?) -> SQLiteValue { value.map { .text($0) } ?? .null }
    /// `.integer`, or `.null` for nil.
    public static func nullable(_ value: Int64?) -> SQLiteValue { value.map { .integer($0) } ?? .null }
    /// `.blob`, or `.null` for nil.
    public static func nullable(_ value: Data?) -> SQLiteValue { value.map { .blob($0) } ?? .null }
}

/// One prepared statement (`sqlite3_stmt *`): bind, step, read the current row's columns.
///
/// Owns the statement from `sqlite3_prepare_v3` and finalises it in `deinit`; keeps its database's
/// connection open while it lives. Column reads are valid after ``step()`` returned true, until the next step
/// or reset. Not thread-safe, like its database.
public final class SQLiteStatement {
    private let handle: OpaquePointer
    private let connection: SQLiteConnection
    /// The statement's SQL, named in every error.
    public let sql: String

    init(handle: OpaquePointer, connection: SQLiteConnection, sql: String) {
        self.handle = handle
        self.connection = connection
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    // MARK: Binding

    /// Binds `values` to parameters 1… in order; the statement must take exactly that many.
    public func bind(_ values: [SQLiteValue]) throws {
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard values.count == expected else {
            throw SQLiteError(
                code: SQLITE_RANGE, message: "\(values.count) values for \(expected) parameters", sql: sql,
                path: connection.path)
        }
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    /// Binds one value to parameter `index` (1-based). Text and blobs are copied by SQLite.
    public func bind(_ value: SQLiteValue, at index: Int32) throws {
        if value.byteCount > Int(Int32.max) {
            throw SQLiteError(
                code: SQLITE_TOOBIG, message: "a value of \(value.byteCount) bytes is too large for SQLite", sql: sql,
                path: connection.path)
        }
        let result: Int32
        switch value {
        case .integer(let number):
            result = sqlite3_bind_int64(handle, index, number)
        case .text(let text):
            // withCString never passes NULL (which would bind NULL instead of the empty string).
            result = text.withCString { gics_sqlite3_bind_text(handle, index, $0, Int32(text.utf8.count)) }
        case .blob(let bytes) where bytes.isEmpty:
            result = sqlite3_bind_zeroblob(handle, index, 0)
        case .blob(let bytes):
            result = bytes.withUnsafeBytes { gics_sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count)) }
        case .null:
            result = sqlite3_bind_null(handle, index)
        }
        try connection.check(result, sql)
    }

    // MARK: Stepping

    /// `sqlite3_step`: true when a row is ready to read, false when the statement is done.
    public func step() throws -> Bool {
        let result = sqlite3_step(handle)
        try connection.check(result, sql)
        return result == SQLITE_ROW
    }

    /// Resets the statement to run again and clears its bindings.
    public func reset() {
        // sqlite3_reset repeats the last step's error, which step already reported.
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: Reading the current row (columns are 0-based)

    /// Whether the column is NULL.
    public func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    /// The column as an integer (0 for NULL).
    public func int64(_ column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    /// The column as an integer, nil for NULL.
    public func optionalInt64(_ column: Int32) -> Int64? {
        isNull(column) ? nil : int64(column)
    }

    /// The column as UTF-8 text, nil for NULL.
    public func string(_ column: Int32) -> String? {
        guard !isNull(column), let text = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The column as bytes, nil for NULL (an empty blob is empty `Data`).
    public func data(_ column: Int32) -> Data? {
        guard !isNull(column) else { return nil }
        guard let bytes = sqlite3_column_blob(handle, column) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(handle, column)))
    }
}
