import Dispatch
import Foundation

/// A zone a VEVENT uses, from `from` to `to` (nil: without end, a series that never ends).
public struct ZoneUse: Sendable {
    public var zone: ICalZone
    public var from: Int64
    public var to: Int64?

    public init(zone: ICalZone, from: Int64, to: Int64?) {
        self.zone = zone
        self.from = from
        self.to = to
    }
}

/// One VEVENT ready for a ``CalendarWriter``.
public struct EncodedEvent: Sendable {
    /// The VEVENT's text: CRLF lines, folded at 75 octets.
    public var text: [UInt8]
    public var uid: String
    /// The start instant (timed) or the start date at 00:00 read as UTC (all-day): the sort key.
    public var sortStart: Int64
    /// The zones the VEVENT names in TZID parameters, with the span of instants it needs them for (a
    /// single instant, or a series' whole range); `to` is nil for a series without end.
    public var zoneUses: [ZoneUse]
    /// An override of a series (written with RECURRENCE-ID), not an event of its own.
    public var isOverride = false
}

/// Turns Graph events into VEVENTs (zones and instants through libical).
///
/// The mapping is one row per iCalendar property (``rows``); the time properties come first because an
/// event whose times cannot be read is not exported at all. Problems are returned as diagnostics: an error
/// means the event was skipped, a warning that it was exported with a stated fallback.
public struct EventEncoder: Sendable {
    public var options: ExportOptions

    public init(options: ExportOptions) {
        self.options = options
    }

    /// Encodes one event, or returns nil with at least one error diagnostic.
    public func encode(_ event: GraphEvent, diagnostics: inout [Diagnostic]) -> EncodedEvent? {
        var context = Context(event: event, options: options)
        defer { diagnostics.append(contentsOf: context.diagnostics) }
        guard let times = context.resolveTimes() else { return nil }
        context.times = times
        context.lines.begin("VEVENT")
        for row in Self.rows { row.write(&context) }
        context.lines.end("VEVENT")
        return EncodedEvent(
            text: context.lines.bytes, uid: context.uid, sortStart: sortKey(times), zoneUses: context.zoneUses)
    }

    /// Encodes `events` on all cores, returning for each, in order, its VEVENT (nil when it failed) and
    /// its diagnostics.
    public func encode(_ events: [GraphEvent]) -> [(EncodedEvent?, [Diagnostic])] {
        encode(count: events.count) { .event(events[$0]) }
    }

    /// Encodes `count` events that `event` produces (parsing them, for example) on all cores, in order.
    /// Encoding is independent per event; libical's zone code is serialised by ``ICalZone``'s lock.
    func encode(count: Int, _ event: (Int) -> ParsedEvent) -> [(EncodedEvent?, [Diagnostic])] {
        func one(_ index: Int) -> (EncodedEvent?, [Diagnostic]) {
            switch event(index) {
            case .event(let graphEvent):
                var diagnostics: [Diagnostic] = []
                let encoded = encode(graphEvent, diagnostics: &diagnostics)
                return (encoded, diagnostics)
            case .failed(let diagnostic):
                return (nil, [diagnostic])
            }
        }
        return Parallel.map(count: count, one)
    }

    /// Timed events sort by their start instant; all-day events by midnight of their first day in the
    /// mailbox zone (UTC without `--tz`).
    func sortKey(_ times: Times) -> Int64 {
        guard times.isAllDay else { return times.start }
        let midnight = times.startDate.secondsSinceEpoch
        guard let zone = options.fallbackZone, ICalZone.supportedInstants.contains(midnight) else { return midnight }
        return zone.instant(forLocal: times.startDate)
    }

    /// One property of the mapping.
    struct Row: Sendable {
        let property: String
        let write: @Sendable (inout Context) -> Void
    }

    /// Graph → iCalendar, one row per property, in output order.
    static let rows: [Row] = [
        Row(property: "UID") { $0.lines.text("UID", $0.uid) },
        Row(property: "DTSTAMP") { $0.writeStamp() },
        Row(property: "DTSTART/DTEND") { $0.writeTimes() },
        Row(property: "RRULE") { $0.writeRecurrence() },
        // Always written, empty without a subject: calcurse crashes on an event without SUMMARY.
        Row(property: "SUMMARY") { $0.lines.text("SUMMARY", $0.event.subject ?? "") },
        Row(property: "DESCRIPTION/X-ALT-DESC") { $0.writeBody() },
        Row(property: "LOCATION/GEO") { $0.writeLocation() },
        Row(property: "ORGANIZER") { context in
            guard let email = context.event.organizer?.emailAddress, let address = context.mailto(email) else { return }
            if let name = context.commonName(email) {
                context.lines.property("ORGANIZER", ["CN": name], value: address)
            } else {
                context.lines.property("ORGANIZER", value: address)
            }
        },
        Row(property: "ATTENDEE") { $0.writeAttendees() },
        Row(property: "CLASS") { context in
            guard let sensitivity = context.event.sensitivity else { return }
            guard let value = GraphMappings.sensitivityToClass[sensitivity] else {
                context.warning("sensitivity '\(sensitivity)' has no iCalendar equivalent; CLASS left out")
                return
            }
            context.lines.property("CLASS", value: value)
            if sensitivity == "personal" { context.lines.property("X-GRAPH-ICS-SENSITIVITY", value: sensitivity) }
        },
        Row(property: "TRANSP/X-MICROSOFT-CDO-BUSYSTATUS") { context in
            guard let showAs = context.event.showAs else { return }
            guard let mapped = GraphMappings.showAsToICal[showAs] else {
                context.warning("showAs '\(showAs)' is unknown; exported as busy")
                context.lines.property("TRANSP", value: "OPAQUE")
                return
            }
            context.lines.property("TRANSP", value: mapped.transp)
            if let busy = mapped.busyStatus { context.lines.property("X-MICROSOFT-CDO-BUSYSTATUS", value: busy) }
        },
        Row(property: "PRIORITY/X-MICROSOFT-CDO-IMPORTANCE") { context in
            guard let importance = context.event.importance else { return }
            guard let mapped = GraphMappings.importanceToICal[importance] else {
                context.warning("importance '\(importance)' is unknown; PRIORITY left out")
                return
            }
            context.lines.property("PRIORITY", value: String(mapped.priority))
            context.lines.property("X-MICROSOFT-CDO-IMPORTANCE", value: mapped.cdo)
        },
        // One property with comma-separated values, as Google and Apple write it: several CATEGORIES
        // lines are legal, but ics-py refuses them and icalevents crashes on them.
        Row(property: "CATEGORIES") { context in
            let categories = (context.event.categories ?? []).filter { !$0.trimmingSpaces().isEmpty }
            if !categories.isEmpty { context.lines.textList("CATEGORIES", categories) }
        },
        Row(property: "STATUS") { context in
            if context.event.isCancelled == true { context.lines.property("STATUS", value: "CANCELLED") }
        },
        Row(property: "URL/CONFERENCE") { $0.writeOnlineMeeting() },
        Row(property: "CREATED") { $0.writeUTCTimestamp(\.createdDateTime, "createdDateTime", "CREATED") },
        Row(property: "LAST-MODIFIED") {
            $0.writeUTCTimestamp(\.lastModifiedDateTime, "lastModifiedDateTime", "LAST-MODIFIED")
        },
        Row(property: "X-MICROSOFT-CDO-ALLDAYEVENT") { context in
            if context.times?.isAllDay == true { context.lines.property("X-MICROSOFT-CDO-ALLDAYEVENT", value: "TRUE") }
        },
        Row(property: "X-GRAPH-ICS-EVENT-ID") { context in
            if let id = context.event.id.map(ICalText.singleLine), !id.isEmpty {
                context.lines.text("X-GRAPH-ICS-EVENT-ID", id)
            }
        },
        Row(property: "X-GRAPH-ICS-WEBLINK") { context in
            if let link = context.event.webLink.map(ICalText.singleLine), !link.isEmpty {
                context.lines.text("X-GRAPH-ICS-WEBLINK", link)
            }
        },
        Row(property: "X-GRAPH-ICS-CALENDAR") { context in
            if let name = context.options.eventCalendar.map(ICalText.singleLine), !name.isEmpty {
                context.lines.text("X-GRAPH-ICS-CALENDAR", name)
            }
        },
        Row(property: "VALARM") { $0.writeAlarm() },
    ]
}
