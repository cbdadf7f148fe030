import Foundation
import ICalBridge

// Events: calendarView and instances pages, one event, create, update, delete, cancel, lookup by
// extended property.
extension GraphClient {
    /// One event as Graph's JSON (`GET …/events/{id}`).
    public func event(id: String) throws -> Data {
        try get(mailbox.path + "/events/" + GraphQuery.encodePathSegment(id), operation: "reading event \(id)").body
    }

    /// The occurrences (and exceptions) of a series between `start` and `end`, page by page
    /// (`GET …/events/{id}/instances`); each page body goes to `onPage` as it arrives. A range longer than
    /// ``longestRange`` is read in windows of that length, every occurrence once (see
    /// ``windowedPages(path:start:end:window:pageSize:operation:onPage:)``).
    public func instances(
        seriesMasterID: String,
        start: Date,
        end: Date,
        pageSize: Int = 1000,
        onPage: (Data) throws -> Void
    ) throws {
        let path = mailbox.path + "/events/" + GraphQuery.encodePathSegment(seriesMasterID) + "/instances"
        try windowedPages(
            path: path, start: start, end: end, window: Self.longestRange, pageSize: pageSize,
            operation: "reading the instances of series \(seriesMasterID)", onPage: onPage)
    }

    /// The events and occurrences between `start` and `end`, page by page (`GET …/calendarView`); each raw
    /// page body goes to `onPage` as it arrives, so callers stream and nothing accumulates.
    ///
    /// Pages hold up to `pageSize` events (`$top`, at most 1000); `@odata.nextLink` is followed verbatim, and
    /// a link to another scheme, host or port than ``baseURL``'s is refused with a ``GraphError`` before
    /// any token is sent there. Ranges longer than `window` (``calendarViewWindow`` unless given; at most
    /// ``longestRange``) are read as consecutive windows, every event once (see
    /// ``windowedPages(path:start:end:window:pageSize:operation:onPage:)``).
    ///
    /// - Parameter calendarID: a calendar's id, or `nil` for the default calendar.
    public func calendarView(
        calendarID: String? = nil,
        start: Date,
        end: Date,
        window: TimeInterval = calendarViewWindow,
        pageSize: Int = 1000,
        onPage: (Data) throws -> Void
    ) throws {
        let path = (calendarID == nil ? mailbox.path : calendarPath(calendarID)) + "/calendarView"
        try windowedPages(
            path: path, start: start, end: end, window: window, pageSize: pageSize,
            operation: "reading calendarView", onPage: onPage)
    }

    /// The one way a ranged read (`startDateTime`/`endDateTime`) is sent: `[start, end)` in consecutive
    /// windows of at most `window` (never more than ``longestRange``, which Graph refuses), each followed
    /// page by page.
    ///
    /// An event overlapping a window boundary is returned by Graph in both windows, so graph-ics removes it
    /// from the later window's pages by event id (those pages are then re-serialised JSON, not Graph's
    /// bytes): `onPage` sees every event once. All-day events count as overlapping a boundary when their
    /// floating end could be later than it in any zone (see ``WindowPage``).
    func windowedPages(
        path: String, start: Date, end: Date, window: TimeInterval, pageSize: Int, operation: String,
        onPage: (Data) throws -> Void
    ) throws {
        let windows = Self.windows(start: start, end: end, length: min(window, Self.longestRange))
        guard windows.count > 1 else {
            try pages(
                from: url(path, query: rangeQuery(start: start, end: end, pageSize: pageSize)),
                operation: operation
            ) { try onPage($0.body) }
            return
        }
        var carried: Set<String> = []
        for window in windows {
            var crossing: Set<String> = []
            let boundary = WindowPage.Boundary(window.end)
            try pages(
                from: url(path, query: rangeQuery(start: window.start, end: window.end, pageSize: pageSize)),
                operation: operation
            ) { response in
                let page = try WindowPage.removing(
                    carried, from: response.body, boundary: boundary, crossing: &crossing)
                guard let page else {
                    throw GraphError.malformed("a page is not a JSON object", operation: operation, response: response)
                }
                try onPage(page)
            }
            carried = crossing
        }
    }

    /// Creates an event from a Graph event payload (`POST …/events` or `…/calendars/{id}/events`).
    ///
    /// A payload with a `transactionId` may be retried after a dropped connection or a 429 (Graph
    /// answers a repeated `transactionId` with the event it created first); one without is sent once.
    public func createEvent(_ payload: Data, calendarID: String? = nil) throws -> CreatedEvent {
        let operation = "creating an event"
        let response = try send(
            "POST", url(eventsPath(calendarID: calendarID)), body: payload, operation: operation)
        let created = try decode(GraphCreatedEventFields.self, from: response, operation: operation)
        return CreatedEvent(id: created.id, iCalUId: created.iCalUId, raw: response.body)
    }

    /// Changes the fields of an event that `patch` holds (`PATCH …/events/{id}`); returns the updated event.
    @discardableResult
    public func updateEvent(id: String, patch: Data) throws -> Data {
        try send(
            "PATCH", url(mailbox.path + "/events/" + GraphQuery.encodePathSegment(id)), body: patch,
            operation: "updating event \(id)"
        ).body
    }

    /// Deletes an event or one occurrence (`DELETE …/events/{id}`), without notifying attendees.
    public func deleteEvent(id: String) throws {
        _ = try send(
            "DELETE", url(mailbox.path + "/events/" + GraphQuery.encodePathSegment(id)), body: nil,
            operation: "deleting event \(id)")
    }

    /// Cancels a meeting the mailbox organises and notifies its attendees with `comment`
    /// (`POST …/events/{id}/cancel`).
    public func cancelEvent(id: String, comment: String? = nil) throws {
        var object: [String: Any] = [:]
        if let comment { object["Comment"] = comment }
        let body = try JSONSerialization.data(withJSONObject: object)
        _ = try send(
            "POST", url(mailbox.path + "/events/" + GraphQuery.encodePathSegment(id) + "/cancel"), body: body,
            operation: "cancelling event \(id)")
    }

    /// The events whose single-value extended property `id` has the value `value`: how graph-ics finds the
    /// events an earlier import created from a source UID.
    ///
    /// Sends `$filter=singleValueExtendedProperties/Any(ep: ep/id eq '…' and ep/value eq '…')` (quotes
    /// inside the id and the value doubled, as OData string literals require) and expands the property
    /// itself and the properties `expanding` names, so ``FoundEvent/extendedProperties`` holds them.
    /// Always mailbox-wide (`/events`): `api/singlevaluelegacyextendedproperty-get.md` documents this
    /// `$filter` there and not on a calendar's `/events`; callers compare the calendar themselves.
    public func findEvents(
        withExtendedProperty id: String,
        value: String,
        expanding: [String] = []
    ) throws -> [FoundEvent] {
        let operation = "looking up events by extended property"
        let filter =
            "singleValueExtendedProperties/Any(ep: ep/id eq \(GraphQuery.literal(id)) and ep/value eq "
            + "\(GraphQuery.literal(value)))"
        var ids = [id]
        for extra in expanding where !ids.contains(extra) { ids.append(extra) }
        let expand =
            "singleValueExtendedProperties($filter="
            + ids.map { "id eq \(GraphQuery.literal($0))" }.joined(separator: " or ") + ")"
        let path = mailbox.path + "/events"
        let query = [
            ("$filter", filter), ("$expand", expand),
            ("$select", "id,iCalUId,lastModifiedDateTime,subject,start,end,type,seriesMasterId"),
            ("$top", "50"),
        ]
        var found: [FoundEvent] = []
        try pages(from: url(path, query: query), operation: operation) { response in
            guard let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any],
                let events = object["value"] as? [[String: Any]]
            else { throw GraphError.malformed("no \"value\" array", operation: operation, response: response) }
            for event in events {
                guard let eventID = event["id"] as? String else { continue }
                var properties: [String: String] = [:]
                for property in event["singleValueExtendedProperties"] as? [[String: Any]] ?? [] {
                    if let key = property["id"] as? String, let text = property["value"] as? String {
                        properties[key] = text
                    }
                }
                found.append(
                    FoundEvent(
                        id: eventID,
                        iCalUId: event["iCalUId"] as? String,
                        lastModifiedDateTime: event["lastModifiedDateTime"] as? String,
                        extendedProperties: properties,
                        raw: (try? JSONSerialization.data(withJSONObject: event, options: [.sortedKeys])) ?? Data()
                    ))
            }
        }
        return found
    }

    /// `[start, end)` cut into consecutive windows of at most `length` seconds.
    static func windows(start: Date, end: Date, length: TimeInterval = calendarViewWindow) -> [(
        start: Date, end: Date
    )] {
        guard end.timeIntervalSince(start) > length else { return [(start, end)] }
        var windows: [(start: Date, end: Date)] = []
        var from = start
        while from < end {
            let to = min(from.addingTimeInterval(length), end)
            windows.append((from, to))
            from = to
        }
        return windows
    }

    /// How many calendarView requests (before paging) `[start, end)` takes.
    public static func calendarViewWindowCount(start: Date, end: Date) -> Int {
        windows(start: start, end: end).count
    }
}

/// The fields of a created event graph-ics reads.
private struct GraphCreatedEventFields: Decodable {
    var id: String
    var iCalUId: String?
}

/// Pages of a window after the first, cleared of events an earlier window delivered.
enum WindowPage {
    /// The end of a window as the two kinds of event end are compared with it.
    struct Boundary {
        /// The window's end in Graph's UTC form (`2026-03-02T08:00:00`): timed events' ends are UTC
        /// (graph-ics asks for `outlook.timezone="UTC"`).
        var utc: String
        /// The earliest floating wall time that may lie after the window's end in some zone: an all-day
        /// event's end is midnight without a zone (its own zone, not UTC), and zones run from UTC−12 to
        /// UTC+14, so an end later than 14 hours before the boundary may cross it.
        var floating: String

        init(_ end: Date) {
            utc = GraphClient.graphUTC(end)
            floating = GraphClient.graphUTC(end.addingTimeInterval(-14 * 3600))
        }
    }

    /// Removes the events whose id is in `seen` from the page; adds to `crossing` the id of every event
    /// in the page that may end after `boundary` (Graph returns it in the next window too). Returns
    /// `data` itself when nothing was removed; `nil` when it is not a JSON object.
    static func removing(
        _ seen: Set<String>,
        from data: Data,
        boundary: Boundary,
        crossing: inout Set<String>
    ) throws -> Data? {
        guard var object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        guard let events = object["value"] as? [Any] else { return data }
        var kept: [Any] = []
        kept.reserveCapacity(events.count)
        for item in events {
            guard let event = item as? [String: Any], let id = event["id"] as? String else {
                kept.append(item)
                continue
            }
            if mayCross(event, boundary) { crossing.insert(id) }
            if !seen.contains(id) { kept.append(item) }
        }
        guard kept.count != events.count else { return data }
        object["value"] = kept
        return try JSONSerialization.data(withJSONObject: object)
    }

    /// Whether the event may end after the boundary (an event without a readable end is assumed to).
    static func mayCross(_ event: [String: Any], _ boundary: Boundary) -> Bool {
        guard let end = (event["end"] as? [String: Any])?["dateTime"] as? String else { return true }
        let limit = event["isAllDay"] as? Bool == true ? boundary.floating : boundary.utc
        return String(end.prefix(19)) >= limit
    }
}
