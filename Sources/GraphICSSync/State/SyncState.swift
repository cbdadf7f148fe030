import Foundation
import GraphICS
import GraphICSMirror

/// The state of every sync pairing, in one SQLite database under the state directory.
///
/// Per pairing (account, calendar, folder): the items as they were at the last sync (``SyncItemRecord``)
/// and the delta link with its window. The schema's version is `PRAGMA user_version`; a new database gets
/// the current schema on first open, an older one is migrated step by step, a newer one is refused.
///
/// No operation opens a transaction of its own: the engine wraps each applied action (or each pulled
/// page) in ``transaction(_:)`` so that what it records matches what it did. Outside a transaction each
/// call commits by itself. Not thread-safe, like its ``SQLiteDatabase``.
public final class SyncState {
    /// The schema this graph-ics writes.
    public static let schemaVersion: Int64 = 4
    /// The database's file name inside the state directory.
    public static let fileName = "state.sqlite3"

    public let database: SQLiteDatabase

    /// Opens (creating and migrating) the state database at `path`.
    public init(path: String, busyTimeout: Duration = .seconds(5)) throws {
        database = try SQLiteDatabase(path: path, busyTimeout: busyTimeout)
        try migrate()
    }

    /// Opens the state database in the state directory `environment` names, creating the directory (0700).
    public convenience init(environment: [String: String]) throws {
        let directory = try StateDirectory.path(environment)
        try StateDirectory.prepare(directory)
        try self.init(path: (directory as NSString).appendingPathComponent(Self.fileName))
    }

    /// Runs `body` in one transaction (committed when it returns, rolled back when it throws).
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try database.transaction(body)
    }

    // MARK: Schema

    /// The statements that take a database from version `index` to `index + 1`.
    static let migrations: [String] = [
        """
        CREATE TABLE pairing (
            id INTEGER PRIMARY KEY,
            account TEXT NOT NULL,
            calendar_id TEXT NOT NULL,
            folder TEXT NOT NULL,
            delta_link TEXT,
            window_start INTEGER,
            window_end INTEGER,
            UNIQUE (account, calendar_id, folder)
        );
        CREATE TABLE item (
            pairing INTEGER NOT NULL REFERENCES pairing (id) ON DELETE CASCADE,
            file_name TEXT NOT NULL,
            uid TEXT NOT NULL,
            graph_id TEXT,
            change_key TEXT,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            sha256 BLOB NOT NULL,
            PRIMARY KEY (pairing, file_name),
            UNIQUE (pairing, uid),
            UNIQUE (pairing, graph_id)
        ) WITHOUT ROWID;
        """,
        // Version 2: the Graph ids of a series item's occurrences and exceptions, so that a delta round's
        // `@removed` occurrence finds the series file it belongs to.
        """
        CREATE TABLE occurrence (
            pairing INTEGER NOT NULL REFERENCES pairing (id) ON DELETE CASCADE,
            graph_id TEXT NOT NULL,
            file_name TEXT NOT NULL,
            PRIMARY KEY (pairing, graph_id)
        ) WITHOUT ROWID;
        CREATE INDEX occurrence_file ON occurrence (pairing, file_name);
        """,
        // Version 3: each occurrence's change key, so that a calendar read without delta (calendarView
        // compared with the records) tells an unchanged series without reading its master.
        """
        ALTER TABLE occurrence ADD COLUMN change_key TEXT;
        """,
        // Version 4: items Graph confirmed outside the window (a pull deletes a file only when Graph says
        // the event is gone), so that later rounds over the window do not ask about them again; and the hash
        // of the file a push last held (Graph would have mailed attendees), so that it is reported once per
        // local change and a conflict settled for the file stays settled while it is held.
        """
        ALTER TABLE item ADD COLUMN outside_window INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE item ADD COLUMN held_sha256 BLOB;
        """,
    ]

    private func migrate() throws {
        // Read again inside the write lock: another process may be creating the schema right now.
        try transaction {
            let version = try database.userVersion
            if version == 0, try database.query("SELECT count(*) FROM sqlite_master", row: { $0.int64(0) }) != [0] {
                throw SyncStoreError(
                    .schema, "this database was not made by graph-ics; move it away", path: database.path)
            }
            guard version <= Self.schemaVersion else {
                throw SyncStoreError(
                    .schema,
                    "the sync state was written by a newer graph-ics (schema \(version), this one knows "
                        + "\(Self.schemaVersion)); update graph-ics",
                    path: database.path)
            }
            for step in Int(version)..<Self.migrations.count {
                try database.execute(Self.migrations[step])
            }
            if version < Self.schemaVersion {
                try database.setUserVersion(Self.schemaVersion)
            }
        }
    }

    // MARK: Pairings

    /// The pairing for `key`, created (with no items and no delta link) when it is new.
    public func pairing(_ key: SyncPairingKey) throws -> SyncPairing {
        let values: [SQLiteValue] = [.text(key.account), .text(key.calendarID), .text(key.folder)]
        try database.run(
            "INSERT INTO pairing (account, calendar_id, folder) VALUES (?, ?, ?) ON CONFLICT DO NOTHING", values)
        let ids = try database.query(
            "SELECT id FROM pairing WHERE account = ? AND calendar_id = ? AND folder = ?", values
        ) { $0.int64(0) }
        guard let id = ids.first else {
            throw SyncStoreError(.schema, "the pairing just recorded cannot be read back", path: database.path)
        }
        return SyncPairing(id: id, key: key)
    }

    /// Forgets a pairing, its items and its delta link (the next sync starts over).
    public func removePairing(_ pairing: SyncPairing) throws {
        try database.run("DELETE FROM pairing WHERE id = ?", [.integer(pairing.id)])
    }

    // MARK: Items

    /// Every item recorded for `pairing`, by file name.
    public func items(of pairing: SyncPairing) throws -> [SyncItemRecord] {
        try database.query(
            """
            SELECT file_name, uid, graph_id, change_key, size, mtime_ns, sha256, outside_window, held_sha256
            FROM item WHERE pairing = ? ORDER BY file_name
            """, [.integer(pairing.id)]
        ) { row in
            SyncItemRecord(
                fileName: row.string(0) ?? "", uid: row.string(1) ?? "", graphID: row.string(2),
                changeKey: row.string(3), size: row.int64(4), modificationNanoseconds: row.int64(5),
                sha256: row.data(6) ?? Data(), outsideWindow: row.int64(7) != 0,
                heldSHA256: row.isNull(8) ? nil : row.data(8) ?? Data())
        }
    }

    /// Records `item` under its file name, replacing what was recorded for that name. Fails (an
    /// ``SQLiteError`` naming the constraint) when another file of the pairing has its UID or Graph id.
    public func upsert(_ item: SyncItemRecord, in pairing: SyncPairing) throws {
        try database.run(
            """
            INSERT INTO item (
                pairing, file_name, uid, graph_id, change_key, size, mtime_ns, sha256, outside_window, held_sha256)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (pairing, file_name) DO UPDATE SET uid = excluded.uid, graph_id = excluded.graph_id,
                change_key = excluded.change_key, size = excluded.size, mtime_ns = excluded.mtime_ns,
                sha256 = excluded.sha256, outside_window = excluded.outside_window,
                held_sha256 = excluded.held_sha256
            """,
            [
                .integer(pairing.id), .text(item.fileName), .text(item.uid), .nullable(item.graphID),
                .nullable(item.changeKey), .integer(item.size), .integer(item.modificationNanoseconds),
                .blob(item.sha256), .integer(item.outsideWindow ? 1 : 0), item.heldSHA256.map { .blob($0) } ?? .null,
            ])
    }

    /// How many items `pairing` records (without reading them).
    public func itemCount(of pairing: SyncPairing) throws -> Int {
        Int(
            try database.query("SELECT count(*) FROM item WHERE pairing = ?", [.integer(pairing.id)]) { $0.int64(0) }
                .first ?? 0)
    }

    /// The items a push held, by file name, with the hash of the file when it was held.
    public func heldItems(of pairing: SyncPairing) throws -> [String: Data] {
        let rows = try database.query(
            "SELECT file_name, held_sha256 FROM item WHERE pairing = ? AND held_sha256 IS NOT NULL",
            [.integer(pairing.id)]
        ) { ($0.string(0) ?? "", $0.data(1) ?? Data()) }
        return Dictionary(rows) { first, _ in first }
    }

    /// Records that a push held the item `fileName` (Graph would have mailed its attendees) with the file's
    /// hash `sha256` (empty for a deletion held); nil forgets it.
    public func setHeld(_ sha256: Data?, fileName: String, in pairing: SyncPairing) throws {
        try database.run(
            "UPDATE item SET held_sha256 = ? WHERE pairing = ? AND file_name = ?",
            [sha256.map { .blob($0) } ?? .null, .integer(pairing.id), .text(fileName)])
    }

    /// Forgets the item recorded under `fileName`; false when there was none.
    @discardableResult
    public func deleteItem(fileName: String, in pairing: SyncPairing) throws -> Bool {
        try database.run(
            "DELETE FROM item WHERE pairing = ? AND file_name = ?", [.integer(pairing.id), .text(fileName)])
        return database.changes > 0
    }

    // MARK: The delta link

    /// The delta link and window of the last completed pull, or nil (never pulled, or started over).
    public func deltaCheckpoint(of pairing: SyncPairing) throws -> DeltaCheckpoint? {
        try database.query(
            "SELECT delta_link, window_start, window_end FROM pairing WHERE id = ? AND delta_link IS NOT NULL",
            [.integer(pairing.id)]
        ) { row in
            DeltaCheckpoint(
                link: row.string(0) ?? "", window: SyncWindow(start: row.int64(1), end: row.int64(2)))
        }.first
    }

    /// Records the delta link and window a pull ended with; nil forgets them (the next pull is a full one).
    public func saveDeltaCheckpoint(_ checkpoint: DeltaCheckpoint?, for pairing: SyncPairing) throws {
        try database.run(
            "UPDATE pairing SET delta_link = ?, window_start = ?, window_end = ? WHERE id = ?",
            [
                .nullable(checkpoint?.link), .nullable(checkpoint?.window.start), .nullable(checkpoint?.window.end),
                .integer(pairing.id),
            ])
        guard database.changes == 1 else {
            throw SyncStoreError(.schema, "the pairing \(pairing.id) is not in the state", path: database.path)
        }
    }
}
