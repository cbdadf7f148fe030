import Foundation

// The occurrences and exceptions of series items: Graph's delta reports occurrences, never masters, so a
// removed occurrence is traced back to its series file through these ids.
extension SyncState {
    /// Records `ids` as the occurrences of the series item `fileName`, replacing what was recorded for it,
    /// each with its change key from `changeKeys` (none when it has no entry).
    public func setOccurrences(
        _ ids: [String], changeKeys: [String: String] = [:], of fileName: String, in pairing: SyncPairing
    ) throws {
        try clearOccurrences(of: fileName, in: pairing)
        for id in Set(ids).sorted() {
            try database.run(
                """
                INSERT INTO occurrence (pairing, graph_id, file_name, change_key) VALUES (?, ?, ?, ?)
                ON CONFLICT (pairing, graph_id) DO UPDATE SET file_name = excluded.file_name,
                    change_key = excluded.change_key
                """, [.integer(pairing.id), .text(id), .text(fileName), changeKeys[id].map { .text($0) } ?? .null])
        }
    }

    /// The occurrences recorded for each series item of `pairing`: by file name, each occurrence's Graph id
    /// with its change key (nil when none was recorded).
    public func occurrenceChangeKeys(in pairing: SyncPairing) throws -> [String: [String: String?]] {
        let rows = try database.query(
            "SELECT file_name, graph_id, change_key FROM occurrence WHERE pairing = ?", [.integer(pairing.id)]
        ) { ($0.string(0) ?? "", $0.string(1) ?? "", $0.string(2)) }
        var found: [String: [String: String?]] = [:]
        for (fileName, id, changeKey) in rows {
            found[fileName, default: [:]][id] = changeKey
        }
        return found
    }

    /// Forgets the occurrences recorded for the item `fileName`.
    public func clearOccurrences(of fileName: String, in pairing: SyncPairing) throws {
        try database.run(
            "DELETE FROM occurrence WHERE pairing = ? AND file_name = ?", [.integer(pairing.id), .text(fileName)])
    }

    /// The file name of the series item whose occurrence or exception has the Graph id `id`; nil when none.
    public func fileName(ofOccurrence id: String, in pairing: SyncPairing) throws -> String? {
        try database.query(
            "SELECT file_name FROM occurrence WHERE pairing = ? AND graph_id = ?", [.integer(pairing.id), .text(id)]
        ) { $0.string(0) }.first ?? nil
    }
}
