import Foundation
import ICalBridge

/// What `import --undo` did with one event of the files.
public struct UndoResult: Sendable, Equatable {
    public enum Outcome: String, Sendable, Equatable, CaseIterable {
        /// What the import created from it was deleted (a series with its occurrences).
        case removed
        /// Nothing imported from it is in the calendar (never imported, or removed already).
        case absent
        /// It was not removed; ``UndoResult/error`` says why (a meeting whose deletion mails, Graph refused).
        case failed
    }

    public var label: EventLabel
    public var outcome: Outcome
    /// The Graph events removed, or the one that was refused.
    public var eventIDs: [String] = []
    public var error: String?
    /// What `import --undo --dry-run` found would be done, not what was done.
    public var isPreview = false

    public init(label: EventLabel, outcome: Outcome, eventIDs: [String] = [], error: String? = nil) {
        self.label = label
        self.outcome = outcome
        self.eventIDs = eventIDs
        self.error = error
    }

    /// `ticket.ics: "SUBJECT" 2027-01-22 20:15: removed`, `…: not in the calendar, nothing to remove`,
    /// `…: failed: REASON`; a preview says `would remove`.
    public var line: String {
        switch outcome {
        case .removed: label.line(isPreview ? "would remove" : "removed")
        case .absent: label.line("not in the calendar, nothing to remove")
        case .failed: label.line("failed: " + (error ?? "unknown error"))
        }
    }
}

extension UndoResult: Encodable {
    private enum Key: String, CodingKey {
        case file, uid, recurrenceId, subject, start, outcome, eventIds, error
    }

    /// Every key is written, `null` when unknown.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(label.file, forKey: .file)
        try container.encode(label.uid, forKey: .uid)
        try container.encode(label.recurrenceID, forKey: .recurrenceId)
        try container.encode(label.subject, forKey: .subject)
        try container.encode(label.when, forKey: .start)
        try container.encode(isPreview ? "would remove" : outcome.rawValue, forKey: .outcome)
        try container.encode(eventIDs, forKey: .eventIds)
        try container.encode(error, forKey: .error)
    }
}

extension EventImporter {
    /// `import --undo`: deletes what earlier imports of these events created in the calendar their settings
    /// name, found by the source identity (``ImportIdentity/propertyID``), and nothing else. A series goes with
    /// its occurrences. A meeting whose deletion Graph would mail to its attendees (``MailingRule``) is
    /// refused unless `allowingMail`. A cancellation in the files created nothing and removes nothing. With
    /// `dryRun` only the lookups are sent. Throws what stopped the requests (Graph unavailable, the sign-in
    /// refused); a re-run finishes the rest.
    public func undo(_ items: [ImportItem], allowingMail: Bool, dryRun: Bool = false) throws -> [UndoResult] {
        let run = ImportRun(client: client, items: items, displayZone: displayZone, onResult: { _ in })
        var results = items.map { item in
            UndoResult(
                label: EventLabel(
                    file: item.file, uid: item.event.sourceUID, recurrenceID: item.event.recurrenceID,
                    subject: item.event.payload.subject, when: EventLabel.when(item.event.payload, in: displayZone)),
                outcome: .absent)
        }
        let lookedUp = items.indices.filter { !Self.isCancellation(items[$0].event) }
        let answers = try client.batch(
            lookedUp.map { BatchRequest(id: "\($0)", method: "GET", url: run.lookupURL(key: run.keys[$0])) })
        var deletes: [(index: Int, id: String)] = []
        var seen = Set<String>()
        for (index, answer) in zip(lookedUp, answers) {
            guard let found = run.found(answer) else {
                results[index].outcome = .failed
                results[index].error = ImportRun.reason(answer, "looking up the event")
                continue
            }
            let targets = found.filter { seen.insert($0.id).inserted }
            if !allowingMail,
                let meeting = targets.first(where: { $0.mails(.delete) })
            {
                results[index].outcome = .failed
                results[index].eventIDs = [meeting.id]
                results[index].error = MailingRule.refusal(
                    "the event", attendees: meeting.attendees, doing: "deleting it")
                continue
            }
            guard !targets.isEmpty else { continue }
            results[index].outcome = .removed
            results[index].eventIDs = targets.map(\.id)
            results[index].isPreview = dryRun
            deletes += targets.map { (index, $0.id) }
        }
        // Overrides the import made events of their own (Graph refused to move their occurrence past a
        // neighbour's day) carry the series' UID and their RECURRENCE-ID: they go with the series.
        let moved = lookedUp.flatMap { index in
            items[index].event.movedOccurrenceKeys.map { (index: index, key: $0.key) }
        }
        let movedAnswers = try client.batch(
            moved.enumerated().map { position, moved in
                BatchRequest(id: "\(position)", method: "GET", url: run.lookupURL(key: moved.key))
            })
        for (moved, answer) in zip(moved, movedAnswers) where results[moved.index].outcome != .failed {
            let targets = (run.found(answer) ?? []).filter { seen.insert($0.id).inserted }
            guard !targets.isEmpty else { continue }
            results[moved.index].outcome = .removed
            results[moved.index].eventIDs += targets.map(\.id)
            results[moved.index].isPreview = dryRun
            deletes += targets.map { (moved.index, $0.id) }
        }
        guard !dryRun else { return results }
        let deleted = try client.batch(
            deletes.enumerated().map { position, delete in
                BatchRequest(id: "\(position)", method: "DELETE", url: client.eventPath(id: delete.id))
            })
        // Already gone (another run, or Outlook) is what was asked for.
        for (delete, answer) in zip(deletes, deleted) where !answer.succeeded && answer.status != 404 {
            results[delete.index].outcome = .failed
            results[delete.index].error = ImportRun.reason(answer, "deleting event \(delete.id)")
        }
        return results
    }
}
