import Foundation
import GraphICS
import GraphICSSync
import ICalBridge

// How a refresh reads Graph: a delta round on the primary calendar (resumed, or over the whole window), a
// calendarView read on any other.
extension FeedSource {
    /// The events of `window` as Graph has them now, the kind of round that read them, and whether they differ
    /// from `held` (an event came, went or has a new change key). `held` is not changed: a round that fails
    /// part way leaves the copy as it was.
    func read(_ held: FeedEvents?, window: SyncWindow, requests: inout Int) throws
        -> (events: FeedEvents, round: FeedRefreshReport.Round, changed: Bool)
    {
        guard target.isPrimary else {
            let events = try calendarView(window, requests: &requests)
            return (events, .calendarView, !events.holdsTheSameEvents(as: held))
        }
        if let held, held.window == window, held.calendarID == target.calendarID, let link = held.deltaLink {
            do {
                let (events, changed) = try changes(held, since: link, requests: &requests)
                return (events, .changes, changed)
            } catch is DeltaResyncRequired {
                // Graph dropped the round's state: read the whole window again, compared with what is held.
            }
        }
        let events = try wholeWindow(window, requests: &requests)
        return (events, .full, !events.holdsTheSameEvents(as: held))
    }

    /// A delta round resumed from `link`: the changes applied to a copy of `held`.
    private func changes(_ held: FeedEvents, since link: String, requests: inout Int) throws -> (FeedEvents, Bool) {
        var events = held
        var changed = false
        events.deltaLink = try client.calendarViewDelta(resumingFrom: link, pageSize: pageSize) { page in
            requests += 1
            for id in page.removedIDs where events.remove(id: id) { changed = true }
            for event in page.events where events.store(id: event.id, changeKey: event.changeKey, raw: event.raw) {
                changed = true
            }
        }
        return (events, changed)
    }

    /// A first delta round over `window`; a 410 in its pages (Graph dropped the round's state while it was
    /// read) starts it again once.
    private func wholeWindow(_ window: SyncWindow, requests: inout Int) throws -> FeedEvents {
        func round(_ requests: inout Int) throws -> FeedEvents {
            var events = FeedEvents(window: window, calendarID: target.calendarID)
            events.deltaLink = try client.calendarViewDelta(
                start: Self.date(window.start), end: Self.date(window.end), pageSize: pageSize
            ) { page in
                requests += 1
                for id in page.removedIDs { events.remove(id: id) }
                for event in page.events { events.store(id: event.id, changeKey: event.changeKey, raw: event.raw) }
            }
            return events
        }
        do {
            return try round(&requests)
        } catch is DeltaResyncRequired {
            return try round(&requests)
        }
    }

    /// Every event of `window` in the feed's calendar, read with `calendars/{id}/calendarView` in one range.
    private func calendarView(_ window: SyncWindow, requests: inout Int) throws -> FeedEvents {
        var events = FeedEvents(window: window, calendarID: target.calendarID)
        try client.calendarView(
            calendarID: target.calendarID, start: Self.date(window.start), end: Self.date(window.end),
            window: GraphClient.longestRange, pageSize: pageSize
        ) { page in
            requests += 1
            guard let entries = GraphPage.entries(in: page, fields: ["id", "changeKey"]) else {
                throw GraphError(
                    .other, operation: "reading calendarView",
                    message: "Graph's answer could not be read: a page has no \"value\" array")
            }
            for entry in entries where !entry.isRemoved {
                guard let id = entry.fields["id"] else { continue }
                events.store(id: id, changeKey: entry.fields["changeKey"], raw: entry.raw)
            }
        }
        return events
    }

    static func date(_ seconds: Int64) -> Date {
        Date(timeIntervalSince1970: TimeInterval(seconds))
    }
}
