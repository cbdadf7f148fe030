import Foundation
import GraphICS

// A calendar other than the primary one: Graph v1.0 documents `calendarView/delta` only for the primary
// calendar (`api/event-delta.md`), so every pull reads the calendar's calendarView over the stored window and
// compares each item's change keys with its record.
extension SyncPull {
    /// Reads every event of calendar `id` in `window` (one range, pages of ``pageSize``) and plans the
    /// folder to match it; the window is stored (with no delta link) for the next pull.
    func calendarViewRound(_ id: String, window: SyncWindow, round: PullReport.Round, records: [SyncItemRecord])
        throws -> PullPlan
    {
        var events: [GraphEntry] = []
        try client.calendarView(
            calendarID: id, start: window.startDate, end: window.endDate, window: GraphClient.longestRange,
            pageSize: pageSize
        ) { page in
            events += try Self.calendarViewEvents(page)
        }
        var plan = PullPlan(
            round: round, window: window, items: [], keptLocalChanges: [], diagnostics: [], unchanged: 0,
            updates: [], deletions: [], checkpoint: .window(window))
        // Over the stored window a series whose occurrences kept their change keys is the file it was.
        let keys = round == .changes ? try state.occurrenceChangeKeys(in: pairing) : [:]
        try compare(
            DeltaEntryShape.group(events), with: records, fetchOccurrences: false, occurrenceKeys: keys, into: &plan)
        return plan
    }

    /// The events of one calendarView page, shaped as delta entries.
    static func calendarViewEvents(_ page: Data) throws -> [GraphEntry] {
        guard let object = try? JSONSerialization.jsonObject(with: page) as? [String: Any],
            let entries = object["value"] as? [[String: Any]]
        else {
            throw GraphError(
                .other, operation: "reading calendarView",
                message: "Graph's answer could not be read: a page has no "
                    + "\"value\" array")
        }
        return try entries.compactMap { entry in
            guard let id = entry["id"] as? String else { return nil }
            return GraphEntry(
                id: id, changeKey: entry["changeKey"] as? String, raw: try JSONSerialization.data(withJSONObject: entry)
            )
        }
    }
}
