import Foundation
import GraphICS
import ICalBridge

/// One item's file as Graph has it now, and what the state records for it.
struct PullUpdate {
    var fileName: String
    var uid: String
    var graphID: String
    var changeKey: String?
    var contents: Data
    var sha256: Data
    /// A series' occurrences and exceptions in the window (empty for a single event).
    var occurrenceIDs: [String]
}

/// What preparing one item found.
enum PreparedItem {
    case update(PullUpdate)
    /// The series' master is gone from Graph (404), or none of its occurrences is in the window any more.
    case gone
    /// It could not be converted (the diagnostics say why); its file is left as it is.
    case skipped
}

extension SyncPull {
    /// Encodes `source` as its file: a single event from its delta entry; a series from its master and its
    /// occurrences (those of the round, or with `fetchOccurrences` all of the window's, read again).
    ///
    /// A series' master comes from `masters` (read ahead, nil when Graph no longer has it), else is read now.
    func prepare(
        _ source: PullItemSource, window: SyncWindow, fetchOccurrences: Bool, masters: [String: Data?] = [:],
        diagnostics: inout [Diagnostic]
    ) throws -> PreparedItem {
        let encoder = PullItemEncoder(client: client, options: options, window: window)
        guard source.isSeries else {
            guard let encoded = try encoder.encode(source.events, master: nil, diagnostics: &diagnostics) else {
                return .skipped
            }
            return .update(update(encoded, graphID: source.graphID, changeKey: source.changeKey, occurrences: []))
        }
        let read =
            try masters[source.graphID] ?? CalendarExporter(client: client).fetchMasters([source.graphID]).first?.value
        guard let master = read ?? nil else { return .gone }
        let events = fetchOccurrences ? try occurrences(of: source.graphID, in: window) : source.events
        // Every occurrence moved out of the window (or the pattern shortened before it): the series is gone
        // from the window as a single event moved out of it is.
        guard !events.isEmpty else { return .gone }
        let encoded = try encoder.encode(events, master: (source.graphID, master), diagnostics: &diagnostics)
        guard let encoded else { return .skipped }
        let changeKey = Self.fields(master)["changeKey"] as? String
        let ids = events.compactMap { Self.fields($0)["id"] as? String }
        return .update(update(encoded, graphID: source.graphID, changeKey: changeKey, occurrences: ids))
    }

    private func update(_ encoded: PullItemEncoder.Encoded, graphID: String, changeKey: String?, occurrences: [String])
        -> PullUpdate
    {
        PullUpdate(
            fileName: VdirFileName.forUID(encoded.uid), uid: encoded.uid, graphID: graphID, changeKey: changeKey,
            contents: encoded.contents, sha256: SHA256.hash(encoded.contents), occurrenceIDs: occurrences)
    }

    /// The occurrences and exceptions of a series in the window (`GET events/{id}/instances`), each as JSON.
    private func occurrences(of masterID: String, in window: SyncWindow) throws -> [Data] {
        var events: [Data] = []
        try client.instances(seriesMasterID: masterID, start: window.startDate, end: window.endDate) { page in
            let object = (try? JSONSerialization.jsonObject(with: page)) as? [String: Any]
            for entry in object?["value"] as? [[String: Any]] ?? [] {
                events.append(try JSONSerialization.data(withJSONObject: entry))
            }
        }
        return events
    }

    static func fields(_ json: Data) -> [String: Any] {
        ((try? JSONSerialization.jsonObject(with: json)) as? [String: Any]) ?? [:]
    }
}
