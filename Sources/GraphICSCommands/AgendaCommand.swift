import Foundation
import GraphICS
import ICalBridge

/// `graph-ics agenda`: the events of a week (or any range of days) at a glance, one heading per day.
struct AgendaCommand: Command {
    static let name = "agenda"
    static let abstract = "Show the week at a glance: events per day, in your time zone."
    static let synopsis = [
        "[--week WEEK | --from DATE --to DATE] [--calendar NAME|ID]... [--all-calendars]",
        "[--tz ZONE] [--account NAME] [--user UPN] [--json]",
    ]
    static let discussion = """
        Shows the events of a week (this one unless told otherwise) under one heading per day, such
        as "Monday 30 November 2026". Every day of the range gets its heading; a day without events
        shows "(nothing)". All-day events come first, then the others by start time as HH:MM–HH:MM
        in the mailbox's time zone (or --tz), with the subject, the organizer in brackets and the
        location after '@'. An event crossing midnight is shown on each day it covers, cut at the
        day's edges (22:00–24:00 "(continues)", then 00:00–02:00 "(continued)"); an all-day event
        of several days says which day it is ("(day 2/3)"). Cancelled events are marked
        "[cancelled]".

        With --json, standard output is a JSON array instead, one object per event in start order,
        each with the keys id, subject, start, end, isAllDay, location, organizer (the name),
        isCancelled and calendar (its name, when several calendars are read); start and end are ISO 8601 with the UTC offset of the display zone
        (2026-11-30T09:00:00+01:00); for all-day events they are midnight of the first day and of the
        day after the last one. Absent values are null.
        """
    static let epilogue = """
        Examples:
          graph-ics agenda
          graph-ics agenda --week next --tz America/New_York
          graph-ics agenda --from 2026-12-01 --to 2026-12-08 --json | jq -r '.[].subject'

        Exit status: 0 ok, 1 some events could not be read (the others are shown), 64 usage,
        66 no such calendar, 69 Graph unavailable, 77 not signed in or no permission.
        """

    struct Options: OptionGroup {
        let range = RangeOption.Declarations()
        let calendars = CalendarSet.Declarations()
        let zone = Option.zone(
            help: "Show times (and choose weeks) in this zone (IANA such as Europe/Berlin, or Windows) instead "
                + "of the mailbox's.")
        let json = Flag("--json", help: "Print a JSON array of the events instead of the text view.")
        let connection = ConnectionOptions.Declarations()
    }

    var range: RangeOption
    var calendars: CalendarSet.Request
    var zone: ResolvedZone?
    var json: Bool
    var connection: ConnectionOptions

    init(_ parsed: Parsed<Options>) throws(UsageError) {
        guard parsed.positionals.isEmpty else { throw UsageError("agenda takes no arguments") }
        range = try RangeOption(parsed.group(\.range))
        // A week or dates that cannot be read (or that Graph cannot answer for) are a usage error before
        // anything is asked of Graph.
        _ = try range.resolve(in: .utc)
        calendars = try CalendarSet.Request(parsed.group(\.calendars))
        json = parsed[\.json]
        connection = try ConnectionOptions(parsed.group(\.connection))
        zone = try parsed[\.zone]
    }

    func run(_ terminal: Terminal) throws -> ExitStatus {
        let session = try Session.open(connection, need: .read, terminal: terminal)
        let zone = try session.mailboxZone(override: self.zone, terminal: terminal)
        let days = try range.resolve(in: zone)
        days.warnIfLong(terminal)
        var entries: [AgendaEntry] = []
        var diagnostics: [Diagnostic] = []
        let calendarSet = try CalendarSet.resolve(calendars, session: session)
        try calendarSet.events(session.client, start: days.startDate, end: days.endDate) { document, page, calendar in
            diagnostics += document.diagnostics
            for event in document.events {
                if var entry = AgendaEntry(event) {
                    entry.calendar = calendar
                    entries.append(entry)
                } else {
                    diagnostics.append(
                        Diagnostic(
                            .error, "has no readable start or end; not shown", file: page, eventID: event.id,
                            subject: event.subject))
                }
            }
        }
        entries.sort { $0.sortKey(in: zone) < $1.sortKey(in: zone) }
        ConvertCommand.report(diagnostics, terminal)
        if json {
            terminal.out(try AgendaText.json(entries, zone: zone))
        } else {
            let colour = isatty(1) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
            terminal.out(AgendaText.render(entries, days: days, colour: colour))
        }
        let failed = diagnostics.filter { $0.severity == .error }.count
        return failed > 0 ? .partlyFailed : .ok
    }
}

/// One event as the agenda shows it.
struct AgendaEntry {
    enum Span {
        /// Instants (seconds since 1970 UTC).
        case timed(start: Int64, end: Int64)
        /// Dates, `end` exclusive.
        case allDay(first: CivilDateTime, end: CivilDateTime)
    }

    var id: String?
    var subject: String
    var span: Span
    var isCancelled: Bool
    var organizer: String?
    var location: String?
    /// The name of the calendar the event came from, when several calendars are read.
    var calendar: String?

    /// Reads a Graph event; nil when its start or end cannot be read.
    init?(_ event: GraphEvent) {
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
        location = event.location?.displayName.flatMap { $0.isEmpty ? nil : $0 }
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
}

/// The agenda's text and JSON forms.
enum AgendaText {
    static let weekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    static let months = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
        "November", "December",
    ]

    /// `Monday 30 November 2026`.
    static func heading(_ date: CivilDateTime) -> String {
        "\(weekdays[date.isoWeekday - 1]) \(date.day) \(months[date.month - 1]) \(date.year)"
    }

    /// `09:05`.
    static func time(_ local: CivilDateTime) -> String {
        pad(local.hour) + ":" + pad(local.minute)
    }

    /// `+01:00`, `-03:30`, `+00:00`.
    static func offset(_ seconds: Int) -> String {
        let minutes = abs(seconds) / 60
        return (seconds < 0 ? "-" : "+") + pad(minutes / 60) + ":" + pad(minutes % 60)
    }

    /// `2026-11-30T09:00:00+01:00`: the instant as wall-clock time in `zone` with that zone's offset.
    static func iso8601(_ instant: Int64, in zone: ResolvedZone) -> String {
        zone.localTime(at: instant).description + offset(zone.utcOffset(at: instant))
    }

    private static func pad(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }

    /// Text fit for one terminal line: control characters (line breaks, escape sequences) become spaces.
    static func clean(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { scalar in
                    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) ? " " : scalar
                }))
    }

    /// The text view: a heading per day of `days`, the day's events under it.
    static func render(_ entries: [AgendaEntry], days: DayRange, colour: Bool) -> String {
        let zone = days.zone
        var text = ""
        var day = days.first
        while day < days.end {
            let next = day.adding(days: 1)
            let dayStart = zone.instant(forLocal: day)
            let dayEnd = zone.instant(forLocal: next)
            text += (colour ? "\u{1B}[1m" + heading(day) + "\u{1B}[0m" : heading(day)) + "\n"
            var allDay: [String] = []
            var timed: [String] = []
            for entry in entries {
                guard let (when, note) = segment(entry, day: day, dayStart: dayStart, dayEnd: dayEnd, zone: zone)
                else { continue }
                var line = "  " + when.padding(toLength: 11, withPad: " ", startingAt: 0) + "  "
                if entry.isCancelled { line += "[cancelled] " }
                line += entry.subject.isEmpty ? "(no subject)" : clean(entry.subject)
                if let organizer = entry.organizer { line += " (\(clean(organizer)))" }
                if let location = entry.location { line += " @ " + clean(location) }
                if let note { line += " (\(note))" }
                line = colour && entry.isCancelled ? "\u{1B}[2m" + line + "\u{1B}[0m" : line
                if case .allDay = entry.span { allDay.append(line) } else { timed.append(line) }
            }
            let lines = allDay + timed
            text += lines.isEmpty ? "  (nothing)\n" : lines.joined(separator: "\n") + "\n"
            day = next
        }
        return text
    }

    /// What the agenda shows of `entry` on `day` (`[dayStart, dayEnd)`): the time column and a note for an
    /// event that spans days; nil when the event is not on that day.
    static func segment(
        _ entry: AgendaEntry, day: CivilDateTime, dayStart: Int64, dayEnd: Int64, zone: ResolvedZone
    ) -> (String, String?)? {
        switch entry.span {
        case .allDay(let first, let end):
            guard first <= day, day < end else { return nil }
            let count = Int(end.daysSinceEpoch - first.daysSinceEpoch)
            let index = Int(day.daysSinceEpoch - first.daysSinceEpoch) + 1
            return ("all day", count > 1 ? "day \(index)/\(count)" : nil)
        case .timed(let start, let end):
            let overlaps = start == end ? (dayStart <= start && start < dayEnd) : (start < dayEnd && end > dayStart)
            guard overlaps else { return nil }
            let from = start >= dayStart ? time(zone.localTime(at: start)) : "00:00"
            let to = end <= dayEnd ? time(zone.localTime(at: end)) : "24:00"
            let note: String?
            switch (start < dayStart, end > dayEnd) {
            case (false, false): note = nil
            case (false, true): note = "continues"
            case (true, false): note = "continued"
            case (true, true): note = "continued, continues"
            }
            return (from + "–" + to, note)
        }
    }

    /// The JSON view: an array of objects with fixed keys, sorted keys, `null` for absent values.
    static func json(_ entries: [AgendaEntry], zone: ResolvedZone) throws -> String {
        let objects: [[String: Any]] = entries.map { entry in
            let (start, end): (Int64, Int64)
            let isAllDay: Bool
            switch entry.span {
            case .timed(let from, let to):
                (start, end, isAllDay) = (from, to, false)
            case .allDay(let first, let last):
                (start, end, isAllDay) = (zone.instant(forLocal: first), zone.instant(forLocal: last), true)
            }
            var object: [String: Any] = [
                "id": entry.id ?? NSNull(),
                "subject": entry.subject,
                "start": iso8601(start, in: zone),
                "end": iso8601(end, in: zone),
                "isAllDay": isAllDay,
                "isCancelled": entry.isCancelled,
                "location": entry.location ?? NSNull(),
                "organizer": entry.organizer ?? NSNull(),
            ]
            object["calendar"] = entry.calendar
            return object
        }
        let data = try JSONSerialization.data(
            withJSONObject: objects, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
