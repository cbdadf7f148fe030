import Foundation
import ICalBridge

// What a sync reads and writes: rounds of `calendarView/delta` on the primary calendar (followed to the
// deltaLink, resumed from a stored deltaLink), and PATCH and DELETE with `If-Match` on the etag last seen.

/// One event of a delta round, as Graph sent it.
public struct DeltaEvent: Sendable, Equatable {
    public var id: String
    /// Graph's `changeKey` of this version of the event.
    public var changeKey: String?
    /// Graph's `@odata.etag` of this version: what `If-Match` sends back to change it only if unchanged.
    public var etag: String?
    /// The event's JSON object as Graph sent it, for ``GraphEventDocument/decode(_:file:)``.
    public var raw: Data
}

/// One page of a delta round: events added or changed in the window, and ids Graph reported `@removed`.
public struct CalendarDeltaPage: Sendable, Equatable {
    public var events: [DeltaEvent] = []
    /// Events deleted, moved out of the window, or added, changed or deleted outside it (Graph reports all
    /// of these as removed): ids graph-ics never stored are among them and mean nothing.
    public var removedIDs: [String] = []
}

/// A whole delta round.
public struct CalendarDelta: Sendable, Equatable {
    public var events: [DeltaEvent]
    public var removedIDs: [String]
    /// Where the next round starts. It holds a state token that reads the mailbox's changes: store it like
    /// a credential, never print it.
    public var deltaLink: String
}

/// Graph no longer has the state a delta link (or a page link of the round) stands for, answering 410
/// (`syncStateNotFound` when its token cache dropped it, `resyncRequired` after maintenance): start a
/// full round from the window and compare it with what was stored.
public struct DeltaResyncRequired: Error, Sendable, CustomStringConvertible {
    /// Graph's answer, with its code and request-id.
    public var error: GraphError

    public var description: String { error.description }
}

/// Graph refused a PATCH or DELETE sent with `If-Match` because the event changed since that etag was
/// read (412 `ErrorIrresolvableConflict`): the event was changed on both sides, and nothing was written.
///
/// A write retried after a dropped connection may meet its own first attempt, which Graph applied: read
/// the event before calling it a conflict.
public struct EditConflict: Error, Sendable, CustomStringConvertible {
    public var eventID: String
    /// Graph's answer, with its code and request-id.
    public var error: GraphError

    public var description: String { error.description }
}

extension GraphClient {
    /// The first round of `calendarView/delta` over `[start, end)` of the primary calendar: every event
    /// in the window, page by page, as ``calendarView(calendarID:start:end:pageSize:onPage:)`` returns them
    /// (occurrences and exceptions, not series masters). Returns the deltaLink of the round's last page.
    ///
    /// Graph v1.0 documents delta only for the primary calendar, and the window is fixed for every later
    /// round (the deltaLink encodes it). Pages hold up to `pageSize` entries (`Prefer:
    /// odata.maxpagesize`, sent with every page); nextLinks are followed like other pages (never to
    /// another host). A 410 throws ``DeltaResyncRequired``.
    @discardableResult
    public func calendarViewDelta(
        start: Date, end: Date, pageSize: Int = 1000, onPage: (CalendarDeltaPage) throws -> Void
    ) throws -> String {
        let first = try url(
            mailbox.path + "/calendarView/delta",
            query: [("startDateTime", Self.iso8601(start)), ("endDateTime", Self.iso8601(end))])
        return try deltaRound(from: first, pageSize: pageSize, onPage: onPage)
    }

    /// A later round: what changed since the round that returned `deltaLink`, and the next deltaLink. When
    /// nothing changed this is one request and one empty page. Resuming from the same deltaLink again
    /// answers from the same state (a change already seen is reported again).
    @discardableResult
    public func calendarViewDelta(
        resumingFrom deltaLink: String, pageSize: Int = 1000, onPage: (CalendarDeltaPage) throws -> Void
    ) throws -> String {
        let first = try followable(deltaLink, operation: Self.deltaOperation)
        return try deltaRound(from: first, pageSize: pageSize, onPage: onPage)
    }

    /// The first round, gathered: see ``calendarViewDelta(start:end:pageSize:onPage:)``.
    public func calendarViewDelta(start: Date, end: Date, pageSize: Int = 1000) throws -> CalendarDelta {
        var gathered = CalendarDeltaPage()
        let link = try calendarViewDelta(start: start, end: end, pageSize: pageSize) { gathered.append($0) }
        return CalendarDelta(events: gathered.events, removedIDs: gathered.removedIDs, deltaLink: link)
    }

    /// A later round, gathered: see ``calendarViewDelta(resumingFrom:pageSize:onPage:)``.
    public func calendarViewDelta(resumingFrom deltaLink: String, pageSize: Int = 1000) throws -> CalendarDelta {
        var gathered = CalendarDeltaPage()
        let link = try calendarViewDelta(resumingFrom: deltaLink, pageSize: pageSize) { gathered.append($0) }
        return CalendarDelta(events: gathered.events, removedIDs: gathered.removedIDs, deltaLink: link)
    }

    /// Changes the fields of an event that `patch` holds, only if its etag is still `etag` (`PATCH
    /// …/events/{id}` with `If-Match`); returns the updated event. A 412 throws ``EditConflict``.
    @discardableResult
    public func updateEvent(id: String, patch: Data, ifMatch etag: String) throws -> Data {
        let request = HTTPRequest(
            method: "PATCH", url: try url(eventPath(id: id)), headers: [("If-Match", etag)], body: patch)
        return try conditional(request, eventID: id, operation: "updating event \(id)").body
    }

    /// Deletes an event or one occurrence only if its etag is still `etag` (`DELETE …/events/{id}` with
    /// `If-Match`), without notifying attendees. A 412 throws ``EditConflict``.
    public func deleteEvent(id: String, ifMatch etag: String) throws {
        let request = HTTPRequest(method: "DELETE", url: try url(eventPath(id: id)), headers: [("If-Match", etag)])
        _ = try conditional(request, eventID: id, operation: "deleting event \(id)")
    }

    // MARK: Helpers

    static let deltaOperation = "reading calendar changes (calendarView delta)"

    /// Follows one round from `first` to its deltaLink, handing each page to `onPage`.
    private func deltaRound(from first: URL, pageSize: Int, onPage: (CalendarDeltaPage) throws -> Void) throws
        -> String
    {
        let operation = Self.deltaOperation
        let prefer = "odata.maxpagesize=\(min(max(pageSize, 1), 1000))"
        var deltaLink: String?
        do {
            try pages(from: first, operation: operation, headers: [("Prefer", prefer)]) { response in
                try onPage(CalendarDeltaPage(response, operation: operation))
                deltaLink = GraphPage.links(in: response.body)?.deltaLink
            }
        } catch let error as GraphError where error.status == 410 {
            throw DeltaResyncRequired(error: error)
        }
        guard let deltaLink else {
            throw GraphError.malformed("the last page of the round has no @odata.deltaLink", operation: operation)
        }
        return deltaLink
    }

    /// Sends a write with `If-Match`, a 412 thrown as ``EditConflict``.
    private func conditional(_ request: HTTPRequest, eventID: String, operation: String) throws -> HTTPResponse {
        do {
            return try perform(request, operation: operation)
        } catch let error as GraphError where error.status == 412 {
            throw EditConflict(eventID: eventID, error: error)
        }
    }
}

extension CalendarDeltaPage {
    /// Reads a delta page: `@removed` entries by id, every other entry as an event (its bytes as sent).
    init(_ response: HTTPResponse, operation: String) throws {
        guard let entries = GraphPage.entries(in: response.body, fields: ["id", "changeKey", "@odata.etag"]) else {
            throw GraphError.malformed("a delta page has no \"value\" array", operation: operation, response: response)
        }
        for entry in entries {
            guard let id = entry.fields["id"] else {
                throw GraphError.malformed("a delta entry has no id", operation: operation, response: response)
            }
            if entry.isRemoved {
                removedIDs.append(id)
                continue
            }
            events.append(
                DeltaEvent(
                    id: id, changeKey: entry.fields["changeKey"], etag: entry.fields["@odata.etag"], raw: entry.raw))
        }
    }

    mutating func append(_ page: CalendarDeltaPage) {
        events += page.events
        removedIDs += page.removedIDs
    }
}
