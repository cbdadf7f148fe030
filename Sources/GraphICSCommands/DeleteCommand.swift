import Foundation
import GraphICS
import ICalBridge

/// `graph-ics delete`: removes events by id, or those whose subject holds a text in a range of days.
struct DeleteCommand: Command {
    static let name = "delete"
    static let abstract = "Delete events by id, or by a text in their subject (asks first)."
    static let synopsis = [
        "EVENT... [--as-meeting --yes] [--tz ZONE] [--user UPN]",
        "--search TEXT [--from DATE --to DATE | --days N | --week WEEK] [--yes]",
    ]
    static let discussion = """
        Deletes each EVENT, an event id as 'graph-ics add', 'agenda --json' or 'import --json' print
        it. An occurrence's id deletes that occurrence; a series' id deletes the whole series.

        With --search, the events of the range (this week unless --week, --from/--to or --days says
        otherwise) whose subject contains TEXT (ignoring case) are listed on standard error; on a
        terminal graph-ics asks before deleting them, elsewhere it deletes them only with --yes.

        Graph mails nobody when you delete an event of your own without attendees, or a meeting you
        were invited to (you are an attendee: it leaves your calendar and the organizer is not
        told; 'graph-ics respond EVENT decline' tells them). Deleting a meeting you organise makes
        Graph mail every attendee a cancellation: graph-ics refuses that, and says so, unless you
        give --as-meeting --yes.
        """
    static let epilogue = """
        Examples:
          graph-ics delete AAMkAGI2TG93AAA=
          graph-ics delete --search 'Dentist' --from today --to +30d
          graph-ics delete --search 'Sprint review' --week next --as-meeting --yes

        Exit status: 0 every event deleted (or the answer was no), 1 some were not (each is named),
        64 usage (--search off a terminal without --yes too), 66 no such event (every id unknown) or
        nothing matched --search, 69 Graph unavailable, 77 not signed in or no permission.
        """
    static let operands: ValueCompletion? = .anything

    struct Options: OptionGroup {
        let search = Option("--search", value: "TEXT", help: "Delete the events of the range whose subject has TEXT.")
            .refusingEmpty("--search needs a text to look for in subjects")
        let range = RangeOption.Declarations()
        let calendar = Option.calendar(
            help: "With --search, look in this calendar (see 'graph-ics calendars'); default calendar otherwise.")
        let asMeeting = Flag(
            "--as-meeting", help: "Delete meetings you organise too (with --yes): Graph mails their attendees.")
        let yes = Flag(
            "-y", "--yes", help: "Do not ask: delete what --search found, and with --as-meeting, meetings.")
        let zone = Option.zone(help: "Show times in this zone instead of the mailbox's (and choose days for --search).")
        let connection = ConnectionOptions.Declarations()
    }

    enum Target: Equatable {
        case ids([String])
        case search(String, RangeOption, calendar: String?)
    }

    var target: Target
    var asMeeting: Bool
    var yes: Bool
    var zone: ResolvedZone?
    var connection: ConnectionOptions

    init(_ parsed: Parsed<Options>) throws(UsageError) {
        connection = try ConnectionOptions(parsed.group(\.connection))
        asMeeting = parsed[\.asMeeting]
        yes = parsed[\.yes]
        zone = try parsed[\.zone]
        let range = try RangeOption(parsed.group(\.range))
        let calendar = try parsed[\.calendar]
        if let text = try parsed[\.search] {
            guard parsed.positionals.isEmpty else { throw UsageError("give event ids or --search, not both") }
            try range.checkEarly()
            target = .search(text, range, calendar: calendar)
        } else {
            guard !parsed.positionals.isEmpty else {
                throw UsageError("name the events to delete (their ids), or give --search TEXT")
            }
            guard range == .week("this"), calendar == nil else {
                throw UsageError("--week, --month, --from, --to, --days and --calendar go with --search")
            }
            target = .ids(parsed.positionals)
        }
    }

    func run(_ terminal: Terminal) throws -> ExitStatus {
        let session = try Session.open(connection, need: .write, terminal: terminal)
        let zone = try session.mailboxZone(override: self.zone, terminal: terminal)
        let ids: [String]
        switch target {
        case .ids(let list):
            ids = list
        case .search(let text, let range, let calendar):
            guard let found = try Self.search(text, range, calendar, session, zone, terminal) else {
                return .inputMissing
            }
            if let stop = stop(before: found.count, terminal) { return stop }
            ids = found.compactMap(\.id)
        }
        var tally = ActionTally()
        let clock = EventWhen(session.config)
        for id in ids { tally.add(try delete(id, session.client, zone, clock, terminal)) }
        return tally.status
    }

    /// Deletes one event, unless it is a meeting whose attendees Graph would mail and `--as-meeting --yes`
    /// was not given.
    func delete(
        _ id: String, _ client: GraphClient, _ zone: ResolvedZone, _ clock: EventWhen, _ terminal: Terminal
    ) throws
        -> ActionTally.Outcome
    {
        let event: EventStanding
        do {
            event = try client.standing(ofEvent: id)
        } catch  where EventActions.isUnknown(error) {
            terminal.error("no event \(id) in this mailbox (Graph answered 404); nothing deleted")
            return .unknown
        }
        let label = EventActions.label(event, zone: zone, clock: clock)
        if MailingRule.mails(.delete, event) {
            guard asMeeting && yes else {
                terminal.error(
                    EventActions.meetingRefusal(
                        event, doing: "deleting it", mail: "a cancellation", zone: zone, clock: clock))
                return .failed
            }
            terminal.note("Graph will mail a cancellation of \(label) to \(EventActions.addresses(event.attendees))")
        } else if event.isOrganizer == false {
            terminal.note(
                "you are an attendee of \(label): deleting it removes it from your calendar only; Graph does not "
                    + "tell the organizer\(event.organizer.map { " (\($0))" } ?? "") ('graph-ics respond \(id) "
                    + "decline' would)")
        }
        do {
            try client.deleteEvent(id: id)
        } catch let error as GraphError where error.kind == .notFound || error.kind == .badRequest {
            terminal.error("\(label) was not deleted: \(error.description)")
            return error.kind == .notFound ? .unknown : .failed
        }
        let series = event.type == "seriesMaster" ? ", with every occurrence of the series" : ""
        terminal.note("deleted \(label)\(series)")
        terminal.out(id + "\n")
        return .done
    }

    /// The events of the range whose subject holds `text`, listed on stderr; nil (after saying so) when none.
    static func search(
        _ text: String, _ range: RangeOption, _ calendar: String?, _ session: Session, _ zone: ResolvedZone,
        _ terminal: Terminal
    ) throws -> [AgendaEntry]? {
        let days = try range.resolve(in: zone)
        let calendarID = try CalendarChoice.id(for: calendar, in: session.client)
        var found: [AgendaEntry] = []
        try session.client.calendarView(calendarID: calendarID, start: days.startDate, end: days.endDate) { data in
            let document = try GraphEventDocument.decode(data, file: "calendarView")
            for event in document.events where (event.subject ?? "").localizedCaseInsensitiveContains(text) {
                if let entry = AgendaEntry(event), entry.id != nil { found.append(entry) }
            }
        }
        found.sort { $0.sortKey(in: zone) < $1.sortKey(in: zone) }
        guard !found.isEmpty else {
            terminal.error("no event from \(days.description) has '\(text)' in its subject; nothing deleted")
            return nil
        }
        terminal.note("\(found.count) event\(found.count == 1 ? "" : "s") from \(days.description) match '\(text)':")
        let clock = EventWhen(session.config)
        for entry in found { terminal.err("  " + Self.line(entry, zone: zone, clock: clock)) }
        return found
    }

    /// `Tuesday 1 December 2026 09:30  Dentist  (AAMk…)`.
    static func line(_ entry: AgendaEntry, zone: ResolvedZone, clock: EventWhen) -> String {
        let when: String
        switch entry.span {
        case .timed(let start, _): when = clock.moment(start, in: zone)
        case .allDay(let first, _): when = clock.day(first) + ", all day"
        }
        return "\(when)  \(entry.subject)  (\(entry.id ?? ""))"
    }

    /// Nil to go ahead with `count` deletions (`--yes`, or `y` on a terminal); else the exit status: 64
    /// when there is no terminal to ask on and no `--yes`, 0 when the answer was no.
    func stop(before count: Int, _ terminal: Terminal) -> ExitStatus? {
        let what = count == 1 ? "this event" : "these \(count) events"
        return terminal.confirm(
            "Delete \(what)? [y/N] ", yes: yes,
            refusal: "not deleting \(what) without --yes (standard input is not a terminal to ask on)",
            declined: "nothing deleted")
    }
}

/// The outcomes of `delete` or `edit` over several events, as one exit status: 0 when every event went
/// through, 66 when none did because every id was unknown, 1 otherwise.
struct ActionTally {
    enum Outcome { case done, unknown, failed }

    var done = 0
    var unknown = 0
    var failed = 0

    mutating func add(_ outcome: Outcome) {
        switch outcome {
        case .done: done += 1
        case .unknown: unknown += 1
        case .failed: failed += 1
        }
    }

    var status: ExitStatus {
        if unknown == 0 && failed == 0 { return .ok }
        if done == 0 && failed == 0 { return .inputMissing }
        return .partlyFailed
    }
}
