import Foundation

// The occurrences and exceptions of series items: Graph's delta reports occurrences, never masters, so a
// removed occurrence is traced back to its series file through these ids.
extension SyncState {
    /// Records `ids` as the occurrences of the series item `fileName`, replacing what was recorded for it.
    public func setOccurrences(_ ids: [String], of fileName: String, in pairing: SyncPairing) throws {
        try clearOccurrences(of: fileName, in: pairing)
        for id in Set(ids).sorted() {
            try database.run(
                """
                INSERT INTO occurrence (pairing, graph_id, file_name) VALUES (?, ?, ?)
                ON CONFLICT (pairing, graph_id) DO UPDATE SET file_name = excluded.file_name
                """, [.integer(pairing.id), .text(id), .text(fileName)])
        }
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
