import Dispatch
import Foundation

/// Settings of one export.
public struct ExportOptions: Sendable {
    /// The mailbox zone (`--tz`): where events whose original zone Graph does not know are shown. UTC
    /// when nil.
    public var fallbackZone: ResolvedZone?
    /// The DTSTAMP (seconds since 1970, UTC) of an event for which Graph gives neither
    /// `lastModifiedDateTime` nor `createdDateTime`; 0 (1970-01-01T00:00:00Z) unless given, so that the
    /// output depends on the input alone.
    public var timestamp: Int64
    /// The file named in diagnostics.
    public var file: String
    /// The calendar's name, written as NAME (RFC 7986) and X-WR-CALNAME; nil when not known (a saved
    /// JSON file does not say which calendar it came from).
    public var calendarName: String?
    /// Which events are written and how much of each (`--detail` and the filters); everything unless
    /// given.
    public var selection: EventSelection
    /// The name of the calendar the events come from, written on each VEVENT as `X-GRAPH-ICS-CALENDAR`
    /// (iCalendar has no property for it: RFC 7986's NAME and X-WR-CALNAME name the whole file); set when
    /// one file holds several calendars.
    public var eventCalendar: String?
    /// The UID every event is written under instead of Graph's `iCalUId` (occurrences written as instances
    /// derive theirs from it); sync's pull sets it to an item's recorded UID, which the file keeps whatever
    /// `iCalUId` Graph gave the event. Nil: Graph's own.
    public var eventUID: String?

    public init(
        fallbackZone: ResolvedZone? = nil, timestamp: Int64? = nil, file: String = "<input>",
        calendarName: String? = nil, selection: EventSelection = .everything
    ) {
        self.fallbackZone = fallbackZone
        self.selection = selection
        self.calendarName = calendarName
        self.timestamp = timestamp ?? 0
        self.file = file
    }
}
