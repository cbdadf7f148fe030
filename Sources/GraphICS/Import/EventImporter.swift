import Foundation
import ICalBridge

/// `graph-ics import` against Microsoft Graph: creates, updates or cancels the events of an ``ImportPlan``
/// idempotently, in `$batch` requests.
///
/// The events are sent as planned: their payloads are final, and the run's ``ImportSettings`` are the ones
/// they were planned with (``PlannedEvent/settings``). An event planned with other settings than the first
/// event of the run is not imported; it is reported as failed.
///
/// For each planned event the importer
/// 1. looks up the events an earlier import created from the same source identity (UID, and RECURRENCE-ID
///    for one occurrence): graph-ics stores it in the single-value extended property
///    ``ImportIdentity/propertyID`` and finds it with `$filter`, twenty lookups per `$batch` (GET inside a
///    batch). With `--on-duplicate new` creates need no lookup;
/// 2. decides: create it when nothing was found; otherwise skip it, or (`update`) PATCH it when the file is
///    newer than the version stored in ``ImportIdentity/versionPropertyID`` (`SEQUENCE;DTSTAMP`, written with
///    every create and update); a METHOD:CANCEL or STATUS:CANCELLED event deletes (or, notifying its
///    attendees, cancels) what was found and never creates anything;
/// 3. sends the writes in `$batch` requests of up to twenty; each create carries a `transactionId` derived
///    from the source identity (and the calendar), so a create that is retried after a lost answer, or sent
///    again by a re-run whose lookup missed it, returns the event Graph made the first time;
/// 4. finishes series: reads each created series' occurrences (`/instances`, batched) and deletes the
///    EXDATE occurrences and patches the RECURRENCE-ID overrides, matched by `originalStart`. These steps
///    are idempotent (an occurrence already deleted or already changed is left as it is), and they run again
///    for a series that a re-run skips as already imported, so an import interrupted between creating a
///    series and finishing it is completed by running it again.
///
/// Nobody is mailed unless ``ImportSettings/notifiesAttendees``: payloads then carry no attendees, and an
/// event found with attendees is neither changed nor deleted (that would notify them); it is reported as
/// failed.
///
/// The requests go through the ``GraphClient``: at most four in flight for the mailbox, Retry-After honoured
/// (inner throttled requests of a batch are retried by the client). A failure of a whole request (Graph
/// unavailable after retries, the token refused) stops the run; ``ImportReport/stoppedBy`` holds it and the
/// events not yet done are reported as failed. Running the import again is always safe.
///
/// Thread-safety: ``run(_:onResult:)`` blocks the calling thread; one importer may be used from one thread
/// at a time.
public final class EventImporter: Sendable {
    public let client: GraphClient
    /// The zone the results' times are shown in (the user's); nil: each event's own.
    public let displayZone: ResolvedZone?

    public init(client: GraphClient, displayZone: ResolvedZone? = nil) {
        self.client = client
        self.displayZone = displayZone
    }

    // MARK: Events

    /// Whether graph-ics treats `event` as a cancellation: METHOD:CANCEL, or STATUS:CANCELLED.
    public static func isCancellation(_ event: PlannedEvent) -> Bool {
        event.method?.uppercased() == "CANCEL" || event.isCancelled
    }

    // MARK: Running

    /// Imports `items`, calling `onResult` with each event's result as soon as it is final (in the order
    /// they finish), and returns every result in input order.
    public func run(_ items: [ImportItem], onResult: @escaping (ImportResult) -> Void = { _ in }) -> ImportReport {
        let run = ImportRun(client: client, items: items, displayZone: displayZone, onResult: onResult)
        run.refuseOtherSettings()
        do {
            try run.lookUp()
            try run.lookUpSeriesOfOccurrences()
            try run.write()
            try run.finishSeries()
        } catch {
            run.stop(error)
            return ImportReport(results: run.finalResults(), stoppedBy: error)
        }
        return ImportReport(results: run.finalResults())
    }

    /// `import --dry-run`: looks up what earlier imports created, as ``run(_:onResult:)`` does, and returns
    /// what the run would do with each event (results with ``ImportResult/isPreview``: would create, would
    /// update, would skip, would cancel, or failed), in input order. Only reads: nothing is written, and a
    /// series' occurrences are not read. Throws what stopped the lookups (not signed in, Graph unavailable).
    public func preview(_ items: [ImportItem]) throws -> [ImportResult] {
        let run = ImportRun(client: client, items: items, displayZone: displayZone, onResult: { _ in })
        run.refuseOtherSettings()
        try run.lookUp()
        try run.lookUpSeriesOfOccurrences()
        return run.previewResults()
    }
}
