import Foundation
import ICalBridge

/// `agenda --json`: an array of objects with fixed keys, `null` for absent values, through ``JSONOutput``.
enum AgendaJSON {
    static func text(_ entries: [AgendaEntry], zone: ResolvedZone) throws -> String {
        try JSONOutput.text(.array(entries.map { object($0, zone: zone) }))
    }

    static func object(_ entry: AgendaEntry, zone: ResolvedZone) -> JSONValue {
        let (start, end): (Int64, Int64)
        let isAllDay: Bool
        switch entry.span {
        case .timed(let from, let to):
            (start, end, isAllDay) = (from, to, false)
        case .allDay(let first, let last):
            (start, end, isAllDay) = (zone.instant(forLocal: first), zone.instant(forLocal: last), true)
        }
        return .object([
            "id": .string(entry.id),
            "subject": .string(entry.subject),
            "start": .string(iso8601(start, in: zone)),
            "end": .string(iso8601(end, in: zone)),
            "isAllDay": .bool(isAllDay),
            "isCancelled": .bool(entry.isCancelled),
            "location": .string(entry.location),
            "organizer": .string(entry.organizer),
            "showAs": .string(entry.showAs),
            "responseStatus": .string(entry.response),
            "categories": .array(entry.categories.map { .string($0) }),
            "calendar": .string(entry.calendar),
            "joinUrl": .string(entry.joinURL),
        ])
    }

    /// `2026-11-30T09:00:00+01:00`: the instant as wall-clock time in `zone` with that zone's offset.
    static func iso8601(_ instant: Int64, in zone: ResolvedZone) -> String {
        zone.localTime(at: instant).description + AgendaText.offset(zone.utcOffset(at: instant))
    }
}
