import Foundation
import GraphICS
import GraphICSMirror

/// What one login's calendar serves, on disk (`<state dir>/dav/<16 hex>.sqlite`): the items with their
/// bodies, the deletions still reported to sync-collection, and the calendar's change sequence and mirror
/// cursor. One transaction writes a refresh's changes and the cursor, so a gateway killed at any instant
/// restarts from one refresh or the next, and answers at once from what it served.
final class DAVCalendarStore {
    let database: SQLiteDatabase

    /// What the store holds besides the items.
    struct Meta: Sendable, Equatable {
        /// Random, new for each store: a sync token of another store is refused.
        var generation: String
        /// The calendar's change sequence: every change of an item takes the next number.
        var sequence: Int64
        /// Sync tokens below this sequence are refused (the deletions before it were forgotten).
        var floor: Int64
        var cursor: MirrorCursor?
        /// When the last refresh from the mirror ended (seconds since 1970), 0 before the first.
        var refreshed: Int64
    }

    init(path: String) throws {
        try StateDirectory.prepare((path as NSString).deletingLastPathComponent)
        database = try SQLiteDatabase(path: path)
        try database.execute(
            """
            CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS items(
                name TEXT PRIMARY KEY, uid TEXT NOT NULL, graph_id TEXT NOT NULL, is_series INTEGER NOT NULL,
                body BLOB NOT NULL, etag TEXT NOT NULL, spans TEXT NOT NULL, sequence INTEGER NOT NULL,
                event_ids TEXT NOT NULL, master BLOB, kept TEXT NOT NULL, outside INTEGER NOT NULL,
                graph_body BLOB NOT NULL, serves_client INTEGER NOT NULL, failure TEXT);
            CREATE TABLE IF NOT EXISTS removed(name TEXT PRIMARY KEY, sequence INTEGER NOT NULL, at INTEGER NOT NULL);
            """)
        // A store made before items could fail.
        let columns = try database.query("SELECT name FROM pragma_table_info('items')") { $0.string(0) ?? "" }
        if !columns.contains("failure") { try database.execute("ALTER TABLE items ADD COLUMN failure TEXT") }
    }

    func meta() throws -> Meta {
        var values: [String: String] = [:]
        for (key, value) in try database.query("SELECT key, value FROM meta", row: { ($0.string(0), $0.string(1)) }) {
            if let key, let value { values[key] = value }
        }
        if let generation = values["generation"] {
            return Meta(
                generation: generation, sequence: Int64(values["sequence"] ?? "") ?? 0,
                floor: Int64(values["floor"] ?? "") ?? 0, cursor: values["cursor"].flatMap(MirrorCursor.init),
                refreshed: Int64(values["refreshed"] ?? "") ?? 0)
        }
        var bytes = [UInt8](repeating: 0, count: 8)
        for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255) }
        let meta = Meta(
            generation: bytes.map { String(format: "%02x", $0) }.joined(), sequence: 0, floor: 0, cursor: nil,
            refreshed: 0)
        try save(meta)
        return meta
    }

    func save(_ meta: Meta) throws {
        let values: [(String, String)] = [
            ("generation", meta.generation), ("sequence", String(meta.sequence)), ("floor", String(meta.floor)),
            ("cursor", meta.cursor?.description ?? ""), ("refreshed", String(meta.refreshed)),
        ]
        for (key, value) in values {
            try database.run("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", [.text(key), .text(value)])
        }
    }

    /// What the login set on the calendar with PROPPATCH (`calendar-color`, `calendar-order`).
    func keptProperties() throws -> [String: String] {
        var values: [String: String] = [:]
        let rows = try database.query("SELECT key, value FROM meta WHERE key LIKE 'prop:%'") {
            ($0.string(0) ?? "", $0.string(1) ?? "")
        }
        for (key, value) in rows { values[String(key.dropFirst(5))] = value }
        return values
    }

    func setKeptProperty(_ key: String, _ value: String?) throws {
        if let value {
            try database.run(
                "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", [.text("prop:" + key), .text(value)])
        } else {
            try database.run("DELETE FROM meta WHERE key = ?", [.text("prop:" + key)])
        }
    }

    func items() throws -> [DAVItem] {
        let decoder = JSONDecoder()
        return try database.query(
            "SELECT name, uid, graph_id, is_series, body, etag, spans, sequence, event_ids, master, kept, outside,"
                + " graph_body, serves_client, failure FROM items"
        ) { row in
            DAVItem(
                name: row.string(0) ?? "", uid: row.string(1) ?? "", graphID: row.string(2) ?? "",
                isSeries: row.int64(3) != 0, body: row.data(4) ?? Data(), graphBody: row.data(12) ?? Data(),
                servesClient: row.int64(13) != 0, etag: row.string(5) ?? "",
                spans: (try? decoder.decode([DAVSpan].self, from: Data((row.string(6) ?? "[]").utf8))) ?? [],
                sequence: row.int64(7),
                eventIDs: (try? decoder.decode([String].self, from: Data((row.string(8) ?? "[]").utf8))) ?? [],
                master: row.data(9),
                kept: (try? decoder.decode(DAVKeptProperties.self, from: Data((row.string(10) ?? "{}").utf8)))
                    ?? DAVKeptProperties(),
                outside: row.int64(11) != 0, failure: row.string(14))
        }
    }

    func removals() throws -> [(name: String, sequence: Int64)] {
        try database.query("SELECT name, sequence FROM removed") { ($0.string(0) ?? "", $0.int64(1)) }
    }

    func write(_ item: DAVItem) throws {
        let encoder = JSONEncoder()
        func json<T: Encodable>(_ value: T) -> String {
            String(decoding: (try? encoder.encode(value)) ?? Data("null".utf8), as: UTF8.self)
        }
        try database.run(
            "INSERT OR REPLACE INTO items(name, uid, graph_id, is_series, body, etag, spans, sequence, event_ids,"
                + " master, kept, outside, graph_body, serves_client, failure)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                .text(item.name), .text(item.uid), .text(item.graphID), .integer(item.isSeries ? 1 : 0),
                .blob(item.body), .text(item.etag), .text(json(item.spans)), .integer(item.sequence),
                .text(json(item.eventIDs)), .nullable(item.master), .text(json(item.kept)),
                .integer(item.outside ? 1 : 0), .blob(item.graphBody), .integer(item.servesClient ? 1 : 0),
                .nullable(item.failure),
            ])
        try database.run("DELETE FROM removed WHERE name = ?", [.text(item.name)])
    }

    func remove(_ name: String, sequence: Int64, now: Int64) throws {
        try database.run("DELETE FROM items WHERE name = ?", [.text(name)])
        try database.run(
            "INSERT OR REPLACE INTO removed(name, sequence, at) VALUES (?, ?, ?)",
            [.text(name), .integer(sequence), .integer(now)])
    }

    /// Forgets deletions older than `before`; returns the highest sequence forgotten (the new floor), if any.
    func forgetRemovals(before: Int64) throws -> Int64? {
        let highest =
            try database.query(
                "SELECT MAX(sequence) FROM removed WHERE at < ?", [.integer(before)], row: { $0.optionalInt64(0) }
            ).first ?? nil
        try database.run("DELETE FROM removed WHERE at < ?", [.integer(before)])
        return highest
    }
}
