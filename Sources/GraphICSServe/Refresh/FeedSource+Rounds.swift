import Foundation
import GraphICS
import GraphICSMirror
import ICalBridge

// How a refresh reads its calendar: through the calendar's mirror (``CalendarMirror``), which owns the Graph
// rounds; the feed keeps the events of its own window and where it stopped reading the mirror.
extension FeedSource {
    /// The events of `window` as Graph has them now, the kind of round that read them, and whether they differ
    /// from `held` (an event came, went or has a new change key). `held` is not changed: a round that fails
    /// part way leaves the copy as it was.
    func read(_ held: FeedEvents?, window: SyncWindow, requests: inout Int) throws
        -> (events: FeedEvents, round: FeedRefreshReport.Round, changed: Bool)
    {
        let usable = held.flatMap { $0.calendarID == target.calendarID ? $0 : nil }
        let consumer = "feed:" + target.definition.name
        let cursor = usable?.cursor
        let read = try mirror.withLock { mirror in try mirror.read(consumer: consumer, window: window, since: cursor) }
        requests += read.requests
        let round: FeedRefreshReport.Round =
            !target.isPrimary ? .calendarView : read.kind == .whole ? .full : .changes
        if read.kind == .changes, var events = usable {
            var changed = false
            for id in read.removedIDs where events.remove(id: id) { changed = true }
            for event in read.events where events.store(id: event.id, changeKey: event.changeKey, raw: event.raw) {
                changed = true
            }
            events.cursor = read.cursor
            return (events, round, changed)
        }
        var events = FeedEvents(window: window, calendarID: target.calendarID, cursor: read.cursor)
        for event in read.events { events.store(id: event.id, changeKey: event.changeKey, raw: event.raw) }
        return (events, round, !events.holdsTheSameEvents(as: held))
    }
}
