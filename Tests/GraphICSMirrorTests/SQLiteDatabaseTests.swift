import Foundation
import GraphICSMirror
import TestSupport
import Testing

@Suite struct SQLiteDatabaseTests {
    let directory: TemporaryDirectory
    let database: SQLiteDatabase

    init() throws {
        directory = try TemporaryDirectory()
        database = try SQLiteDatabase(path: directory.file("test.sqlite3"))
        try database.execute("CREATE TABLE t (i INTEGER, s TEXT, b BLOB)")
    }

    private func count(_ connection: SQLiteDatabase? = nil) throws -> Int64 {
        try (connection ?? database).query("SELECT count(*) FROM t") { $0.int64(0) }.first ?? -1
    }

    @Test("integers, text and blobs come back as they were bound")
    func roundTrips() throws {
        let text = "Überstunden ☕ \"quoted\" 'single' \u{0}after a NUL"
        let bytes = Data([0, 1, 2, 0xFF, 0, 0x80])
        for (number, string, blob) in [(Int64.min, text, bytes), (Int64.max, "", Data([0])), (0, "x", Data())] {
            try database.run("DELETE FROM t")
            try database.run("INSERT INTO t VALUES (?, ?, ?)", [.integer(number), .text(string), .blob(blob)])
            let rows = try database.query("SELECT i, s, b FROM t") { row in
                (row.int64(0), row.string(1), row.data(2), row.isNull(1), row.isNull(2))
            }
            #expect(rows.count == 1)
            #expect(rows.first?.0 == number)
            #expect(rows.first?.1 == string)
            #expect(rows.first?.2 == blob)
            // The empty string and the empty blob are values, not NULL.
            #expect(rows.first?.3 == false)
            #expect(rows.first?.4 == false)
        }
    }

    @Test("NULL reads as nil, and nil binds as NULL")
    func nulls() throws {
        try database.run(
            "INSERT INTO t VALUES (?, ?, ?)", [.nullable(nil as Int64?), .nullable(nil as String?), .null])
        try database.run(
            "INSERT INTO t VALUES (?, ?, ?)", [.nullable(Int64(7)), .nullable("seven"), .nullable(Data([7]))])
        let rows = try database.query("SELECT i, s, b FROM t ORDER BY i IS NULL") { row in
            (row.optionalInt64(0), row.string(1), row.data(2))
        }
        #expect(rows.map(\.0) == [7, nil])
        #expect(rows.map(\.1) == ["seven", nil])
        #expect(rows.map(\.2) == [Data([7]), nil])
        #expect(
            try database.query("SELECT count(*) FROM t WHERE i IS NULL AND s IS NULL AND b IS NULL") {
                $0.int64(0)
            } == [1])
    }

    @Test("a transaction whose body throws is rolled back and the error comes through")
    func throwingTransactionRollsBack() throws {
        struct Stop: Error, Equatable {}
        try database.run("INSERT INTO t (i) VALUES (1)")
        #expect(throws: Stop()) {
            try database.transaction {
                try database.run("INSERT INTO t (i) VALUES (2)")
                try database.run("DELETE FROM t WHERE i = 1")
                throw Stop()
            }
        }
        #expect(database.isInTransaction == false)
        #expect(try database.query("SELECT i FROM t") { $0.int64(0) } == [1])
        // The connection is usable for the next transaction.
        let value = try database.transaction {
            try database.run("INSERT INTO t (i) VALUES (3)")
            return 3
        }
        #expect(value == 3)
        #expect(try count() == 2)
    }

    @Test("errors carry SQLite's message, the SQL and the file")
    func errorsNameTheSQL() throws {
        let error = try #require(throws: SQLiteError.self) { try database.run("SELEC 1") }
        #expect(error.sql == "SELEC 1")
        #expect(error.message.contains("syntax error"))
        #expect(error.primaryCode == 1)
        #expect(error.description.contains(directory.file("test.sqlite3")))
        #expect(error.description.contains("SELEC 1"))

        try database.execute("CREATE TABLE u (k TEXT UNIQUE)")
        let insert = "INSERT INTO u VALUES (?)"
        try database.run(insert, [.text("a")])
        let duplicate = try #require(throws: SQLiteError.self) { try database.run(insert, [.text("a")]) }
        #expect(duplicate.sql == insert)
        #expect(duplicate.message.contains("UNIQUE constraint failed: u.k"))
        // Extended result code: SQLITE_CONSTRAINT_UNIQUE.
        #expect(duplicate.code == 2067)

        let arity = try #require(throws: SQLiteError.self) { try database.run(insert, []) }
        #expect(arity.message.contains("0 values for 1 parameters"))

        let two = "INSERT INTO u VALUES ('b'); DELETE FROM u"
        let twoError = try #require(throws: SQLiteError.self) { try database.run(two) }
        #expect(twoError.message.contains("more than one statement"))
        #expect(try database.query("SELECT k FROM u ORDER BY k") { $0.string(0) } == ["a"])
        try database.run("SELECT 1;  ")
    }

    @Test("a second connection sees committed rows, and not a transaction still open")
    func secondConnectionSeesCommittedData() throws {
        let other = try SQLiteDatabase(path: directory.file("test.sqlite3"))
        try database.run("INSERT INTO t (i) VALUES (1)")
        #expect(try count(other) == 1)
        try database.execute("BEGIN IMMEDIATE")
        try database.run("INSERT INTO t (i) VALUES (2)")
        #expect(try count(other) == 1)
        try database.execute("COMMIT")
        #expect(try count(other) == 2)
    }

    @Test("every connection is in WAL mode with synchronous=FULL")
    func walAndFullSync() throws {
        #expect(try database.journalMode == "wal")
        #expect(try database.synchronous == 2)
        try database.run("INSERT INTO t (i) VALUES (1)")
        #expect(FileManager.default.fileExists(atPath: directory.file("test.sqlite3-wal")))
        let reopened = try SQLiteDatabase(path: directory.file("test.sqlite3"))
        #expect(try reopened.journalMode == "wal")
        #expect(try reopened.synchronous == 2)
    }

    @Test("a writer waits out the busy timeout for another writer, then fails with SQLITE_BUSY")
    func busyTimeout() throws {
        let other = try SQLiteDatabase(path: directory.file("test.sqlite3"), busyTimeout: .milliseconds(300))
        try database.execute("BEGIN IMMEDIATE")
        let started = ContinuousClock.now
        let error = try #require(throws: SQLiteError.self) {
            try other.transaction { try other.run("INSERT INTO t (i) VALUES (1)") }
        }
        #expect(ContinuousClock.now - started >= .milliseconds(250))
        #expect(error.primaryCode == 5)
        #expect(error.sql == "BEGIN IMMEDIATE")
        try database.execute("COMMIT")
        try other.transaction { try other.run("INSERT INTO t (i) VALUES (1)") }
        #expect(try count() == 1)
    }

    @Test("user_version is read and written")
    func userVersion() throws {
        #expect(try database.userVersion == 0)
        try database.setUserVersion(42)
        #expect(try SQLiteDatabase(path: directory.file("test.sqlite3")).userVersion == 42)
    }

    @Test("opening a path in a missing folder fails naming the file")
    func openFailure() throws {
        let path = directory.file("missing/state.sqlite3")
        let error = try #require(throws: SQLiteError.self) { try SQLiteDatabase(path: path) }
        #expect(error.path == path)
        #expect(error.sql == "open")
    }
}

@Suite struct SQLiteConnectionLifetimeTests {
    @Test("the connection closes when the database and its statements are gone (SQLite removes the WAL)")
    func closesWhenReleased() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("closing.sqlite3")
        var statement: SQLiteStatement?
        do {
            let database = try SQLiteDatabase(path: path)
            try database.execute("CREATE TABLE t (i INTEGER)")
            try database.run("INSERT INTO t VALUES (?)", [.integer(1)])
            statement = try database.prepare("SELECT i FROM t")
        }
        // A statement that outlives its database keeps the connection open and working.
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(try statement?.step() == true)
        #expect(statement?.int64(0) == 1)
        statement = nil
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }
}
