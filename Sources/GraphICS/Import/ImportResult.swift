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
    /// For a create that is done when Graph answers it (no series to finish): the change key of Graph's
    /// answer, the event as created (sync records it without reading the event again).
    public var changeKey: String?
    /// For a failure: one sentence, with Graph's request-id when Graph answered.
    public var error: String?
    /// For a skip: why (`already imported`); for a series, what was done besides (its ``movedOccurrences``).
    public var note: String?
    /// For a series: the overrides Graph refused in it, each made an event of its own (``MovedOccurrence``).
    public var movedOccurrences: [MovedOccurrence] = []
    /// When the event starts, as the report shows it (``EventLabel/when(_:)``): `2027-01-22 20:15`.
    public var when: String?
    /// What `import --dry-run` found the run would do, not what was done: ``line`` says `would create`.
    public var isPreview = false

    public init(
        file: String,
        uid: String,
        recurrenceID: String? = nil,
        subject: String? = nil,
        action: Action,
        eventID: String? = nil,
        error: String? = nil,
        note: String? = nil,
        when: String? = nil
    ) {
        self.file = file
        self.uid = uid
        self.recurrenceID = recurrenceID
        self.subject = subject
        self.action = action
        self.eventID = eventID
        self.error = error
        self.note = note
        self.when = when
    }

    /// The line of the report on stderr: `ticket.ics: "SUBJECT" 2027-01-22 20:15: created`,
    /// `…: skipped (already imported)`, `…: failed: REASON` (for a preview `…: would create`), on one line
    /// (line breaks in a subject or a reason become spaces). The UID is shown only for an event without a
    /// subject; `--json` has it always.
    public var line: String {
        let event = EventLabel(file: file, uid: uid, recurrenceID: recurrenceID, subject: subject, when: when)
        var outcome = isPreview ? action.conditional : action.rawValue
        switch action {
        case .failed:
            outcome += ": " + (error ?? "unknown error")
        case .skipped, .created, .updated, .cancelled:
            if let note { outcome += " (\(note))" }
        }
        return event.line(outcome)
    }
}

extension ImportResult {
    /// An override that moves its occurrence onto or past a neighbour's day, which Graph refuses in a series
    /// (`ErrorOccurrenceCrossingBoundary`, `api/event-update.md`): its occurrence was cancelled in the series and
    /// the moved one created as an event of its own. The one wording of it, for the import's report and sync's.
    public struct MovedOccurrence: Sendable, Equatable, CustomStringConvertible {
        /// The occurrence's original start as the override names it (`2027-01-19T18:00:00Z`, or a date).
        public var originalStart: String
        /// Graph's id of the event made of it.
        public var eventID: String

        public init(originalStart: String, eventID: String) {
            self.originalStart = originalStart
            self.eventID = eventID
        }

        /// `the occurrence of 2026-12-14T09:00:00Z moves onto or past a neighbour's day, which Graph refuses in a
        /// series (ErrorOccurrenceCrossingBoundary): cancelled in the series and created as an event of its own
        /// (ID)`.
        public var description: String {
            "the occurrence of \(originalStart) moves onto or past a neighbour's day, which Graph refuses in a series "
                + "(ErrorOccurrenceCrossingBoundary): cancelled in the series and created as an event of its own "
                + "(\(eventID))"
        }
    }
}

extension ImportResult.Action {
    /// What `import --dry-run` says: `would create`, `would update`, `would skip`, `would cancel`; `failed`.
    public var conditional: String {
        switch self {
        case .created: "would create"
        case .updated: "would update"
        case .skipped: "would skip"
        case .cancelled: "would cancel"
        case .failed: "failed"
        }
    }
}

extension ImportResult: Encodable {
    private enum Key: String, CodingKey {
        case file, uid, recurrenceId, subject, start, action, eventId, error, note
    }

    /// Every key is written, `null` when unknown, so scripts can rely on the shape.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(file, forKey: .file)
        try container.encode(uid, forKey: .uid)
        try container.encode(recurrenceID, forKey: .recurrenceId)
        try container.encode(subject, forKey: .subject)
        try container.encode(when, forKey: .start)
        try container.encode(action.rawValue, forKey: .action)
        try container.encode(eventID, forKey: .eventId)
        try container.encode(error, forKey: .error)
        try container.encode(note, forKey: .note)
    }
}
