import Foundation
import ICalBridge

/// One new event as `graph-ics add` describes it, and the Graph payload that creates it.
///
/// Times are exact: a timed event holds its start and end as instants, an all-day event its dates (end
/// exclusive). The payload tells Graph the way `graph-ics import` does (docs/ARCHITECTURE.md, "Import"):
/// local time with the Windows name of the event's zone (`W. Europe Standard Time`), re-derived from the
/// instant in the zone CLDR names first for that Windows name, so the instant Graph stores is the one the
/// user meant; a zone without a Windows name is sent as UTC. Attendees are real attendees: Graph mails
/// each of them an invitation when the event is created.
///
/// A value type, `Sendable`.
public struct EventDraft: Sendable, Equatable {
    /// When the event takes place.
    public enum When: Sendable, Equatable {
        /// From `start` to `end`, in seconds since 1970-01-01 UTC.
        case timed(start: Int64, end: Int64)
        /// Whole days from `first` to `end`, `end` exclusive (the day after the last one); only the dates of
        /// the values count.
        case allDay(first: CivilDateTime, end: CivilDateTime)
    }

    /// One person (or room) to invite.
    public struct Attendee: Sendable, Equatable {
        /// The e-mail address.
        public var address: String
        /// The display name, when one was given (`Ann Lee <ann@contoso.com>`).
        public var name: String?

        public init(address: String, name: String? = nil) {
            self.address = address
            self.name = name
        }

        /// `Ann Lee <ann@contoso.com>` or the bare address.
        public var description: String {
            name.map { "\($0) <\(address)>" } ?? address
        }
    }

    public var subject: String
    public var when: When
    /// The zone the times were read in; the payload names its Windows zone.
    public var zone: ResolvedZone
    public var attendees: [Attendee]
    /// The body, sent as plain text.
    public var body: String?
    /// The location's display name.
    public var location: String?

    public init(
        subject: String,
        when: When,
        zone: ResolvedZone,
        attendees: [Attendee] = [],
        body: String? = nil,
        location: String? = nil
    ) {
        self.subject = subject
        self.when = when
        self.zone = zone
        self.attendees = attendees
        self.body = body
        self.location = location
    }

    /// The Graph event (`POST …/events`), with `transactionId` set so that a retried create never makes a
    /// second event (Graph answers a repeated `transactionId` with the event it made first). Times are told
    /// to Graph the way the import tells them (``GraphDateTimeTimeZone/init(instant:in:)``).
    public func event(transactionID: String) -> GraphEvent {
        var event = GraphEvent()
        event.subject = subject
        event.transactionId = transactionID
        switch when {
        case .timed(let start, let end):
            event.isAllDay = false
            event.start = GraphDateTimeTimeZone(instant: start, in: zone)
            event.end = GraphDateTimeTimeZone(instant: end, in: zone)
        case .allDay(let first, let end):
            let name = zone.windowsName ?? "UTC"
            event.isAllDay = true
            event.start = GraphDateTimeTimeZone(dateTime: first.date.description, timeZone: name)
            event.end = GraphDateTimeTimeZone(dateTime: end.date.description, timeZone: name)
        }
        if let body { event.body = GraphItemBody(contentType: "text", content: body) }
        if let location { event.location = GraphLocation(displayName: location) }
        if !attendees.isEmpty {
            event.attendees = attendees.map { attendee in
                GraphAttendee(
                    type: "required", emailAddress: GraphEmailAddress(name: attendee.name, address: attendee.address))
            }
        }
        return event
    }

    /// ``event(transactionID:)`` as the JSON graph-ics sends.
    public func payload(transactionID: String) throws -> Data {
        try event(transactionID: transactionID).jsonPayload()
    }

    // MARK: Reading what the user typed

    /// How a wall-clock time was placed in a zone.
    public enum Placement: Sendable, Equatable {
        /// The time exists once.
        case exact(Int64)
        /// The time falls in a gap (clocks went forward): it is moved forward by the gap's length, as RFC 5545
        /// reads such times; `instant` is the result.
        case skipped(instant: Int64)
        /// The time occurs twice (clocks went back): the first one is taken, as RFC 5545 does.
        case repeated(first: Int64, second: Int64)

        /// The instant graph-ics uses.
        public var instant: Int64 {
            switch self {
            case .exact(let instant), .skipped(let instant), .repeated(let instant, _): instant
            }
        }
    }

    /// Places a wall-clock time in `zone`, saying whether it fell in a gap or a fold.
    public static func place(_ local: CivilDateTime, in zone: ResolvedZone) -> Placement {
        guard case .zone(let ical) = zone else { return .exact(local.secondsSinceEpoch) }
        let candidates = ical.instants(forLocal: local)
        switch candidates.count {
        case 1: return .exact(candidates[0])
        case 0: return .skipped(instant: ical.instant(forLocal: local))
        default: return .repeated(first: candidates[0], second: candidates[candidates.count - 1])
        }
    }

    /// Reads `YYYY-MM-DDTHH:MM` (or with a space instead of `T`, optionally with `:SS`); nil otherwise.
    public static func localTime(_ text: String) -> CivilDateTime? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.count >= 16, let timestamp = GraphTimestamp.parse(trimmed), timestamp.utcOffsetSeconds == nil,
            timestamp.ticks == 0
        else { return nil }
        let separator = trimmed[trimmed.index(trimmed.startIndex, offsetBy: 10)]
        guard separator == "T" || separator == "t" || separator == " " else { return nil }
        return timestamp.civil
    }

    /// Reads `YYYY-MM-DD`; nil otherwise.
    public static func date(_ text: String) -> CivilDateTime? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.count == 10, let timestamp = GraphTimestamp.parse(trimmed) else { return nil }
        return timestamp.civil
    }

    /// Reads an attendee list: addresses separated by `;` or `,`, each a bare address or
    /// `Name <address>`. Empty entries are ignored; an entry without `@` is refused with its text.
    public static func attendees(_ list: String) throws(AttendeeListError) -> [Attendee] {
        var result: [Attendee] = []
        for rawEntry in list.split(whereSeparator: { $0 == ";" || $0 == "," }) {
            let entry = rawEntry.trimmingCharacters(in: .whitespaces)
            if entry.isEmpty { continue }
            var name: String?
            var address = entry
            if let open = entry.lastIndex(of: "<"), entry.hasSuffix(">") {
                address = String(entry[entry.index(after: open)..<entry.index(before: entry.endIndex)])
                    .trimmingCharacters(in: .whitespaces)
                let display = entry[..<open].trimmingCharacters(in: .whitespaces)
                    .trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                name = display.isEmpty ? nil : display
            }
            if address.lowercased().hasPrefix("mailto:") { address = String(address.dropFirst(7)) }
            let parts = address.split(separator: "@", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, !address.contains(where: \.isWhitespace)
            else { throw AttendeeListError(entry: entry) }
            if result.contains(where: { $0.address.lowercased() == address.lowercased() }) { continue }
            result.append(Attendee(address: address, name: name))
        }
        return result
    }
}

/// An entry of an attendee list that is not an e-mail address.
public struct AttendeeListError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The entry as given.
    public var entry: String

    public init(entry: String) {
        self.entry = entry
    }

    public var description: String { "'\(entry)' is not an e-mail address" }
}
