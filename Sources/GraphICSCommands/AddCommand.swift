import Foundation
import GraphICS
import ICalBridge

/// `graph-ics add`: creates one event, inviting the attendees given.
struct AddCommand: Command {
    static let name = "add"
    static let abstract = "Create one event (attendees given are invited)."
    static let synopsis = [
        "--subject S --start T --end T [--attendees 'a@x;b@y'] [--body TEXT]",
        "[--location L] [--all-day] [--tz IANA] [--calendar NAME|ID] [--user UPN]",
    ]
    static let discussion = """
        Creates one event and prints its id (and its Outlook web link, when Graph gives one) on
        standard output.

        Times are YYYY-MM-DDTHH:MM (or 'YYYY-MM-DD HH:MM'), wall-clock time in --tz or else the
        mailbox's time zone. A time that does not exist there (clocks go forward) is moved forward
        by the gap, a time that occurs twice (clocks go back) is taken at its first occurrence;
        graph-ics warns in both cases. A start moved forward keeps the length asked for: the end
        moves with it (a note says so), so the event never shrinks to nothing.

        With --all-day, --start and --end are dates (YYYY-MM-DD) and --end is exclusive, the day
        after the last one: a one-day event on 1 December is --start 2026-12-01 --end 2026-12-02.

        Attendees are invited: Microsoft Graph mails each of them an invitation as soon as the event
        is created (graph-ics says so on standard error before it sends). Leave --attendees out for
        an event only in your own calendar. The event goes to Graph with the Windows name of the
        zone, as 'graph-ics import' sends it, and with a transactionId, so a retried request never
        makes it twice.
        """
    static let epilogue = """
        Examples:
          graph-ics add --subject 'Dentist' --start '2026-12-01 09:30' --end '2026-12-01 10:15'
          graph-ics add --subject 'Holiday' --all-day --start 2026-12-24 --end 2026-12-27
          id=$(graph-ics add --subject Review --start 2026-12-02T14:00 --end 2026-12-02T15:00 \\
                 --attendees 'ann@contoso.com;Bo Li <bo@contoso.com>' | head -n 1)

        Exit status: 0 created, 64 usage (including an end before the start), 65 Graph refused the
        event, 66 no such calendar, 69 Graph unavailable, 75 temporary failure (the event may or may
        not exist: look before adding it again), 77 not signed in or no permission.
        """

    struct Options: OptionGroup {
        let subject = Option("--subject", value: "S", help: "The title.")
        let start = Option("--start", value: "T", help: "Start: YYYY-MM-DDTHH:MM, or YYYY-MM-DD with --all-day.")
        let end = Option(
            "--end", value: "T", help: "End: YYYY-MM-DDTHH:MM, or with --all-day the day after the last day.")
        let allDay = Flag("--all-day", help: "An all-day event.")
        let attendees = Option(
            "--attendees", value: "LIST",
            help: "Addresses separated by ';' or ',', each 'name@example.com' or 'Ann Lee <ann@example.com>'. "
                + "They are sent invitations.")
        let body = Option("--body", value: "TEXT", help: "The description (plain text).")
        let location = Option("--location", value: "L", help: "Where.")
        let zone = Option.zone(
            help: "Read the times in this zone (IANA such as Europe/Berlin, or Windows) instead of the mailbox's.")
        let calendar = Option.calendar(
            help: "Add to this calendar (see 'graph-ics calendars'); default calendar otherwise.")
        let connection = ConnectionOptions.Declarations()
    }

    var subject: String
    var startText: String
    var endText: String
    var allDay: Bool
    var attendees: [EventDraft.Attendee]
    var body: String?
    var location: String?
    var zone: ResolvedZone?
    var calendar: String?
    var connection: ConnectionOptions
    /// The times as typed, already checked: dates for all-day events, wall-clock times otherwise.
    var start: CivilDateTime
    var end: CivilDateTime

    init(_ parsed: Parsed<Options>) throws(UsageError) {
        guard parsed.positionals.isEmpty else {
            throw UsageError("add takes options only; put the subject in --subject")
        }
        connection = try ConnectionOptions(parsed.group(\.connection))
        allDay = parsed[\.allDay]
        guard let subject = try parsed[\.subject], !subject.trimmingCharacters(in: .whitespaces).isEmpty
        else { throw UsageError("--subject is required") }
        self.subject = subject
        guard let startText = try parsed[\.start] else { throw UsageError("--start is required") }
        guard let endText = try parsed[\.end] else {
            throw UsageError(
                allDay
                    ? "--end is required (the day after the last one: --start 2026-12-01 --end 2026-12-02 is one day)"
                    : "--end is required")
        }
        self.startText = startText
        self.endText = endText
        if allDay {
            guard let start = EventDraft.date(startText) else {
                throw UsageError("--start '\(startText)' is not a date (YYYY-MM-DD; --all-day takes dates)")
            }
            guard let end = EventDraft.date(endText) else {
                throw UsageError("--end '\(endText)' is not a date (YYYY-MM-DD; --all-day takes dates)")
            }
            guard start < end else {
                throw UsageError(
                    "--end \(endText) must come after --start \(startText): with --all-day --end is the day after "
                        + "the last one (--end \(start.adding(days: 1).dateString) for one day)")
            }
            self.start = start
            self.end = end
        } else {
            guard let start = EventDraft.localTime(startText) else {
                throw UsageError(Self.notATime("--start", startText))
            }
            guard let end = EventDraft.localTime(endText) else { throw UsageError(Self.notATime("--end", endText)) }
            guard !(end < start) else {
                throw UsageError("--end \(endText) is before --start \(startText)")
            }
            self.start = start
            self.end = end
        }
        let attendeeList = try parsed[\.attendees] ?? ""
        do throws(AttendeeListError) {
            attendees = try EventDraft.attendees(attendeeList)
        } catch {
            throw UsageError("--attendees: \(error.description) (separate addresses with ';')")
        }
        body = try parsed[\.body]
        location = try parsed[\.location].flatMap { $0.isEmpty ? nil : $0 }
        calendar = try parsed[\.calendar]
        zone = try parsed[\.zone]
    }

    static func notATime(_ option: String, _ text: String) -> String {
        if EventDraft.date(text) != nil {
            return "\(option) '\(text)' is a date without a time: give YYYY-MM-DDTHH:MM, or add --all-day"
        }
        return "\(option) '\(text)' is not a date and time (YYYY-MM-DDTHH:MM or 'YYYY-MM-DD HH:MM')"
    }

    func run(_ terminal: Terminal) throws -> ExitStatus {
        let session = try Session.open(connection, need: .write, terminal: terminal)
        let zone = try session.mailboxZone(override: self.zone, terminal: terminal)
        let when: EventDraft.When
        if allDay {
            when = .allDay(first: start, end: end)
        } else {
            let startPlacement = EventDraft.place(start, in: zone)
            let startInstant = Self.instant(startPlacement, typed: startText, option: "--start", in: zone, terminal)
            var endInstant = Self.instant(
                EventDraft.place(end, in: zone), typed: endText, option: "--end", in: zone, terminal)
            if case .skipped = startPlacement {
                endInstant = Self.keepingLength(
                    start: startInstant, end: endInstant, asked: (start, end), zone, terminal)
            }
            guard startInstant <= endInstant else {
                throw UsageError(
                    "--end \(endText) is before --start \(startText) in \(zone.name) (clocks change in between)")
            }
            when = .timed(start: startInstant, end: endInstant)
        }
        let draft = EventDraft(
            subject: subject, when: when, zone: zone, attendees: attendees, body: body, location: location)
        let calendarID = try CalendarChoice.id(for: session.calendar(calendar), in: session.client)
        if !attendees.isEmpty {
            let names = attendees.map(\.description).joined(separator: ", ")
            terminal.note("Graph will send invitations to \(names)")
        }
        let payload = try draft.payload(transactionID: "graph-ics-add-" + UUID().uuidString.lowercased())
        let created = try session.client.createEvent(payload, calendarID: calendarID)
        var output = created.id + "\n"
        let answer = (try? JSONSerialization.jsonObject(with: created.raw)) as? [String: Any]
        if let link = answer?["webLink"] as? String, !link.isEmpty { output += link + "\n" }
        terminal.out(output)
        terminal.note("created '\(subject)', \(Self.summary(when, zone: zone))")
        return .ok
    }

    /// The end of an event whose start fell in a gap and was moved forward: the start plus the length the
    /// typed times ask for (`--start 02:30 --end 03:30` is an hour, not the nothing between 03:30 and 03:30),
    /// with a note when that moves the end.
    static func keepingLength(
        start: Int64, end: Int64, asked: (start: CivilDateTime, end: CivilDateTime), _ zone: ResolvedZone,
        _ terminal: Terminal
    ) -> Int64 {
        let length = asked.end.secondsSinceEpoch - asked.start.secondsSinceEpoch
        let kept = start + length
        guard kept != end else { return end }
        terminal.note(
            "the start moved forward, so the end moves too and the event keeps the \(duration(length)) asked for: "
                + "ends \(AgendaText.time(zone.localTime(at: kept))) \(AgendaText.offset(zone.utcOffset(at: kept)))")
        return kept
    }

    /// `1 h`, `1 h 30 min`, `45 min`.
    static func duration(_ seconds: Int64) -> String {
        let minutes = seconds / 60
        switch (minutes / 60, minutes % 60) {
        case (0, let rest): return "\(rest) min"
        case (let hours, 0): return "\(hours) h"
        case (let hours, let rest): return "\(hours) h \(rest) min"
        }
    }

    /// The instant of a typed wall-clock time, with a warning when it falls in a gap or a fold.
    static func instant(
        _ placement: EventDraft.Placement, typed: String, option: String, in zone: ResolvedZone, _ terminal: Terminal
    ) -> Int64 {
        switch placement {
        case .exact(let instant):
            return instant
        case .skipped(let instant):
            let moved = zone.localTime(at: instant)
            terminal.warning(
                "\(option) \(typed) does not exist in \(zone.name) (the clocks go forward then); using "
                    + "\(AgendaText.time(moved)) \(AgendaText.offset(zone.utcOffset(at: instant)))")
            return instant
        case .repeated(let first, let second):
            terminal.warning(
                "\(option) \(typed) occurs twice in \(zone.name) (the clocks go back then); using the first, "
                    + "\(AgendaText.offset(zone.utcOffset(at: first))) (not \(AgendaText.offset(zone.utcOffset(at: second)))"
                    + ")")
            return first
        }
    }

    /// `Tuesday 1 December 2026 09:30–10:15 (Europe/Berlin)` or `all day, 24–26 December 2026`.
    static func summary(_ when: EventDraft.When, zone: ResolvedZone) -> String {
        switch when {
        case .timed(let start, let end):
            let from = zone.localTime(at: start)
            let to = zone.localTime(at: end)
            var text = AgendaText.heading(from.date) + " " + AgendaText.time(from) + "–"
            if to.date != from.date { text += AgendaText.heading(to.date) + " " }
            return text + AgendaText.time(to) + " (\(zone.name))"
        case .allDay(let first, let end):
            let last = end.adding(days: -1)
            if last == first { return "all day on " + AgendaText.heading(first) }
            return "all day from " + AgendaText.heading(first) + " to " + AgendaText.heading(last)
        }
    }
}
