import Foundation
import ICalBridge

/// What `graph-ics import` did with one event of its input.
public struct ImportResult: Sendable, Equatable {
    /// The outcome, as the report names it.
    public enum Action: String, Sendable, Equatable, CaseIterable {
        /// A new event (or series) was created.
        case created
        /// An event imported earlier was changed (`--on-duplicate update` with a newer source).
        case updated
        /// Nothing was changed: already imported, not newer, nothing to cancel, or the same event twice.
        case skipped
        /// The matching event was deleted or cancelled (METHOD:CANCEL, STATUS:CANCELLED).
        case cancelled
        /// The event could not be imported; ``ImportResult/error`` says why.
        case failed
    }

    /// The input file as the user named it (`<stdin>` for standard input).
    public var file: String
    /// The source UID.
    public var uid: String
    /// The source RECURRENCE-ID, for one occurrence.
    public var recurrenceID: String?
    /// The SUMMARY.
    public var subject: String?
    public var action: Action
    /// The id of the Graph event created, updated, cancelled or found.
    public var eventID: String?
    /// For a failure: one sentence, with Graph's request-id when Graph answered.
    public var error: String?
    /// For a skip: why (`already imported`).
    public var note: String?

    public init(
        file: String,
        uid: String,
        recurrenceID: String? = nil,
        subject: String? = nil,
        action: Action,
        eventID: String? = nil,
        error: String? = nil,
        note: String? = nil
    ) {
        self.file = file
        self.uid = uid
        self.recurrenceID = recurrenceID
        self.subject = subject
        self.action = action
        self.eventID = eventID
        self.error = error
        self.note = note
    }

    /// The line of the report on stderr: `FILE: event UID ("SUBJECT"): created`,
    /// `…: skipped (already imported)`, `…: failed: REASON`, on one line (line breaks in a UID, a subject or a
    /// reason become spaces).
    public var line: String {
        var event = "event \(uid)"
        if let recurrenceID { event += " (RECURRENCE-ID \(recurrenceID))" }
        if let subject, !subject.isEmpty { event += " (\"\(PrintableText.quoted(subject))\")" }
        var outcome = action.rawValue
        switch action {
        case .failed:
            outcome += ": " + (error ?? "unknown error")
        case .skipped, .created, .updated, .cancelled:
            if let note { outcome += " (\(note))" }
        }
        return PrintableText.printable("\(file): \(event): \(outcome)")
    }
}

extension ImportResult: Encodable {
    private enum Key: String, CodingKey {
        case file, uid, recurrenceId, subject, action, eventId, error, note
    }

    /// Every key is written, `null` when unknown, so scripts can rely on the shape.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(file, forKey: .file)
        try container.encode(uid, forKey: .uid)
        try container.encode(recurrenceID, forKey: .recurrenceId)
        try container.encode(subject, forKey: .subject)
        try container.encode(action.rawValue, forKey: .action)
        try container.encode(eventID, forKey: .eventId)
        try container.encode(error, forKey: .error)
        try container.encode(note, forKey: .note)
    }
}

/// The outcome of one `graph-ics import` run: a result per event, and the failure that stopped the run
/// early, if one did (Graph unavailable after retries, the sign-in refused).
public struct ImportReport {
    /// One result per event, in input order.
    public var results: [ImportResult]
    /// What stopped the run before every event was done (a `GraphError`, `AuthError` or `CurlError`); the
    /// events it left undone are `failed` in ``results``. A re-run continues safely.
    public var stoppedBy: (any Error)?

    public init(results: [ImportResult] = [], stoppedBy: (any Error)? = nil) {
        self.results = results
        self.stoppedBy = stoppedBy
    }

    /// How many results have `action`.
    public func count(_ action: ImportResult.Action) -> Int {
        results.reduce(0) { $0 + ($1.action == action ? 1 : 0) }
    }

    /// `3 created, 0 updated, 2 skipped, 0 cancelled, 1 failed`.
    public var summary: String {
        ImportResult.Action.allCases.map { "\(count($0)) \($0.rawValue)" }.joined(separator: ", ")
    }

    /// The report as JSON for `--json`: `{"summary": {"created": n, …}, "events": [{"file", "uid",
    /// "recurrenceId", "subject", "action", "eventId", "error", "note"}, …]}`, every key present (`null`
    /// when unknown).
    public func jsonData() throws -> Data {
        struct Document: Encodable {
            var summary: [String: Int]
            var events: [ImportResult]
        }
        var counts: [String: Int] = [:]
        for action in ImportResult.Action.allCases { counts[action.rawValue] = count(action) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(Document(summary: counts, events: results))
    }
}
