import Foundation
import GraphICS
import GraphICSMirror
import ICalBridge

/// One calendar object resource the gateway serves: one UID, the VEVENTs (master and overrides) and
/// VTIMEZONEs of one Graph event or series, as sync's pull writes that item, with the properties Graph
/// cannot hold that a client PUT kept for it.
struct DAVItem: Sendable, Equatable {
    /// The resource's name inside its calendar (`<uid>.ics`, or the name a client PUT it to), not encoded.
    var name: String
    /// The UID served: the client's for an item it PUT, Graph's `iCalUId` otherwise.
    var uid: String
    /// The Graph id of the event, or of the series' master.
    var graphID: String
    var isSeries: Bool
    /// The served bytes: the text a client PUT, while Outlook's version is the one that PUT made
    /// (`servesClient`); else Outlook's version (`graphBody`) with the kept properties.
    var body: Data
    /// The item as sync's pull renders Outlook's version of it (no METHOD, no kept properties).
    var graphBody: Data
    /// `body` is a client's PUT, served while `graphBody` stays as that PUT left it: a client reads back
    /// what it wrote (its alarms, its X- properties, its way of writing times), and Outlook's version once
    /// someone changes the event in Outlook.
    var servesClient: Bool
    /// `"<16 hex of the body's SHA-256>"`.
    var etag: String
    /// The instants of each occurrence (a single event: one), for time-range queries.
    var spans: [DAVSpan]
    /// The change sequence of the calendar when the body last changed (sync-collection).
    var sequence: Int64
    /// The Graph ids of the events the mirror holds for the item (a series: its occurrences and exceptions).
    var eventIDs: [String]
    /// A series' master as Graph last sent it (the baseline of a change to the series).
    var master: Data?
    /// What a client PUT that Graph cannot hold.
    var kept: DAVKeptProperties
    /// Held although the mirror's window does not show it: PUT outside the window, or it left the window.
    var outside: Bool
    /// Why Outlook's version cannot be served (it cannot be converted, or is not one iCalendar object); nil for
    /// an item served. Such an item is listed with an error propstat of its own (its body is empty), so that one
    /// bad event never fails a whole answer.
    var failure: String? = nil

    static func etag(of body: Data) -> String {
        "\"" + SHA256.hexDigest(body).prefix(16) + "\""
    }
}

/// The instants one occurrence covers, in seconds since 1970; an all-day one from 00:00 UTC of its first day
/// to 00:00 UTC after its last (CalDAV reads floating dates in UTC when the calendar names no zone).
struct DAVSpan: Sendable, Equatable, Codable {
    var start: Int64
    var end: Int64

    /// Whether the span overlaps `[start, end)` as RFC 4791 §9.9 says (an instant event at `start` counts).
    func overlaps(start rangeStart: Int64?, end rangeEnd: Int64?) -> Bool {
        let afterStart = rangeStart.map { end > $0 || (end == start && start >= $0) } ?? true
        let beforeEnd = rangeEnd.map { start < $0 } ?? true
        return afterStart && beforeEnd
    }

    /// The span of one Graph event's JSON (`start`/`end` as graph-ics asks for them, in UTC); nil when it has
    /// none.
    static func of(_ raw: Data) -> DAVSpan? {
        guard let object = (try? JSONSerialization.jsonObject(with: raw)) as? [String: Any] else { return nil }
        return of(object)
    }

    static func of(_ object: [String: Any]) -> DAVSpan? {
        guard let times = CalendarMirror.instants(of: object) else { return nil }
        return DAVSpan(start: times.start, end: max(times.start, times.end ?? times.start))
    }
}
