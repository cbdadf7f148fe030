import Foundation
import ICalBridge

extension EventImporter {
    /// Applies the EXDATEs and RECURRENCE-ID overrides of `item` to the series Graph holds as `seriesID`,
    /// exactly as an import does for a series it has just updated: its occurrences are read
    /// (`/instances`, batched), each EXDATE's occurrence is deleted (cancelled, notifying them, when the item
    /// was planned to notify attendees and the series has `attendees`), each override's occurrence is
    /// patched, matched by `originalStart`. An occurrence already deleted is left as it is, so calling this
    /// again is safe.
    ///
    /// An override Graph refuses to apply (moved onto or past a neighbour's day) makes its occurrence an event
    /// of its own, as an import does (``ImportResult/movedOccurrences``); one made so earlier, whose occurrence
    /// is no longer in the series, is changed there instead: found among `movedEventIDs` (the events the
    /// caller knows to name this series in their transactionId: sync reads them from its mirror, since a
    /// file sync pulled has Outlook's UID, not the one the import stored) by the original start their
    /// transactionId names, else by the file's UID and the RECURRENCE-ID.
    ///
    /// For `sync`, which changes the master itself (with `If-Match`) and then hands the series' follow-ups
    /// here. Returns the result: `updated`, or `failed` with the reason; throws what stopped the requests
    /// (Graph unavailable, the sign-in refused).
    public func finishSeries(
        of item: ImportItem, seriesID: String, attendees: Int = 0, movedEventIDs: [String] = []
    ) throws -> ImportResult {
        let run = ImportRun(client: client, items: [item], onResult: { _ in })
        run.provisional[0] = run.result(0, .updated, eventID: seriesID)
        run.series = [
            ImportRun.SeriesTask(
                index: 0, seriesID: seriesID, steps: item.event.followUps, mode: .updated, attendees: attendees,
                movedEventIDs: movedEventIDs)
        ]
        try run.finishSeries()
        return run.finalResults()[0]
    }
}
