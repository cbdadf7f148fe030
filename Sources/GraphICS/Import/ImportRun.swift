import Foundation
import ICalBridge

/// The state of one ``EventImporter/run(_:onResult:)``: what was found, what is written, which results are
/// final. Used on one thread.
final class ImportRun {
    let client: GraphClient
    /// The settings of the run: those the first event was planned with.
    let settings: ImportSettings
    let items: [ImportItem]
    /// The events, sent as planned.
    let events: [PlannedEvent]
    /// The identity key of each event.
    let keys: [String]
    let onResult: (ImportResult) -> Void
    /// The zone the results' times are shown in; nil: each event's own.
    let displayZone: ResolvedZone?
    /// Events whose result was passed to `onResult` while their `$batch` came back (``EarlyCreates``): their
    /// final result is the same and is not passed again.
    var reportedEarly: [Int: ImportResult] = [:]
    /// Final results; nil while an event is not done.
    var results: [ImportResult?]
    /// Results that become final once the event's series is finished.
    var provisional: [Int: ImportResult] = [:]

    /// Events to create, in input order.
    var creates: [Int] = []
    /// Events to change, with the events to change and what changes in each (``EventChange``; nil: the whole
    /// payload is sent, Graph's event was not read).
    var updates: [(index: Int, targets: [(event: ExistingEvent, change: EventChange?)])] = []
    /// Cancellations, with what the lookup found.
    var cancels: [(index: Int, targets: [ExistingEvent])] = []
    /// Cancellations of one occurrence whose own identity was not found: their series, by the series' UID.
    var occurrenceCancels: [Int] = []
    /// Series whose EXDATEs and overrides are (re)applied after the writes.
    var series: [SeriesTask] = []
    /// The events created in this run, by identity key and input position.
    var createdByKey: [String: [(index: Int, id: String)]] = [:]
    /// Creates Graph refused because their transactionId was used before with another body, waiting to be
    /// looked up again (``retryRefusedCreates()``).
    var refusedCreates: [Int] = []
    /// Creates sent with ``ImportIdentity/versionedTransactionID(for:)`` instead of the planned transactionId.
    var versionedCreates: Set<Int> = []
    /// Events whose changed DESCRIPTION was left out of what went to an online meeting (``OnlineMeetingBody``):
    /// their result says Outlook's description was kept.
    var keptBodies: Set<Int> = []

    /// A series to finish, or a series one occurrence of which is cancelled.
    struct SeriesTask {
        enum Mode {
            /// Created in this run: every step applies; a missing occurrence is an error.
            case created
            /// Changed in this run: every step applies again (overrides included).
            case updated
            /// Found already imported: steps not yet applied are applied (an interrupted import resumes).
            case resumed
            /// A METHOD:CANCEL for one occurrence of an imported series.
            case cancellingOccurrence
        }

        var index: Int
        var seriesID: String
        var steps: [FollowUp]
        var mode: Mode
        /// How many attendees the series has: deleting or changing its occurrences notifies them.
        var attendees: Int
        /// Events the caller knows to hold occurrences of this series moved past a neighbour's day (sync: from
        /// its mirror, by the transactionId that names the series), read by id when an override's occurrence
        /// is no longer in the series.
        var movedEventIDs: [String] = []
    }

    init(
        client: GraphClient, items: [ImportItem], displayZone: ResolvedZone? = nil,
        onResult: @escaping (ImportResult) -> Void
    ) {
        self.client = client
        self.displayZone = displayZone
        settings = items.first?.event.settings ?? ImportSettings()
        self.items = items
        events = items.map(\.event)
        keys = items.map { ImportIdentity.key(uid: $0.event.sourceUID, recurrenceID: $0.event.recurrenceID) }
        self.onResult = onResult
        results = Array(repeating: nil, count: items.count)
    }

    // MARK: Results

    func result(
        _ index: Int, _ action: ImportResult.Action, eventID: String? = nil, error: String? = nil, note: String? = nil
    ) -> ImportResult {
        let event = items[index].event
        return ImportResult(
            file: items[index].file, uid: event.sourceUID, recurrenceID: event.recurrenceID,
            subject: event.payload.subject, action: action, eventID: eventID, error: error, note: note,
            when: EventLabel.when(event.payload, in: displayZone))
    }

    func finish(_ result: ImportResult, at index: Int) {
        guard results[index] == nil else { return }
        var result = result
        if keptBodies.contains(index), result.action != .failed {
            result.note = [result.note, OnlineMeetingBody.keptNote].compactMap { $0 }.joined(separator: "; ")
        }
        provisional[index] = nil
        results[index] = result
        if reportedEarly[index] != result { onResult(result) }
    }

    func finish(
        _ index: Int, _ action: ImportResult.Action, eventID: String? = nil, error: String? = nil, note: String? = nil
    ) {
        finish(result(index, action, eventID: eventID, error: error, note: note), at: index)
    }

    /// Fails every event planned with other settings than the run's: its transactionId and attendees were
    /// written for another calendar, duplicate policy or attendee choice.
    func refuseOtherSettings() {
        for index in items.indices where events[index].settings != settings {
            finish(
                index, .failed,
                error: "planned for \(events[index].settings), but the run imports for \(settings) (the settings of"
                    + " its first event); plan every file of one import with the same settings")
        }
    }

    /// Marks every event not yet done as failed because of `error`, which stopped the run.
    func stop(_ error: any Error) {
        for index in items.indices where results[index] == nil {
            if var done = provisional[index] {
                let what = done.action == .skipped ? "already imported" : "\(done.action.rawValue)"
                done.action = .failed
                done.error = "\(what), but its series was not finished: \(error)"
                finish(done, at: index)
            } else {
                finish(index, .failed, error: "not imported: \(error)")
            }
        }
    }

    func finalResults() -> [ImportResult] {
        items.indices.map { index in
            results[index] ?? provisional[index] ?? result(index, .failed, error: "not imported")
        }
    }

    static func reason(_ answer: BatchResponse, _ operation: String) -> String {
        answer.error(operation: operation)?.description ?? "HTTP \(answer.status)"
    }
}
