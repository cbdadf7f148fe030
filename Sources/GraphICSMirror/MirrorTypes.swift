import Foundation

/// Which calendar a mirror follows: the mailbox's primary calendar, read with `calendarView/delta` (Graph
/// v1.0 documents delta only for it, `api/event-delta.md`), or another one, read whole with
/// `calendars/{id}/calendarView` and compared by change key.
public enum MirrorCalendar: Sendable, Equatable, Hashable {
    case primary
    case other(id: String)
}

/// One event as the mirror holds it: Graph's id, change key and JSON object, as Graph last sent them.
public struct MirrorEvent: Sendable, Equatable {
    public var id: String
    public var changeKey: String?
    /// The event's JSON object, exactly as Graph sent it.
    public var raw: Data

    public init(id: String, changeKey: String?, raw: Data) {
        self.id = id
        self.changeKey = changeKey
        self.raw = raw
    }
}

/// How the last Graph round of a mirror went.
public enum MirrorRound: String, Sendable, Equatable {
    /// The mirror was empty: every event of its window was read.
    case first
    /// Resumed from the stored delta link (or, on a calendar without delta, read whole over the stored
    /// window and compared).
    case changes
    /// A consumer's window was no longer covered: the window was read whole again, wider.
    case reanchored
    /// Graph answered 410 for the stored delta link: the stored window was read whole and compared.
    case resync
}

/// Where a consumer (a sync pairing, a feed, a CalDAV login) stopped reading a mirror's changes: the
/// mirror's generation (a new store is a new generation), the sequence number of the last round it read,
/// and the window it read them for. A consumer stores it beside its own state, in the same transaction,
/// so that what it applied and where it resumes never disagree.
public struct MirrorCursor: Sendable, Equatable, LosslessStringConvertible {
    public var generation: String
    public var sequence: Int64
    public var window: SyncWindow

    public init(generation: String, sequence: Int64, window: SyncWindow) {
        self.generation = generation
        self.sequence = sequence
        self.window = window
    }

    /// `mirror:GENERATION:SEQUENCE:START:END`.
    public var description: String {
        "mirror:\(generation):\(sequence):\(window.start):\(window.end)"
    }

    /// Reads ``description``; nil for anything else (a delta link stored by graph-ics before the mirror).
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0] == "mirror", !parts[1].isEmpty, let sequence = Int64(parts[2]),
            let start = Int64(parts[3]), let end = Int64(parts[4])
        else { return nil }
        self.init(generation: String(parts[1]), sequence: sequence, window: SyncWindow(start: start, end: end))
    }
}

/// What a consumer reads from a mirror after a round.
public struct MirrorRead: Sendable {
    public enum Kind: Sendable, Equatable {
        /// Every event of the consumer's window: the round read Graph whole (first, re-anchored, 410), or the
        /// consumer had no cursor, a cursor of another generation or window, or one older than the changes
        /// the mirror still keeps. Compare it with what you hold.
        case whole
        /// What changed since the cursor.
        case changes
    }

    public var kind: Kind
    /// `whole`: every event of the window. `changes`: the events of the window added or changed since the
    /// cursor.
    public var events: [MirrorEvent]
    /// `changes` only: ids Graph reported removed since the cursor (deleted, moved out of the mirror's
    /// window, or changed outside it: Graph does not say which, so a consumer that must know asks), and
    /// events that changed but no longer overlap the consumer's window.
    public var removedIDs: [String]
    /// Where the next read starts, once the consumer has applied this one.
    public var cursor: MirrorCursor
    /// The Graph round this read followed.
    public var round: MirrorRound
    /// The Graph requests the round made.
    public var requests: Int
}

/// A failure of the mirror's store or lock, naming the file.
public struct MirrorError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Equatable, Sendable {
        /// Another process kept the mirror's lock for the whole wait.
        case locked
        /// The store's folder or file cannot be used.
        case io
        /// The store is from a newer graph-ics, or not a mirror.
        case schema
    }

    public var code: Code
    public var message: String
    public var path: String

    public init(_ code: Code, _ message: String, path: String) {
        self.code = code
        self.message = message
        self.path = path
    }

    public var description: String { "\(path): \(message)" }
}
