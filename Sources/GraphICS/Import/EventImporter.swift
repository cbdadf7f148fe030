import Foundation
import ICalBridge

/// One event to import, with the file it came from (for the report).
public struct ImportItem: Sendable {
    /// The input file as the user named it (`<stdin>` for standard input).
    public var file: String
    public var event: PlannedEvent

    public init(file: String, event: PlannedEvent) {
        self.file = file
        self.event = event
    }
}

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

    public init(client: GraphClient) {
        self.client = client
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
        let run = ImportRun(client: client, items: items, onResult: onResult)
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
}

/// An event an earlier import created, as the lookup returns it.
struct ExistingEvent {
    var id: String
    var type: String?
    var isOrganizer: Bool
    var attendees: Int
    var version: String?

    /// Reads the events of a lookup answer (`{"value": [...]}`); nil when it is not one.
    static func list(from body: Data) -> (events: [ExistingEvent], more: Bool)? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let values = object["value"] as? [[String: Any]]
        else { return nil }
        let events = values.compactMap { value -> ExistingEvent? in
            guard let id = value["id"] as? String else { return nil }
            var version: String?
            for property in value["singleValueExtendedProperties"] as? [[String: Any]] ?? [] {
                if let propertyID = property["id"] as? String,
                    propertyID.caseInsensitiveCompare(ImportIdentity.versionPropertyID) == .orderedSame
                {
                    version = property["value"] as? String
                }
            }
            return ExistingEvent(
                id: id,
                type: value["type"] as? String,
                isOrganizer: value["isOrganizer"] as? Bool ?? true,
                attendees: (value["attendees"] as? [Any])?.count ?? 0,
                version: version)
        }
        return (events, object["@odata.nextLink"] != nil)
    }
}

/// An occurrence of a series, as `/instances` returns it.
struct Occurrence {
    var id: String
    var type: String?
    /// The start the pattern gave it, seconds since the epoch (UTC).
    var originalStart: Int64?
    /// The date of its start as Graph shows it (`2027-01-19`), for all-day series.
    var startDate: String?

    static func list(from body: Data) -> (occurrences: [Occurrence], nextLink: String?)? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let values = object["value"] as? [[String: Any]]
        else { return nil }
        let occurrences = values.compactMap { value -> Occurrence? in
            guard let id = value["id"] as? String else { return nil }
            let original = (value["originalStart"] as? String).flatMap(FollowUpTime.instant)
            let start = (value["start"] as? [String: Any])?["dateTime"] as? String
            return Occurrence(
                id: id, type: value["type"] as? String, originalStart: original,
                startDate: start.map { String($0.prefix(10)) })
        }
        return (occurrences, object["@odata.nextLink"] as? String)
    }
}

/// The `originalStart` of a follow-up: a UTC instant (`2027-01-19T18:00:00Z`) or an all-day date (`2027-01-19`).
enum FollowUpTime {
    /// Seconds since the epoch of a Graph or plan timestamp; a time without offset is taken as UTC.
    static func instant(_ text: String) -> Int64? {
        guard let parsed = GraphTimestamp.parse(text) else { return nil }
        return parsed.instant ?? parsed.civil.secondsSinceEpoch
    }

    /// Whether `text` names a day (all-day series), not an instant.
    static func isDate(_ text: String) -> Bool {
        text.count == 10 && !text.contains("T")
    }

    /// The occurrence of `occurrences` that `originalStart` names.
    static func match(_ originalStart: String, in occurrences: [Occurrence]) -> Occurrence? {
        if isDate(originalStart) {
            return occurrences.first { $0.startDate == originalStart }
                ?? occurrences.first { occurrence in
                    occurrence.originalStart.map { CivilDateTime(secondsSinceEpoch: $0).dateString } == originalStart
                }
        }
        guard let instant = instant(originalStart) else { return nil }
        return occurrences.first { $0.originalStart == instant }
    }

    /// The originalStart of the occurrence a RECURRENCE-ID names (`20270119T180000Z`, `20270119`, or a local
    /// `20270119T190000` read in `zoneName`, the zone of the event's start).
    static func originalStart(recurrenceID: String, zoneName: String?) -> String? {
        let digits = recurrenceID.filter { $0.isNumber }
        guard digits.count == 8 || digits.count == 14 else { return nil }
        func number(_ from: Int, _ length: Int) -> Int {
            let start = digits.index(digits.startIndex, offsetBy: from)
            return Int(digits[start..<digits.index(start, offsetBy: length)]) ?? 0
        }
        var civil = CivilDateTime(year: number(0, 4), month: number(4, 2), day: number(6, 2))
        if digits.count == 8 { return civil.dateString }
        civil.hour = number(8, 2)
        civil.minute = number(10, 2)
        civil.second = number(12, 2)
        var instant = civil.secondsSinceEpoch
        if !recurrenceID.uppercased().hasSuffix("Z") {
            guard case .resolved(let zone, _) = ZoneResolver.resolve(zoneName) else { return nil }
            instant = zone.instant(forLocal: civil)
        }
        return CivilDateTime(secondsSinceEpoch: instant).description + "Z"
    }
}

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
    /// Final results; nil while an event is not done.
    private var results: [ImportResult?]
    /// Results that become final once the event's series is finished.
    private var provisional: [Int: ImportResult] = [:]

    /// Events to create, in input order.
    private var creates: [Int] = []
    /// Events to change, with the events to change.
    private var updates: [(index: Int, targets: [ExistingEvent])] = []
    /// Cancellations, with what the lookup found.
    private var cancels: [(index: Int, targets: [ExistingEvent])] = []
    /// Cancellations of one occurrence whose own identity was not found: their series, by the series' UID.
    private var occurrenceCancels: [Int] = []
    /// Series whose EXDATEs and overrides are (re)applied after the writes.
    private var series: [SeriesTask] = []
    /// The events created in this run, by identity key and input position.
    private var createdByKey: [String: [(index: Int, id: String)]] = [:]

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
    }

    init(client: GraphClient, items: [ImportItem], onResult: @escaping (ImportResult) -> Void) {
        self.client = client
        settings = items.first?.event.settings ?? ImportSettings()
        self.items = items
        events = items.map(\.event)
        keys = items.map { ImportIdentity.key(uid: $0.event.sourceUID, recurrenceID: $0.event.recurrenceID) }
        self.onResult = onResult
        results = Array(repeating: nil, count: items.count)
    }

    // MARK: Results

    private func result(
        _ index: Int, _ action: ImportResult.Action, eventID: String? = nil, error: String? = nil, note: String? = nil
    ) -> ImportResult {
        let event = items[index].event
        return ImportResult(
            file: items[index].file, uid: event.sourceUID, recurrenceID: event.recurrenceID,
            subject: event.payload.subject, action: action, eventID: eventID, error: error, note: note)
    }

    private func finish(_ result: ImportResult, at index: Int) {
        guard results[index] == nil else { return }
        provisional[index] = nil
        results[index] = result
        onResult(result)
    }

    private func finish(
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

    private static func reason(_ answer: BatchResponse, _ operation: String) -> String {
        answer.error(operation: operation)?.description ?? "HTTP \(answer.status)"
    }

    private var meetingRefusal: String {
        "Graph would notify them; run with --as-meeting --yes to allow that"
    }

    // MARK: Requests

    /// The lookup of the events whose identity property holds `key`, relative to the service root, for a
    /// GET inside `$batch`: `$filter` on the identity property, the version property expanded.
    func lookupURL(key: String) -> String {
        let filter =
            "singleValueExtendedProperties/Any(ep: ep/id eq \(GraphQuery.literal(ImportIdentity.propertyID))"
            + " and ep/value eq \(GraphQuery.literal(key)))"
        let query: [(name: String, value: String)] = [
            ("$filter", filter),
            (
                "$expand",
                "singleValueExtendedProperties($filter=id eq \(GraphQuery.literal(ImportIdentity.versionPropertyID)))"
            ),
            ("$select", "id,subject,type,isOrganizer,attendees"),
            ("$top", "10"),
        ]
        return client.eventsPath(calendarID: settings.calendarID) + "?" + GraphQuery.queryString(query)
    }

    /// The occurrences of a series between `start` and `end`, relative to the service root.
    func instancesURL(seriesID: String, start: Date, end: Date) -> String {
        let query: [(name: String, value: String)] = [
            ("startDateTime", GraphClient.iso8601(start)),
            ("endDateTime", GraphClient.iso8601(end)),
            ("$select", "id,type,originalStart,start,end,isAllDay"),
            ("$top", "1000"),
        ]
        return client.eventPath(id: seriesID) + "/instances?" + GraphQuery.queryString(query)
    }

    // MARK: 1. Lookups

    /// Looks up every event that needs it (cancellations always; creates unless `--on-duplicate new`) in
    /// batched GETs, and decides what to do with each.
    func lookUp() throws {
        var firstByKey: [String: Int] = [:]
        var lookups: [BatchRequest] = []
        var lookedUp: [Int] = []
        for index in items.indices where results[index] == nil {
            let cancelling = EventImporter.isCancellation(items[index].event)
            if cancelling || settings.onDuplicate != .new {
                let seenKey = (cancelling ? "cancel\n" : "create\n") + keys[index]
                if firstByKey[seenKey] != nil {
                    finish(index, .skipped, note: "the same event as earlier in the input")
                    continue
                }
                firstByKey[seenKey] = index
            }
            if !cancelling && settings.onDuplicate == .new {
                creates.append(index)
                continue
            }
            lookups.append(
                BatchRequest(id: "\(lookups.count)", method: "GET", url: lookupURL(key: keys[index])))
            lookedUp.append(index)
        }
        let answers = try client.batch(lookups)
        for (index, answer) in zip(lookedUp, answers) {
            guard answer.succeeded, let found = ExistingEvent.list(from: answer.body) else {
                finish(index, .failed, error: Self.reason(answer, "looking up the event"))
                continue
            }
            decide(index, found: found.events)
        }
    }

    private func decide(_ index: Int, found: [ExistingEvent]) {
        let event = events[index]
        if EventImporter.isCancellation(event) {
            if found.isEmpty, event.recurrenceID != nil {
                occurrenceCancels.append(index)
            } else {
                cancels.append((index, found))
            }
            return
        }
        guard let first = found.first else {
            creates.append(index)
            return
        }
        switch settings.onDuplicate {
        case .skip, .new:
            skip(index, existing: first, note: "already imported")
        case .update:
            let stored = first.version
            guard ImportIdentity.isNewer(sequence: event.sequence, timestamp: event.timestamp, than: stored) else {
                let version = stored.map { " (stored SEQUENCE;DTSTAMP \($0))" } ?? ""
                skip(index, existing: first, note: "already imported; the file is not newer\(version)")
                return
            }
            if !settings.notifiesAttendees, let meeting = found.first(where: { $0.attendees > 0 }) {
                finish(
                    index, .failed, eventID: meeting.id,
                    error: "the event imported before is a meeting with \(meeting.attendees) attendee(s); updating it "
                        + meetingRefusal)
                return
            }
            updates.append((index, found))
        }
    }

    /// Skips an event already imported; a series among them gets its follow-ups re-applied.
    private func skip(_ index: Int, existing: ExistingEvent, note: String) {
        let done = result(index, .skipped, eventID: existing.id, note: note)
        let steps = events[index].followUps
        guard !steps.isEmpty, existing.type == "seriesMaster",
            existing.attendees == 0 || settings.notifiesAttendees
        else {
            finish(done, at: index)
            return
        }
        provisional[index] = done
        series.append(
            SeriesTask(index: index, seriesID: existing.id, steps: steps, mode: .resumed, attendees: existing.attendees)
        )
    }

    /// Cancellations of one occurrence not imported on its own: look for the series by its UID.
    func lookUpSeriesOfOccurrences() throws {
        guard !occurrenceCancels.isEmpty else { return }
        let requests = occurrenceCancels.enumerated().map { position, index in
            BatchRequest(
                id: "\(position)", method: "GET",
                url: lookupURL(key: ImportIdentity.key(uid: events[index].sourceUID, recurrenceID: nil)))
        }
        let answers = try client.batch(requests)
        for (index, answer) in zip(occurrenceCancels, answers) {
            guard answer.succeeded, let found = ExistingEvent.list(from: answer.body) else {
                finish(index, .failed, error: Self.reason(answer, "looking up the series of the occurrence"))
                continue
            }
            let event = events[index]
            guard let master = found.events.first(where: { $0.type == "seriesMaster" }),
                let recurrenceID = event.recurrenceID,
                let start = FollowUpTime.originalStart(
                    recurrenceID: recurrenceID, zoneName: event.payload.start?.timeZone)
            else {
                finish(index, .skipped, note: "nothing to cancel: not in the calendar")
                continue
            }
            if master.attendees > 0, !settings.notifiesAttendees {
                finish(
                    index, .failed, eventID: master.id,
                    error: "the series is a meeting with \(master.attendees) attendee(s); cancelling an occurrence "
                        + meetingRefusal)
                continue
            }
            series.append(
                SeriesTask(
                    index: index, seriesID: master.id, steps: [.cancelOccurrence(originalStart: start)],
                    mode: .cancellingOccurrence, attendees: master.attendees))
        }
    }

    // MARK: 2. Writes

    private enum Write {
        case create
        case update(ExistingEvent)
        case cancel(ExistingEvent)
    }

    /// Creates and updates in one batched call, then the cancellations (which may target events created
    /// just now by an earlier part of the input).
    func write() throws {
        var requests: [BatchRequest] = []
        var writes: [(index: Int, write: Write)] = []
        for index in creates {
            do {
                let body = try events[index].payload.jsonPayload()
                requests.append(
                    BatchRequest(
                        id: "\(requests.count)", method: "POST",
                        url: client.eventsPath(calendarID: settings.calendarID), body: body))
                writes.append((index, .create))
            } catch {
                finish(index, .failed, error: error.description)
            }
        }
        for (index, targets) in updates {
            do {
                let body = try events[index].updatePayload.jsonPayload()
                for target in targets {
                    requests.append(
                        BatchRequest(
                            id: "\(requests.count)", method: "PATCH", url: client.eventPath(id: target.id), body: body))
                    writes.append((index, .update(target)))
                }
            } catch {
                finish(index, .failed, error: error.description)
            }
        }
        try settle(requests, writes)

        requests = []
        writes = []
        for (index, found) in cancels {
            var targets = found
            for created in createdByKey[keys[index]] ?? [] where created.index < index {
                targets.append(ExistingEvent(id: created.id, type: nil, isOrganizer: true, attendees: 0, version: nil))
                // A series cancelled right after its creation needs no finishing.
                series.removeAll { $0.index == created.index }
                if let done = provisional[created.index] { finish(done, at: created.index) }
            }
            guard !targets.isEmpty else {
                finish(index, .skipped, note: "nothing to cancel: not in the calendar")
                continue
            }
            if !settings.notifiesAttendees, let meeting = targets.first(where: { $0.attendees > 0 && $0.isOrganizer }) {
                finish(
                    index, .failed, eventID: meeting.id,
                    error: "the event is a meeting with \(meeting.attendees) attendee(s); cancelling it "
                        + meetingRefusal)
                continue
            }
            for target in targets {
                let notify = settings.notifiesAttendees && target.attendees > 0 && target.isOrganizer
                requests.append(
                    notify
                        ? BatchRequest(
                            id: "\(requests.count)", method: "POST", url: client.eventPath(id: target.id) + "/cancel",
                            body: Data("{}".utf8))
                        : BatchRequest(id: "\(requests.count)", method: "DELETE", url: client.eventPath(id: target.id)))
                writes.append((index, .cancel(target)))
            }
        }
        try settle(requests, writes)
    }

    /// Sends `requests` and turns their answers into results (or, for series, provisional results).
    private func settle(_ requests: [BatchRequest], _ writes: [(index: Int, write: Write)]) throws {
        guard !requests.isEmpty else { return }
        let answers = try client.batch(requests)
        // Per event: the id it got or was found with, and the first failure.
        var outcomes: [Int: (id: String?, failure: String?)] = [:]
        var order: [Int] = []
        for ((index, write), answer) in zip(writes, answers) {
            if outcomes[index] == nil {
                order.append(index)
                outcomes[index] = (nil, nil)
            }
            var outcome = outcomes[index] ?? (nil, nil)
            switch write {
            case .create:
                if answer.succeeded,
                    let object = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any],
                    let id = object["id"] as? String
                {
                    outcome.id = id
                    createdByKey[keys[index], default: []].append((index, id))
                } else {
                    outcome.failure = outcome.failure ?? Self.reason(answer, "creating the event")
                }
            case .update(let target):
                if answer.succeeded {
                    outcome.id = outcome.id ?? target.id
                } else {
                    outcome.failure = outcome.failure ?? Self.reason(answer, "updating event \(target.id)")
                }
            case .cancel(let target):
                // Already gone (a re-run after a lost answer) is what was asked for.
                if answer.succeeded || answer.status == 404 {
                    outcome.id = outcome.id ?? target.id
                } else {
                    outcome.failure = outcome.failure ?? Self.reason(answer, "cancelling event \(target.id)")
                }
            }
            outcomes[index] = outcome
        }
        for index in order {
            guard let outcome = outcomes[index] else { continue }
            let kind = writes.first { $0.index == index }?.write
            if let failure = outcome.failure {
                finish(index, .failed, eventID: outcome.id, error: failure)
                continue
            }
            switch kind {
            case .create?:
                settleSeries(index, action: .created, id: outcome.id, mode: .created)
            case .update(let target)?:
                settleSeries(index, action: .updated, id: outcome.id, mode: .updated, attendees: target.attendees)
            case .cancel?, nil:
                finish(index, .cancelled, eventID: outcome.id)
            }
        }
    }

    private func settleSeries(
        _ index: Int, action: ImportResult.Action, id: String?, mode: SeriesTask.Mode, attendees: Int = 0
    ) {
        let done = result(index, action, eventID: id)
        let steps = events[index].followUps
        guard let id, !steps.isEmpty, events[index].payload.recurrence != nil else {
            finish(done, at: index)
            return
        }
        provisional[index] = done
        let sent = events[index].payload.attendees?.count ?? 0
        series.append(
            SeriesTask(index: index, seriesID: id, steps: steps, mode: mode, attendees: max(sent, attendees)))
    }

    // MARK: 3. Series

    /// Reads the occurrences of every series with follow-ups (batched), then deletes and patches them.
    func finishSeries() throws {
        guard !series.isEmpty else { return }
        var windows: [(start: Date, end: Date)] = []
        var requests: [BatchRequest] = []
        for (position, task) in series.enumerated() {
            let instants = task.steps.compactMap { step -> Int64? in
                switch step {
                case .cancelOccurrence(let start), .patchOccurrence(let start, _): FollowUpTime.instant(start)
                }
            }
            let first = instants.min() ?? 0
            let last = instants.max() ?? 0
            // Two days on either side: an all-day date is midnight in any zone, and a changed occurrence may
            // have moved a little.
            let window = (
                start: Date(timeIntervalSince1970: TimeInterval(first - 2 * 86_400)),
                end: Date(timeIntervalSince1970: TimeInterval(last + 2 * 86_400))
            )
            windows.append(window)
            requests.append(
                BatchRequest(
                    id: "\(position)", method: "GET",
                    url: instancesURL(seriesID: task.seriesID, start: window.start, end: window.end)))
        }
        let answers = try client.batch(requests)
        var failures: [Int: String] = [:]
        var applied: [Int: (deleted: Int, changed: Int)] = [:]
        var writes: [BatchRequest] = []
        var owners: [(position: Int, what: String)] = []
        for (position, answer) in zip(series.indices, answers) {
            let task = series[position]
            guard answer.succeeded, var page = Occurrence.list(from: answer.body) else {
                failures[position] = Self.reason(answer, "reading the occurrences of series \(task.seriesID)")
                continue
            }
            var occurrences = page.occurrences
            while let link = page.nextLink {
                let url = try client.followable(link, operation: "reading the occurrences of a series")
                let response = try client.perform(
                    HTTPRequest(method: "GET", url: url), operation: "reading the occurrences of a series")
                guard let next = Occurrence.list(from: response.body) else { break }
                occurrences += next.occurrences
                page = next
            }
            for step in task.steps {
                switch step {
                case .cancelOccurrence(let start):
                    guard let occurrence = FollowUpTime.match(start, in: occurrences) else { continue }
                    let notify = settings.notifiesAttendees && task.attendees > 0
                    writes.append(
                        notify
                            ? BatchRequest(
                                id: "\(writes.count)", method: "POST",
                                url: client.eventPath(id: occurrence.id) + "/cancel", body: Data("{}".utf8))
                            : BatchRequest(
                                id: "\(writes.count)", method: "DELETE", url: client.eventPath(id: occurrence.id)))
                    owners.append((position, "deleting the occurrence of \(start)"))
                case .patchOccurrence(let start, let changes):
                    if task.mode == .cancellingOccurrence { continue }
                    guard let occurrence = FollowUpTime.match(start, in: occurrences) else {
                        if task.mode == .created {
                            failures[position] =
                                failures[position] ?? "the occurrence of \(start) is not in the created series"
                        }
                        continue
                    }
                    // Already changed (an earlier run got this far) unless the series itself was changed now.
                    if occurrence.type == "exception", task.mode == .resumed { continue }
                    do {
                        writes.append(
                            BatchRequest(
                                id: "\(writes.count)", method: "PATCH", url: client.eventPath(id: occurrence.id),
                                body: try changes.jsonPayload()))
                        owners.append((position, "changing the occurrence of \(start)"))
                    } catch {
                        failures[position] = failures[position] ?? error.description
                    }
                }
            }
        }
        let writeAnswers = try client.batch(writes)
        for (owner, answer) in zip(owners, writeAnswers) {
            if answer.succeeded || (answer.status == 404 && owner.what.hasPrefix("deleting")) {
                var counts = applied[owner.position] ?? (0, 0)
                if owner.what.hasPrefix("deleting") { counts.deleted += 1 } else { counts.changed += 1 }
                applied[owner.position] = counts
            } else {
                failures[owner.position] = failures[owner.position] ?? Self.reason(answer, owner.what)
            }
        }
        for (position, task) in series.enumerated() {
            let counts = applied[position] ?? (0, 0)
            if task.mode == .cancellingOccurrence {
                if let failure = failures[position] {
                    finish(task.index, .failed, eventID: task.seriesID, error: failure)
                } else if counts.deleted > 0 {
                    finish(
                        task.index, .cancelled, eventID: task.seriesID, note: "one occurrence of the series")
                } else {
                    finish(task.index, .skipped, eventID: task.seriesID, note: "nothing to cancel: no such occurrence")
                }
                continue
            }
            var done = provisional[task.index] ?? result(task.index, .failed)
            if let failure = failures[position] {
                let what = done.action == .skipped ? "already imported" : done.action.rawValue
                done.action = .failed
                done.error = "\(what) as \(task.seriesID), but its series was not finished: \(failure)"
            } else if task.mode == .resumed, counts.deleted + counts.changed > 0 {
                done.note =
                    (done.note.map { $0 + "; " } ?? "")
                    + "finished its series: \(counts.deleted) occurrence(s) deleted, \(counts.changed) changed"
            }
            finish(done, at: task.index)
        }
    }
}
