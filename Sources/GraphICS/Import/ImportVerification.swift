import Foundation
import ICalBridge

/// What `import --verify` found for one event of the files, compared with what Outlook holds.
public struct VerifyResult: Sendable, Equatable {
    public enum Outcome: String, Sendable, Equatable, CaseIterable {
        /// Outlook holds the event as the file says.
        case ok
        /// No event imported from it is in the calendar.
        case missing
        /// The file is a newer version (SEQUENCE, then DTSTAMP) than the one imported.
        case outdated
        /// Imported, but Outlook differs: ``VerifyResult/differences`` says how.
        case different
        /// The event could not be checked; ``VerifyResult/error`` says why.
        case failed
    }

    public var label: EventLabel
    public var outcome: Outcome
    /// The Graph event compared.
    public var eventID: String?
    /// For `different`: one phrase per difference, `start: 2027-01-22 19:15 UTC in the file, 20:15 UTC in
    /// Outlook`.
    public var differences: [String] = []
    public var error: String?

    public init(
        label: EventLabel, outcome: Outcome, eventID: String? = nil, differences: [String] = [], error: String? = nil
    ) {
        self.label = label
        self.outcome = outcome
        self.eventID = eventID
        self.differences = differences
        self.error = error
    }

    /// `ticket.ics: "SUBJECT" 2027-01-22 20:15: ok`, `…: missing`, `…: outdated (file newer)`,
    /// `…: different: start: …; end: …`, `…: failed: REASON`.
    public var line: String {
        switch outcome {
        case .ok, .missing: label.line(outcome.rawValue)
        case .outdated: label.line("outdated (file newer)")
        case .different: label.line("different: " + differences.joined(separator: "; "))
        case .failed: label.line("failed: " + (error ?? "unknown error"))
        }
    }
}

extension VerifyResult: Encodable {
    private enum Key: String, CodingKey {
        case file, uid, recurrenceId, subject, start, outcome, eventId, differences, error
    }

    /// Every key is written, `null` when unknown.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(label.file, forKey: .file)
        try container.encode(label.uid, forKey: .uid)
        try container.encode(label.recurrenceID, forKey: .recurrenceId)
        try container.encode(label.subject, forKey: .subject)
        try container.encode(label.when, forKey: .start)
        try container.encode(outcome.rawValue, forKey: .outcome)
        try container.encode(eventID, forKey: .eventId)
        try container.encode(differences, forKey: .differences)
        try container.encode(error, forKey: .error)
    }
}

extension EventImporter {
    /// The event properties `import --verify` reads back.
    static let verifiedProperties = "id,subject,start,end,isAllDay,location,type,isOrganizer,attendees"

    /// `import --verify`: reads back, for each event of `items`, what an import of it created (found by its
    /// source identity in the calendar its settings name) and compares it with ``ImportExpectation``:
    /// start and end instants (the dates of an all-day event), subject, location and, for a series, the
    /// occurrences in its first year. Only reads. A cancellation is `ok` when nothing imported from it is
    /// left. Throws what stopped the reads (not signed in, Graph unavailable).
    public func verify(_ items: [ImportItem]) throws -> [VerifyResult] {
        let run = ImportRun(client: client, items: items, displayZone: displayZone, onResult: { _ in })
        let requests = items.indices.map { index in
            BatchRequest(
                id: "\(index)", method: "GET", url: run.lookupURL(key: run.keys[index], select: Self.verifiedProperties)
            )
        }
        let answers = try client.batch(requests)
        return try zip(items, answers).map { item, answer in try verify(item, answer: answer, run) }
    }

    private func verify(_ item: ImportItem, answer: BatchResponse, _ run: ImportRun) throws -> VerifyResult {
        let event = item.event
        let label = EventLabel(
            file: item.file, uid: event.sourceUID, recurrenceID: event.recurrenceID, subject: event.payload.subject,
            when: EventLabel.when(event.payload, in: displayZone))
        guard let found = run.found(answer) else {
            return VerifyResult(label: label, outcome: .failed, error: ImportRun.reason(answer, "looking up the event"))
        }
        if Self.isCancellation(event) {
            guard let left = found.first else { return VerifyResult(label: label, outcome: .ok) }
            return VerifyResult(
                label: label, outcome: .different, eventID: left.id,
                differences: ["cancelled in the file, still in Outlook"])
        }
        guard let existing = found.first else { return VerifyResult(label: label, outcome: .missing) }
        if existing.version != nil,
            ImportIdentity.isNewer(sequence: event.sequence, timestamp: event.timestamp, than: existing.version)
        {
            return VerifyResult(label: label, outcome: .outdated, eventID: existing.id)
        }
        let document = try? GraphEventDocument.decode(answer.body, file: item.file)
        guard let stored = document?.events.first(where: { $0.id == existing.id }) else {
            return VerifyResult(
                label: label, outcome: .failed, eventID: existing.id, error: "Graph's answer holds no readable event")
        }
        let expected = ImportExpectation(of: event)
        var differences = Self.differences(expected, stored)
        if let count = expected.occurrencesInFirstYear, let from = expected.countedFrom, existing.type == "seriesMaster"
        {
            let found = try occurrences(of: existing.id, from: from)
            let moved = try movedOccurrences(of: event, besides: found, from: from, run)
            if found.count + moved.count != count {
                differences.append(
                    "\(count) occurrence(s) in the first year in the file, \(found.count + moved.count) in Outlook")
            }
            differences += Self.overrideDifferences(event.followUps, found, from: from, moved: moved)
        }
        return VerifyResult(
            label: label, outcome: differences.isEmpty ? .ok : .different, eventID: existing.id,
            differences: differences)
    }

    /// How `stored` differs from `expected` in times, subject and location.
    static func differences(_ expected: ImportExpectation, _ stored: GraphEvent) -> [String] {
        var differences: [String] = []
        let times = ImportExpectation.times(start: stored.start, end: stored.end, isAllDay: stored.isAllDay ?? false)
        switch (expected.times, times) {
        case (.timed(let start, let end)?, .timed(let storedStart, let storedEnd)?):
            if start != storedStart { differences.append(Self.describe("start", start, storedStart)) }
            if end != storedEnd { differences.append(Self.describe("end", end, storedEnd)) }
        case (.allDay(let start, let end)?, .allDay(let storedStart, let storedEnd)?):
            if start != storedStart { differences.append("start: \(start) in the file, \(storedStart) in Outlook") }
            if end != storedEnd { differences.append("end: \(end) in the file, \(storedEnd) in Outlook") }
        case (let file?, let outlook?):
            differences.append("\(Self.kind(file)) in the file, \(Self.kind(outlook)) in Outlook")
        case (_?, nil):
            differences.append("Outlook's start or end cannot be read")
        case (nil, _):
            break
        }
        if (expected.subject ?? "") != (stored.subject ?? "") {
            differences.append(
                "subject: \"\(PrintableText.quoted(expected.subject ?? ""))\" in the file, "
                    + "\"\(PrintableText.quoted(stored.subject ?? ""))\" in Outlook")
        }
        let location = ImportExpectation.location(of: stored)
        if expected.location != location {
            differences.append(
                "location: \"\(PrintableText.quoted(expected.location ?? ""))\" in the file, "
                    + "\"\(PrintableText.quoted(location ?? ""))\" in Outlook")
        }
        return differences
    }

    private static func describe(_ what: String, _ file: Int64, _ outlook: Int64) -> String {
        "\(what): \(utc(file)) in the file, \(utc(outlook)) in Outlook"
    }

    /// `2027-01-22 19:15 UTC`.
    private static func utc(_ instant: Int64) -> String {
        let civil = CivilDateTime(secondsSinceEpoch: instant)
        return civil.dateString + " " + String(civil.description.dropFirst(11).prefix(5)) + " UTC"
    }

    private static func kind(_ times: ImportExpectation.Times) -> String {
        switch times {
        case .timed: "timed"
        case .allDay: "all-day"
        }
    }

    /// The occurrences (and exceptions) of series `id` Graph has from `from` for
    /// ``ImportExpectation/countedSeconds``, each with the event Graph holds for it.
    private func occurrences(of id: String, from: Int64) throws -> [(occurrence: Occurrence, event: GraphEvent)] {
        var found: [(occurrence: Occurrence, event: GraphEvent)] = []
        let start = Date(timeIntervalSince1970: TimeInterval(from))
        let end = Date(timeIntervalSince1970: TimeInterval(from + ImportExpectation.countedSeconds))
        try client.instances(seriesMasterID: id, start: start, end: end) { page in
            let events = (try? GraphEventDocument.decode(page, file: "instances"))?.events ?? []
            let byID = Dictionary(events.compactMap { event in event.id.map { ($0, event) } }) { first, _ in first }
            for occurrence in Occurrence.list(from: page)?.occurrences ?? [] {
                if let event = byID[occurrence.id] { found.append((occurrence, event)) }
            }
        }
        return found
    }

    /// The overrides of series `event` (in the counted year) whose occurrence is not in `found` and that the
    /// import made events of their own (Graph refused to move the occurrence past a neighbour), by original
    /// start: the events Graph holds for them.
    private func movedOccurrences(
        of event: PlannedEvent, besides found: [(occurrence: Occurrence, event: GraphEvent)], from: Int64,
        _ run: ImportRun
    ) throws -> [String: GraphEvent] {
        let candidates = event.movedOccurrenceKeys.filter { moved in
            guard let instant = FollowUpTime.instant(moved.originalStart),
                instant >= from, instant < from + ImportExpectation.countedSeconds
            else { return false }
            return FollowUpTime.match(moved.originalStart, in: found.map(\.occurrence)) == nil
        }
        guard !candidates.isEmpty else { return [:] }
        let answers = try client.batch(
            candidates.enumerated().map { position, moved in
                BatchRequest(
                    id: "\(position)", method: "GET",
                    url: run.lookupURL(key: moved.key, select: Self.verifiedProperties))
            })
        var result: [String: GraphEvent] = [:]
        for (moved, answer) in zip(candidates, answers) {
            guard let existing = run.found(answer)?.first,
                let stored = (try? GraphEventDocument.decode(answer.body, file: "moved"))?.events.first(where: {
                    $0.id == existing.id
                })
            else { continue }
            result[moved.originalStart] = stored
        }
        return result
    }

    /// How the occurrences the file's RECURRENCE-ID overrides change (in the counted year) differ from what
    /// Outlook holds for them: `occurrence of 2027-01-26 18:00 UTC: start: …`, or `… missing in Outlook`. An
    /// override made an event of its own (`moved`, by original start) is compared with that event.
    static func overrideDifferences(
        _ steps: [FollowUp], _ found: [(occurrence: Occurrence, event: GraphEvent)], from: Int64,
        moved: [String: GraphEvent] = [:]
    ) -> [String] {
        var differences: [String] = []
        for step in steps {
            guard case .patchOccurrence(let originalStart, let changes) = step else { continue }
            let instant =
                FollowUpTime.instant(originalStart) ?? GraphTimestamp.parse(originalStart)?.civil.secondsSinceEpoch
            guard let instant, instant >= from, instant < from + ImportExpectation.countedSeconds else { continue }
            let name = FollowUpTime.isDate(originalStart) ? originalStart : utc(instant)
            let match = FollowUpTime.match(originalStart, in: found.map(\.occurrence))
            guard
                let stored = match.flatMap({ match in found.first(where: { $0.occurrence.id == match.id })?.event })
                    ?? moved[originalStart]
            else {
                differences.append("occurrence of \(name): changed in the file, missing in Outlook")
                continue
            }
            // Only what the override sets is compared; the rest the occurrence keeps from its series.
            var expected = ImportExpectation(payload: changes)
            if changes.start == nil || changes.end == nil { expected.times = nil }
            if changes.subject == nil { expected.subject = stored.subject }
            if changes.location == nil { expected.location = ImportExpectation.location(of: stored) }
            differences += Self.differences(expected, stored).map { "occurrence of \(name): " + $0 }
        }
        return differences
    }
}
