import Foundation
import GraphICSMirror
import ICalBridge

/// A feed's definition with what `serve` resolved for it when it started: the calendar's id and whether it is
/// the mailbox's primary calendar (which decides how changes are read), the zone days are counted in and the
/// calendar's name for the body.
public struct FeedTarget: Sendable {
    public var definition: FeedDefinition
    /// The calendar's id; nil for the mailbox's default calendar.
    public var calendarID: String?
    /// True: the mailbox's default (primary) calendar, however the user named it, read through
    /// `…/calendarView/delta` (Graph v1.0 documents delta only for it). False: `calendars/{id}/calendarView`
    /// read whole and compared by change key.
    public var isPrimary: Bool
    /// Where today starts (the feed's window) and where events without a zone of their own are shown.
    public var zone: ResolvedZone
    /// Written as the body's NAME and X-WR-CALNAME; nil leaves them out.
    public var calendarName: String?
    /// The mailbox as the calendar's mirror is named by (``CalendarMirror``): its user principal name, so
    /// that `sync` and `serve` share one mirror of a calendar.
    public var account: String

    public init(
        definition: FeedDefinition, calendarID: String? = nil, isPrimary: Bool = true, zone: ResolvedZone = .utc,
        calendarName: String? = nil, account: String = ""
    ) {
        self.account = account
        self.definition = definition
        self.calendarID = calendarID
        self.isPrimary = isPrimary
        self.zone = zone
        self.calendarName = calendarName
    }
}

extension FeedTarget {
    /// The days the feed shows at `now`: from midnight (in ``zone``) `pastDays` before today to midnight
    /// after the day `futureDays` after today; the same range as `graph-ics export --from TODAY-PAST
    /// --to TODAY+FUTURE+1` in that zone. It moves at midnight, when the next refresh takes the whole window
    /// from the calendar's mirror (which reads Graph whole only when the window leaves the one it follows).
    public func window(at now: Date) -> SyncWindow {
        let today = zone.localTime(at: Int64(now.timeIntervalSince1970.rounded(.down))).date
        let first = today.adding(days: -definition.pastDays)
        let end = today.adding(days: definition.futureDays + 1)
        return SyncWindow(start: zone.instant(forLocal: first), end: zone.instant(forLocal: end))
    }
}
