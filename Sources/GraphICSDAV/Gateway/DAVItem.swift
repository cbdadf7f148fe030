import Foundation
import GraphICS
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
    /// The served bytes, kept properties included.
    var body: Data
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
        let allDay = object["isAllDay"] as? Bool == true
        func instant(_ key: String) -> Int64? {
            guard let time = object[key] as? [String: Any], let text = time["dateTime"] as? String,
                let stamp = GraphTimestamp.parse(text)
            else { return nil }
            if allDay { return stamp.civil.secondsSinceEpoch }
            let zone = time["timeZone"] as? String
            guard zone == nil || zone == "UTC" || stamp.utcOffsetSeconds != nil else { return nil }
            return stamp.instant ?? stamp.civil.secondsSinceEpoch
        }
        guard let start = instant("start") else { return nil }
        return DAVSpan(start: start, end: max(start, instant("end") ?? start))
    }
}
