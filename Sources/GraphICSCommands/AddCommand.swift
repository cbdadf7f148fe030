import Foundation
import GraphICS
import ICalBridge

/// `graph-ics add`: creates one event, inviting the attendees given.
struct AddCommand: Command {
    static let name = "add"
    static let abstract = "Create one event (attendees given are invited)."
    static let synopsis = [
        "--subject S --start T (--end T | --duration D) [--attendees 'a@x;b@y']",
        "[--body TEXT] [--location L] [--all-day] [--tz IANA] [--calendar NAME|ID]",
        "[--user UPN]",
    ]
    static let discussion = """
        Creates one event and prints its id (and its Outlook web link, when Graph gives one) on
        standard output.

        Times are a day and a time ('tomorrow 10:00', 'mon 9:30', '+2d 14:00', '2026-12-01 09:30',
        'fri 2:30pm'), a time alone (today; for --end, the start's day), or ISO 8601 with an offset
        (2026-12-01T09:00+01:00, 2026-12-01T08:00Z). Days are today, tomorrow, yesterday, mon … sun
        (the next one, today included), +3d or -1w, or YYYY-MM-DD; a relative --end counts from the
        start's day. --duration gives the length instead of --end: 30m, 1h, 1h30m, 2d or minutes
        alone (90). Wall-clock times are in --tz or else the mailbox's time zone. A time that does
        not exist there (clocks go forward) is moved forward by the gap, a time that occurs twice
        (clocks go back) is taken at its first occurrence; graph-ics warns in both cases. A start
        moved forward keeps the length asked for: the end moves with it (a note says so), so the
        event never shrinks to nothing.

        With --all-day, --start and --end are days and --end is exclusive, the day after the last
        one: a one-day event on 1 December is --start 2026-12-01 --end 2026-12-02 (or --end +1d, or
        --duration 1d).

        Attendees are invited: Microsoft Graph mails each of them an invitation as soon as the event
        is created (graph-ics says so on standard error before it sends). Leave --attendees out for
        an event only in your own calendar. The event goes to Graph with the Windows name of the
        zone, as 'graph-ics import' sends it, and with a transactionId, so a retried request never
        makes it twice.
        """
    static let epilogue = """
        Examples:
          graph-ics add --subject 'Dentist' --start '2026-12-01 09:30' --end '2026-12-01 10:15'
          graph-ics add --subject 'Call Bo' --start 'tomorrow 10:00' --duration 30m
          graph-ics add --subject 'Stand-up' --start 'mon 9:30' --end 9:45
          graph-ics add --subject 'Holiday' --all-day --start 2026-12-24 --end 2026-12-27
          id=$(graph-ics add --subject Review --start 2026-12-02T14:00 --end 2026-12-02T15:00 \\
                 --attendees 'ann@contoso.com;Bo Li <bo@contoso.com>' | head -n 1)

        Exit status: 0 created, 64 usage (including an end before the start), 65 Graph refused the
        event, 66 no such calendar, 69 Graph unavailable, 75 temporary failure (the event may or may
        not exist: look before adding it again), 77 not signed in or no permission.
        """

    struct Options: OptionGroup {
        let subject = Option("--subject", value: "S", help: "The title.")
        let start = Option(
            "--start", value: "T",
            help:
                "Start: 'tomorrow 10:00', 'mon 9:30', '2026-12-01 09:30', 2026-12-01T09:00+01:00; a day with --all-day."
        )
        let end = Option(
            "--end", value: "T",
            help: "End, as --start takes it (a time alone is on the start's day); with --all-day the day after the "
                + "last day.")
        let duration = Option(
            "--duration", value: "D", help: "Length instead of --end: 30m, 1h, 1h30m, 2d, or minutes alone (90).")
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
    var times: TypedSpan
    var allDay: Bool
    var attendees: [EventDraft.Attendee]
    var body: String?
    var location: String?
    var zone: ResolvedZone?
    var calendar: String?
    var connection: ConnectionOptions

    init(_ parsed: Parsed<Options>) throws(UsageError) {
        guard parsed.positionals.isEmpty else {
            throw UsageError("add takes options only; put the subject in --subject")
        }
        connection = try ConnectionOptions(parsed.group(\.connection))
        allDay = parsed[\.allDay]
        guard let subject = try parsed[\.subject], !subject.trimmingCharacters(in: .whitespaces).isEmpty
        else { throw UsageError("--subject is required") }
        self.subject = subject
        zone = try parsed[\.zone]
        times = try TypedSpan(
            start: parsed[\.start], end: parsed[\.end], duration: parsed[\.duration], allDay: allDay)
        // Every form is checked now, before anything is sent; the zone only moves days, never validity.
        _ = try times.when(TypedTime(zone: zone ?? .utc), terminal: nil)
        let attendeeList = try parsed[\.attendees] ?? ""
        do throws(AttendeeListError) {
            attendees = try EventDraft.attendees(attendeeList)
        } catch {
            throw UsageError("--attendees: \(error.description) (separate addresses with ';')")
        }
        body = try parsed[\.body]
        location = try parsed[\.location].flatMap { $0.isEmpty ? nil : $0 }
        calendar = try parsed[\.calendar]
    }

    func run(_ terminal: Terminal) throws -> ExitStatus {
        let session = try Session.open(connection, need: .write, terminal: terminal)
        let zone = try session.mailboxZone(override: self.zone, terminal: terminal)
        let when = try times.when(TypedTime(zone: zone), terminal: terminal)
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
        terminal.note("created '\(subject)', \(Self.summary(when, zone: zone, clock: EventWhen(session.config)))")
        return .ok
    }

    /// `Tuesday 1 December 2026 09:30–10:15 (Europe/Berlin)` (``EventWhen``) or `all day on …`.
    static func summary(_ when: EventDraft.When, zone: ResolvedZone, clock: EventWhen) -> String {
        switch when {
        case .timed(let start, let end):
            return clock.span(start, end, in: zone) + " (\(zone.name))"
        case .allDay(let first, let end):
            let last = end.adding(days: -1)
            if last == first { return "all day on " + clock.day(first) }
            return "all day from " + clock.day(first) + " to " + clock.day(last)
        }
    }
}
