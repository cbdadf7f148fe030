import Foundation
import GraphICS
import ICalBridge

/// One event as the views show it (`agenda` in every form, `week`, `month`, the HTML page): its span and what
/// is printed of it, read once from the Graph event.
struct AgendaEntry: Equatable {
    enum Span: Equatable {
        /// Instants (seconds since 1970 UTC).
        case timed(start: Int64, end: Int64)
        /// Dates, `end` exclusive.
        case allDay(first: CivilDateTime, end: CivilDateTime)
    }

    var id: String?
    var subject: String
    var span: Span
    var isCancelled: Bool
    /// The organizer's name (else address); nil when it is the mailbox's owner (see ``hidingOrganizer(_:)``).
    var organizer: String?
    /// The organizer's address, to tell the mailbox's owner from others.
    var organizerAddress: String?
    var location: String?
    /// Graph's `showAs`: free, tentative, busy, oof, workingElsewhere, unknown.
    var showAs: String?
    /// Graph's `responseStatus.response`: none, organizer, tentativelyAccepted, accepted, declined,
    /// notResponded.
    var response: String?
    var categories: [String]
    /// The name of the calendar the event came from, set when several calendars are read at once.
    var calendar: String?
    /// The online meeting's join URL (`onlineMeeting.joinUrl`, else `onlineMeetingUrl`).
    var joinURL: String?

    /// Reads a Graph event; nil when its start or end cannot be read.
    init?(_ event: GraphEvent, calendar: String? = nil) {
        if event.isAllDay == true {
            guard let start = event.start?.dateTime.flatMap(GraphTimestamp.parse)?.civil.date,
                let end = event.end?.dateTime.flatMap(GraphTimestamp.parse)?.civil.date
            else { return nil }
            span = .allDay(first: start, end: max(end, start.adding(days: 1)))
        } else {
            guard let start = Self.instant(event.start), let end = Self.instant(event.end) else { return nil }
            span = .timed(start: start, end: max(start, end))
        }
        id = event.id
        subject = event.subject ?? ""
        isCancelled = event.isCancelled == true
        let address = event.organizer?.emailAddress
        organizer = [address?.name, address?.address].compactMap { $0 }.first { !$0.isEmpty }
        organizerAddress = address?.address.flatMap { $0.isEmpty ? nil : $0 }
        location = event.location?.displayName.flatMap { $0.isEmpty ? nil : $0 }
        showAs = event.showAs
        response = event.responseStatus?.response
        categories = event.categories ?? []
        self.calendar = calendar
        joinURL = [event.onlineMeeting?.joinUrl, event.onlineMeetingUrl].compactMap { $0 }.first { !$0.isEmpty }
    }

    /// The entry without its organizer when the organizer is `owner` (the mailbox's own address or name,
    /// compared without case): the views name only other people's meetings.
    func hidingOrganizer(_ owner: Set<String>) -> AgendaEntry {
        var entry = self
        let names = [organizerAddress, organizer].compactMap { $0?.lowercased() }
        if names.contains(where: owner.contains) { entry.organizer = nil }
        return entry
    }

    /// The instant of a Graph `{dateTime, timeZone}`: its own offset when it has one, else local time in the
    /// named zone (graph-ics asks Graph for UTC), UTC when the zone is not known.
    static func instant(_ value: GraphDateTimeTimeZone?) -> Int64? {
        guard let text = value?.dateTime, let timestamp = GraphTimestamp.parse(text) else { return nil }
        if let instant = timestamp.instant { return instant }
        if case .resolved(let zone, _) = ZoneResolver.resolve(value?.timeZone) {
            return zone.instant(forLocal: timestamp.civil)
        }
        return timestamp.civil.secondsSinceEpoch
    }

    /// The entries of Graph JSON pages (a calendarView collection, an array or one event), with a
    /// diagnostic for each event whose start or end cannot be read.
    static func read(_ data: Data, file: String) throws -> (entries: [AgendaEntry], diagnostics: [Diagnostic]) {
        read(try GraphEventDocument.decode(data, file: file), file: file)
    }

    /// The entries of a read Graph JSON page, each naming `calendar` when given.
    static func read(
        _ document: GraphEventDocument, file: String, calendar: String? = nil
    ) -> (entries: [AgendaEntry], diagnostics: [Diagnostic]) {
        var diagnostics = document.diagnostics
        var entries: [AgendaEntry] = []
        for event in document.events {
            if let entry = AgendaEntry(event, calendar: calendar) {
                entries.append(entry)
            } else {
                diagnostics.append(
                    Diagnostic(
                        .error, "has no readable start or end; not shown", file: file, eventID: event.id,
                        subject: event.subject))
            }
        }
        return (entries, diagnostics)
    }

    /// Start order: the start instant (all-day events at midnight in `zone`, so first on their day), then
    /// all-day before timed, then the end, then the subject.
    func sortKey(in zone: ResolvedZone) -> SortKey {
        switch span {
        case .timed(let start, let end):
            return SortKey(start: start, timed: 1, end: end, subject: subject)
        case .allDay(let first, let end):
            return SortKey(
                start: zone.instant(forLocal: first), timed: 0, end: zone.instant(forLocal: end), subject: subject)
        }
    }

    struct SortKey: Comparable {
        var start: Int64
        var timed: Int
        var end: Int64
        var subject: String

        static func < (lhs: SortKey, rhs: SortKey) -> Bool {
            (lhs.start, lhs.timed, lhs.end, lhs.subject) < (rhs.start, rhs.timed, rhs.end, rhs.subject)
        }
    }

    /// The part of the entry on `day` of `zone`: all day, or the instants clipped to the day; nil when the
    /// event is not on that day. A timed event of no length is on the day it starts.
    func piece(on day: CivilDateTime, in zone: ResolvedZone) -> Piece? {
        let dayStart = zone.instant(forLocal: day)
        let dayEnd = zone.instant(forLocal: day.adding(days: 1))
        switch span {
        case .allDay(let first, let end):
            guard first <= day, day < end else { return nil }
            return .allDay(
                index: Int(day.daysSinceEpoch - first.daysSinceEpoch) + 1,
                count: Int(end.daysSinceEpoch - first.daysSinceEpoch))
        case .timed(let start, let end):
            let overlaps = start == end ? (dayStart <= start && start < dayEnd) : (start < dayEnd && end > dayStart)
            guard overlaps else { return nil }
            return .timed(
                start: max(start, dayStart), end: min(end, dayEnd), continued: start < dayStart,
                continues: end > dayEnd, dayStart: dayStart)
        }
    }

    enum Piece: Equatable {
        /// Day `index` of `count`.
        case allDay(index: Int, count: Int)
        /// Instants within the day; `continued` when the event began on an earlier day, `continues` when it
        /// ends on a later one.
        case timed(start: Int64, end: Int64, continued: Bool, continues: Bool, dayStart: Int64)
    }

    /// The entries on each day of `days`, all-day ones first, each list in start order.
    static func byDay(_ entries: [AgendaEntry], days: DayRange) -> [(day: CivilDateTime, items: [DayItem])] {
        let sorted = entries.sorted { $0.sortKey(in: days.zone) < $1.sortKey(in: days.zone) }
        var result: [(CivilDateTime, [DayItem])] = []
        var day = days.first
        while day < days.end {
            let items = sorted.compactMap { entry in entry.piece(on: day, in: days.zone).map { DayItem(entry, $0) } }
            result.append((day, items.filter(\.isAllDay) + items.filter { !$0.isAllDay }))
            day = day.adding(days: 1)
        }
        return result
    }

    /// One entry's piece on one day.
    struct DayItem: Equatable {
        var entry: AgendaEntry
        var piece: Piece

        init(_ entry: AgendaEntry, _ piece: Piece) {
            self.entry = entry
            self.piece = piece
        }

        var isAllDay: Bool {
            if case .allDay = piece { return true }
            return false
        }
    }
}
