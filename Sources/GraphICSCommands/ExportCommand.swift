import Foundation
import GraphICS
import ICalBridge

/// `graph-ics export`: a week (or any range of days) of a calendar as one `.ics` file or on stdout.
struct ExportCommand: Command {
    static let name = "export"
    static let abstract = "Export a week (or any days) of a calendar to .ics."
    static let synopsis = [
        "[--week WEEK | --month MONTH | --from DATE --to DATE] [--calendar NAME|ID]... [--all-calendars]",
        "[--account NAME] [--user UPN]",
        "[--recurrence instances|series] [--detail full|limited|busy] [--show-private]",
        "[--exclude-declined] [--exclude-cancelled] [--category C]...",
        "[--tz ZONE] [-o FILE|-] [--yes] [--verbose]",
    ]
    static let discussion = """
        Reads the events of a week (this one unless told otherwise) from Microsoft Graph and writes
        them as one iCalendar file: every event with its time zone (a VTIMEZONE for each zone used),
        attendees, body, location, reminder and status. Graph's pages are converted as they arrive,
        so memory stays small however many events there are.

        With several calendars (--calendar repeated, or --all-calendars) the file holds them all,
        each event with an X-GRAPH-ICS-CALENDAR property naming its calendar; an event two of them
        hold (a meeting in a shared calendar) is written once.

        --detail limited writes times, subject, location and show-as only; --detail busy only times
        and show-as, each event titled Busy, Tentative, Out of office or Working elsewhere (free
        time left out), for sharing free/busy. At those levels private and confidential events are
        busy blocks unless --show-private. --exclude-declined, --exclude-cancelled and --category
        leave events out at any level.

        The output is complete or absent: a file named with -o is written under a temporary name and
        renamed when everything is in; on any failure (sign-in, Graph unavailable, disk full) no
        partial file is left and an existing file of that name is untouched. Standard output gets
        the calendar only when every page has been read. Progress (pages, events) is shown on
        standard error when it is a terminal, and with --verbose also when it is not. A range of
        more than about ten years (120 calendarView requests of 31 days) gets a warning before
        anything is fetched, and is exported only with --yes or after 'y' on a terminal (elsewhere
        exit 64); days before 1601-01-02 or after 9999-12-30 are refused (Graph cannot answer for
        them).
        """
    static let epilogue = """
        Examples:
          graph-ics export -o this-week.ics
          graph-ics export --week 2026-W49 --recurrence series -o week49.ics
          graph-ics export --week next --detail busy --exclude-declined -o free-busy.ics
          graph-ics export --from 2026-12-01 --to 2027-01-01 --calendar Holidays -o december.ics
          graph-ics export --week next -o - | khal import --batch -

        Exit status: 0 ok, 1 some events could not be converted (the others are in the output),
        64 usage (a range of more than ten years off a terminal without --yes too), 65 Graph's answer was unusable, 66 no such calendar, 69 Graph unavailable,
        73 cannot create the output file, 74 I/O error, 75 temporary failure, 77 not signed in or
        no permission.
        """

    struct Options: OptionGroup {
        let range = RangeOption.Declarations()
        let calendars = CalendarSet.Declarations()
        let recurrence = Option<GraphToICS.RecurrenceStyle>(
            "--recurrence", value: "HOW",
            help: "instances: every occurrence of a series is an event of its own, with a UID of its own (the "
                + "series' UID, '-', and the occurrence's original start in UTC, e.g. …-20261202T080000Z).\n"
                + "series: each series once, as its master with RRULE; changed occurrences as RECURRENCE-ID "
                + "overrides, deleted ones as EXDATE."
        ).defaulting(to: .instances)
        let selection = SelectionOptions.Declarations(defaults: .export)
        let zone = Option.zone(
            help: "Choose weeks and days in this zone (IANA such as Europe/Berlin, or Windows) instead of the "
                + "mailbox's; events whose own zone Graph does not know are shown in it.")
        let output = Option.output
        let yes = Flag(
            "-y", "--yes",
            help: "Export a range of more than 120 calendarView requests (about ten years) without asking.")
        let connection = ConnectionOptions.Declarations()
    }

    var range: RangeOption
    var calendars: CalendarSet.Request
    var recurrence: GraphToICS.RecurrenceStyle
    var selection: EventSelection
    var zone: ResolvedZone?
    var output: String?
    var yes = false
    var connection: ConnectionOptions

    init(_ parsed: Parsed<Options>) throws(UsageError) {
        guard parsed.positionals.isEmpty else {
            throw UsageError("export takes no arguments (did you mean -o \(parsed.positionals[0])?)")
        }
        range = try RangeOption(parsed.group(\.range))
        // A week or dates that cannot be read are a usage error before anything is asked of Graph.
        try range.checkEarly()
        calendars = try CalendarSet.Request(parsed.group(\.calendars))
        recurrence = try parsed[\.recurrence]
        if recurrence == .series && (calendars.all || calendars.names.count > 1) {
            throw UsageError("--recurrence series exports one calendar; give one --calendar")
        }
        selection = try SelectionOptions(parsed.group(\.selection), defaults: .export).selection
        zone = try parsed[\.zone]
        output = try parsed[\.output]
        yes = parsed[\.yes]
        connection = try ConnectionOptions(parsed.group(\.connection))
    }

    func run(_ terminal: Terminal) throws -> ExitStatus {
        // The output first: a folder that does not exist fails before anything is fetched.
        let sink = try OutputFile(path: output)
        defer { sink.discard() }
        let session = try Session.open(connection, need: .read, terminal: terminal)
        let zone = try session.mailboxZone(override: self.zone, terminal: terminal)
        let days = try range.resolve(in: zone)
        if let stop = days.confirmIfLong(terminal, yes: yes) { return stop }
        let calendarSet = try CalendarSet.resolve(calendars, session: session)
        let calendarID = calendarSet.members.first?.id
        let options = ExportOptions(
            fallbackZone: zone, file: "calendarView",
            calendarName: calendarSet.isSeveral ? nil : CalendarChoice.name(of: calendarID, in: session.client),
            selection: selection)
        var request = CalendarExporter.Request(
            calendarID: calendarID, start: days.startDate, end: days.endDate, recurrence: recurrence,
            options: options)
        if calendarSet.isSeveral {
            request.calendars = calendarSet.members.compactMap { member in
                member.id.map { CalendarExporter.Request.Source(id: $0, name: member.name ?? $0) }
            }
        }
        let progress = ProgressLine(terminal: terminal, lines: connection.verbose)
        let summary: GraphToICS.Summary
        do {
            var writer = sink
            summary = try CalendarExporter(client: session.client).export(request, into: &writer) {
                progress.show($0)
            }
            progress.end()
            if summary.wroteCalendar { try sink.commit() }
        } catch let error as ICalBridgeError {
            progress.end()
            throw CommandFailure(ExitStatus(for: error), error.description)
        } catch {
            progress.end()
            throw error
        }
        terminal.report(summary.diagnostics)
        let failed = summary.diagnostics.filter { $0.severity == .error }.count
        if !summary.wroteCalendar {
            terminal.note("no event of \(days.description) could be converted; nothing written to \(sink.displayName)")
        } else if connection.verbose || failed > 0 {
            var line = "\(summary.written) events of \(days.description) exported to \(sink.displayName)"
            if failed > 0 { line += "; \(failed) could not be converted" }
            terminal.note(line)
        }
        if failed > 0 { return summary.written == 0 ? .badInput : .partlyFailed }
        return .ok
    }
}

extension CalendarChoice {
    /// The name of calendar `id` (the default calendar when nil), for the file's NAME and X-WR-CALNAME.
    /// Only a label: when the calendars cannot be listed the file goes without it, and the export on.
    static func name(of id: String?, in client: GraphClient) -> String? {
        guard let calendars = try? client.calendars() else { return nil }
        let calendar = calendars.first { candidate in
            id.map { candidate.id == $0 } ?? (candidate.isDefaultCalendar == true)
        }
        return calendar?.name
    }
}
