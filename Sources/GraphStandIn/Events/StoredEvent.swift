// One event of the stand-in's calendar store, and the order and overlap rules calendar views use.
import Foundation

///
/// Sendable though `fields` is `[String: Any]`: the stand-in stores only JSON values there (strings,
/// numbers, booleans, `NSNull`, and arrays and dictionaries of them, as JSONSerialization and test
/// literals make them), which are values or immutable objects, and never mutates one in place; so a copy
/// may cross threads like any value.
struct StoredEvent: @unchecked Sendable {
    var id: String
    var userID: String
    var calendarID: String
    /// Every property except `id`, `start`, `end`, `type`, `seriesMasterId`, `isAllDay` and the extended
    /// properties, which live in the fields below.
    var fields: [String: Any]
    var start: Date
    var end: Date
    /// Wall-clock start and end as written, in `startZone`/`endZone` (all-day events are shown this way).
    var startLocal: GraphDateTime
    var endLocal: GraphDateTime
    var startZone: String
    var endZone: String
    var isAllDay: Bool
    var type: String
    var seriesMasterID: String?
    var extendedProperties: [(id: String, value: String)]
    /// Insertion order, the tie-breaker for equal starts.
    var sequence: Int

    var attendeeAddresses: [String] {
        let attendees = fields["attendees"] as? [[String: Any]] ?? []
        return attendees.compactMap { ($0["emailAddress"] as? [String: Any])?["address"] as? String }
    }

    var isOrganizer: Bool { fields["isOrganizer"] as? Bool ?? true }

    /// Calendar order: by start, then end, then insertion.
    static func startOrder(_ lhs: StoredEvent, _ rhs: StoredEvent) -> Bool {
        if lhs.start != rhs.start { return lhs.start < rhs.start }
        if lhs.end != rhs.end { return lhs.end < rhs.end }
        return lhs.sequence < rhs.sequence
    }

    /// Whether the event overlaps `[start, end)`; an event without duration counts when it starts inside.
    func overlaps(_ start: Date, _ end: Date) -> Bool {
        if self.start == self.end { return self.start >= start && self.start < end }
        return self.start < end && self.end > start
    }
}
