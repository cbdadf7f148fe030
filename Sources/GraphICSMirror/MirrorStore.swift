import Foundation

/// The SQLite file of one mirror: its events as Graph last sent them, where its Graph rounds resume, a
/// change log in sequence numbers, and the windows of its consumers.
///
/// The change log is kept in place: every event row carries the sequence number of the round that last
/// changed it, and every removal leaves a row in `removals` with its round's number, so "what changed since
/// round N" is two indexed queries and the log never holds an event twice. Removals older than
/// ``removalsKept`` are dropped and ``Meta/floor`` records the newest round dropped: a consumer whose cursor
/// is older reads the whole window again.
///
/// A round's changes, its checkpoint and the consumers' windows are written in one transaction: a process
/// killed at any instant leaves the store at the last round or the new one, never between.
final class MirrorStore {
    static let schemaVersion: Int64 = 1
    /// How long removals are kept for consumers that have not read them (60 days).
    static let removalsKept: Int64 = 60 * 86_400

    struct Meta: Equatable {
        var generation: String
        /// The last round that changed something.
        var sequence: Int64
        /// Changes of rounds up to this one are no longer all kept.
        var floor: Int64
        /// The window the stored checkpoint covers, and the delta link (primary calendar only).
        var window: SyncWindow?
        var deltaLink: String?
    }

    /// One event row with what tells its versions apart and the span it takes.
    struct Row {
        var event: MirrorEvent
        var version: String
        var starts: Int64?
        var ends: Int64?
    }

    let database: SQLiteDatabase
    var path: String { database.path }

    init(path: String) throws {
        database = try SQLiteDatabase(path: path)
        try migrate()
    }

    private func migrate() throws {
        let version = try database.userVersion
        guard version <= Self.schemaVersion else {
            throw MirrorError(
                .schema, "this mirror was written by a newer graph-ics (schema \(version)); update graph-ics",
                path: path)
        }
        guard version < Self.schemaVersion else { return }
        try database.transaction {
            try database.execute(
                """
                CREATE TABLE IF NOT EXISTS mirror(
                    singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                    generation TEXT NOT NULL,
                    sequence INTEGER NOT NULL,
                    floor INTEGER NOT NULL,
                    window_start INTEGER,
                    window_end INTEGER,
                    delta_link TEXT);
                CREATE TABLE IF NOT EXISTS events(
                    id TEXT PRIMARY KEY,
                    change_key TEXT,
                    version TEXT NOT NULL,
                    starts INTEGER,
                    ends INTEGER,
                    position INTEGER NOT NULL,
                    sequence INTEGER NOT NULL,
                    raw BLOB NOT NULL);
                CREATE INDEX IF NOT EXISTS events_by_sequence ON events(sequence);
                CREATE INDEX IF NOT EXISTS events_by_position ON events(position, id);
                CREATE TABLE IF NOT EXISTS removals(
                    id TEXT PRIMARY KEY,
                    sequence INTEGER NOT NULL,
                    at INTEGER NOT NULL);
                CREATE INDEX IF NOT EXISTS removals_by_sequence ON removals(sequence);
                CREATE TABLE IF NOT EXISTS consumers(
                    name TEXT PRIMARY KEY,
                    window_start INTEGER NOT NULL,
                    window_end INTEGER NOT NULL,
                    seen INTEGER NOT NULL);
                """)
            try database.run(
                "INSERT OR IGNORE INTO mirror(singleton, generation, sequence, floor) VALUES (1, ?, 0, 0)",
                [.text(Self.newGeneration())])
            try database.setUserVersion(Self.schemaVersion)
        }
    }

    /// 16 random hexadecimal digits.
    static func newGeneration() -> String {
        (0..<8).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    func meta() throws -> Meta {
        let rows = try database.query(
            "SELECT generation, sequence, floor, window_start, window_end, delta_link FROM mirror WHERE singleton = 1"
        ) { row in
            let window = row.optionalInt64(3).flatMap { start in
                row.optionalInt64(4).map { SyncWindow(start: start, end: $0) }
            }
            return Meta(
                generation: row.string(0) ?? "", sequence: row.int64(1), floor: row.int64(2), window: window,
                deltaLink: row.string(5))
        }
        guard let meta = rows.first else {
            throw MirrorError(.schema, "the mirror's store has no header row", path: path)
        }
        return meta
    }

    /// The stored versions by id, with their listing position.
    func versions() throws -> [String: String] {
        var versions: [String: String] = [:]
        for (id, version) in try database.query("SELECT id, version FROM events", row: { ($0.string(0), $0.string(1)) })
        {
            if let id, let version { versions[id] = version }
        }
        return versions
    }

    /// The stored versions of `ids` (those held).
    func versions(of ids: [String]) throws -> [String: String] {
        var versions: [String: String] = [:]
        for id in ids {
            if let version = try database.query(
                "SELECT version FROM events WHERE id = ?", [.text(id)], row: { $0.string(0) }
            )
            .first ?? nil {
                versions[id] = version
            }
        }
        return versions
    }

    // MARK: Consumers

    /// Records that `name` follows `window`, seen at `now`.
    func register(_ name: String, window: SyncWindow, now: Int64) throws {
        try database.run(
            "INSERT OR REPLACE INTO consumers(name, window_start, window_end, seen) VALUES (?, ?, ?, ?)",
            [.text(name), .integer(window.start), .integer(window.end), .integer(now)])
    }

    /// The windows of the consumers seen since `since`.
    func consumerWindows(seenSince since: Int64) throws -> [SyncWindow] {
        try database.query(
            "SELECT window_start, window_end FROM consumers WHERE seen >= ?", [.integer(since)]
        ) { SyncWindow(start: $0.int64(0), end: $0.int64(1)) }
    }

    // MARK: Writing a round

    /// Writes what a round found as round `sequence`: `upserts` (rows whose version changed or that are new),
    /// `removals`, the checkpoint, and the listing positions of a whole round.
    func write(
        sequence: Int64, upserts: [Row], removals: [String], positions: [String: Int64]?, checkpoint: SyncWindow,
        deltaLink: String?, now: Int64
    ) throws {
        var nextPosition =
            try database.query("SELECT COALESCE(MAX(position), -1) + 1 FROM events") { $0.int64(0) }
            .first ?? 0
        let removed = Set(try database.query("SELECT id FROM removals") { $0.string(0) }.compactMap { $0 })
        var written = Set<String>()
        for row in upserts {
            let position: Int64
            if let given = positions?[row.event.id] {
                position = given
            } else {
                position = nextPosition
                nextPosition += 1
            }
            try database.run(
                """
                INSERT INTO events(id, change_key, version, starts, ends, position, sequence, raw)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET change_key = excluded.change_key, version = excluded.version,
                    starts = excluded.starts, ends = excluded.ends, sequence = excluded.sequence, raw = excluded.raw
                """,
                [
                    .text(row.event.id), .nullable(row.event.changeKey), .text(row.version), .nullable(row.starts),
                    .nullable(row.ends), .integer(position), .integer(sequence), .blob(row.event.raw),
                ])
            if removed.contains(row.event.id) {
                try database.run("DELETE FROM removals WHERE id = ?", [.text(row.event.id)])
            }
            written.insert(row.event.id)
        }
        if let positions {
            for (id, position) in positions where !written.contains(id) {
                try database.run(
                    "UPDATE events SET position = ? WHERE id = ? AND position != ?",
                    [
                        .integer(position), .text(id), .integer(position),
                    ])
            }
        }
        for id in removals {
            try database.run("DELETE FROM events WHERE id = ?", [.text(id)])
            try database.run(
                "INSERT OR REPLACE INTO removals(id, sequence, at) VALUES (?, ?, ?)",
                [.text(id), .integer(sequence), .integer(now)])
        }
        let dropped =
            try database.query(
                "SELECT MAX(sequence) FROM removals WHERE at < ?", [.integer(now - Self.removalsKept)]
            ) { $0.optionalInt64(0) }.first ?? nil
        if let dropped {
            try database.run("DELETE FROM removals WHERE sequence <= ?", [.integer(dropped)])
            try database.run("UPDATE mirror SET floor = MAX(floor, ?) WHERE singleton = 1", [.integer(dropped)])
        }
        try database.run(
            "UPDATE mirror SET sequence = ?, window_start = ?, window_end = ?, delta_link = ? WHERE singleton = 1",
            [.integer(sequence), .integer(checkpoint.start), .integer(checkpoint.end), .nullable(deltaLink)])
    }

    // MARK: Reading for consumers

    private static let eventColumns = "id, change_key, raw, starts, ends"

    private static func event(_ row: SQLiteStatement) -> (MirrorEvent, Int64?, Int64?)? {
        guard let id = row.string(0) else { return nil }
        return (
            MirrorEvent(id: id, changeKey: row.string(1), raw: row.data(2) ?? Data()), row.optionalInt64(3),
            row.optionalInt64(4)
        )
    }

    /// The event `id`, or nil.
    func event(id: String) throws -> MirrorEvent? {
        try database.query("SELECT \(Self.eventColumns) FROM events WHERE id = ?", [.text(id)]) { Self.event($0) }
            .first??.0
    }

    /// Every event overlapping `window` (an event whose span is unknown is in every window), in the order
    /// Graph listed them; with `text`, only those whose JSON contains it.
    func events(in window: SyncWindow, containing text: String? = nil) throws -> [MirrorEvent] {
        let rows =
            if let text {
                try database.query(
                    "SELECT \(Self.eventColumns) FROM events WHERE instr(raw, ?) > 0 ORDER BY position, id",
                    [.text(text)]
                ) { Self.event($0) }
            } else {
                try database.query("SELECT \(Self.eventColumns) FROM events ORDER BY position, id") { Self.event($0) }
            }
        return
            rows.compactMap { found in
                guard let (event, starts, ends) = found else { return nil }
                return Self.shows(starts, ends, in: window) ? event : nil
            }
    }

    /// The events changed after round `sequence`, split into those overlapping `window` and the ids of the
    /// others; and the ids removed after it.
    func changes(since sequence: Int64, in window: SyncWindow) throws
        -> (events: [MirrorEvent], left: [String], removed: [String])
    {
        var events: [MirrorEvent] = []
        var left: [String] = []
        // Found through the sequence index and put in listing order here: ordering in SQL would walk the
        // position index over every row.
        let changed = try database.query(
            "SELECT \(Self.eventColumns), position FROM events WHERE sequence > ?", [.integer(sequence)]
        ) { row in Self.event(row).map { ($0, row.int64(5)) } }
        .compactMap { $0 }.sorted { ($0.1, $0.0.0.id) < ($1.1, $1.0.0.id) }.map(\.0)
        for (event, starts, ends) in changed {
            if Self.shows(starts, ends, in: window) { events.append(event) } else { left.append(event.id) }
        }
        let removed = try database.query(
            "SELECT id FROM removals WHERE sequence > ? ORDER BY sequence, id", [.integer(sequence)]
        ) { $0.string(0) }.compactMap { $0 }
        return (events, left, removed)
    }

    private static func shows(_ starts: Int64?, _ ends: Int64?, in window: SyncWindow) -> Bool {
        guard let starts, let ends else { return true }
        return window.overlaps(start: starts, end: ends)
    }
}
