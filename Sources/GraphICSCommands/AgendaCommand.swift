import Foundation
import GraphICS
import ICalBridge

/// `graph-ics agenda`: the events of a week (or any range of days) at a glance, one heading per day; or the
/// same events as JSON, TSV, a line per event from a template, or an HTML page of the week.
struct AgendaCommand: Command {
    static let name = "agenda"
    static let abstract = "Show the week at a glance: events per day, in your time zone."
    static let synopsis = [
        "[--week WEEK | --month MONTH | --from DATE --to DATE] [--calendar NAME|ID]... [--all-calendars]",
        "[--tz ZONE] [--hide-empty] [--width N] [--json | --tsv | --format text|tsv|json|TEMPLATE | --html]",
        "[-o FILE] [--account NAME] [--user UPN]",
    ]
    static let discussion = """
        Shows the events of a week (this one unless told otherwise) under one heading per day, such
        as "Monday 30 November 2026"; today's says "(today)". Every day of the range gets its
        heading (--hide-empty leaves out days without events); a day without events shows
        "(nothing)". All-day events come first, then the others by start time as HH:MM–HH:MM in the
        mailbox's time zone (or --tz, named on the first line), with the subject, the organizer in
        brackets when it is someone else, and the location after '@'. An event crossing midnight is
        shown on each day it covers, cut at the day's edges (22:00–24:00 "(continues)", then
        00:00–02:00 "(continued)"); an all-day event of several days says which day it is
        ("(day 2/3)"). Cancelled events are marked "[cancelled]". On a terminal each line is cut to
        its width with "…" (--width N, else COLUMNS, else the terminal's size); with colour (not
        when NO_COLOR is set) headings are bold, cancelled events dim and each event in the colour of
        its calendar, else of its first category.

        For scripts, each event once in start order: --tsv prints a header line and one
        tab-separated line per event (start_date, start_time, end_date, end_time, subject, location,
        organizer, calendar, show_as, response, id; an all-day event has no times and its end date
        is the day after); --format text, tsv or json chooses a form as agenda.format in the config
        file does (--format text shows the text view whatever the file says); any other --format
        prints the template per event, with {start}, {end}, {subject}, {location}, {organizer},
        {calendar}, {categories}, {showAs}, {response}, {joinUrl}, {id}, {allDay} and strftime
        forms such as {start:%H:%M} or {end:%a %d %b} ({{ and }} for braces).

        With --json, standard output is a JSON array, one object per event in start order, each with
        the keys id, subject, start, end, isAllDay, location, organizer (the name), isCancelled,
        showAs, responseStatus, categories, calendar and joinUrl; start and end are ISO 8601 with the
        UTC offset of the display zone (2026-11-30T09:00:00+01:00); for all-day events they are
        midnight of the first day and of the day after the last one. Absent values are null (an
        empty list for categories). It is written as every graph-ics --json is: two-space indent,
        keys sorted, text unescaped.

        With --html, the days are one self-contained HTML page (no scripts, no external files): a
        column per day, all-day events on top, the others as blocks by time, overlapping ones side by
        side, with a style sheet for printing (A4 landscape). -o FILE writes any of these to FILE.
        """
    static let epilogue = """
        Examples:
          graph-ics agenda
          graph-ics agenda --week next --tz America/New_York --hide-empty
          graph-ics agenda --format '{start:%a %H:%M} {subject}'
          graph-ics agenda --from 2026-12-01 --to 2026-12-08 --json | jq -r '.[].subject'
          graph-ics agenda --html -o week.html

        Exit status: 0 ok, 1 some events could not be read (the others are shown), 64 usage,
        66 no such calendar, 69 Graph unavailable, 73 cannot create the output file,
        77 not signed in or no permission.
        """

    struct Options: OptionGroup {
        let range = RangeOption.Declarations()
        let calendars = CalendarSet.Declarations()
        let zone = Option.zone(
            help: "Show times (and choose weeks) in this zone (IANA such as Europe/Berlin, or Windows) instead "
                + "of the mailbox's.")
        let hideEmpty = Flag("--hide-empty", help: "Leave out days without events.")
        let width = ViewWidth.option
        let json = Flag("--json", help: "Print a JSON array of the events instead of the text view.")
        let tsv = Flag("--tsv", help: "Print a header and one tab-separated line per event.")
        let format = Option(
            "--format", value: "text|tsv|json|TEMPLATE",
            help: "The form, as agenda.format in the config file takes it: text, tsv, json, or TEMPLATE per "
                + "event, such as '{start:%H:%M} {subject}' (fields: see above)."
        ).refusingEmpty("--format needs text, tsv, json or a template such as '{start:%H:%M} {subject}'")
        let html = Flag("--html", help: "Write the days as a self-contained HTML page (a grid, printable).")
        let output = Option.output
        let connection = ConnectionOptions.Declarations()
    }

    /// What the agenda prints.
    enum Form: Equatable {
        case text, json, tsv, html
        case format(AgendaScript.Template)
    }

    var range: RangeOption
    var calendars: CalendarSet.Request
    var zone: ResolvedZone?
    var hideEmpty: Bool
    var width: Int?
    /// The form asked for on the command line; nil: `agenda.format` in the config file, else text.
    var form: Form?
    var output: String?
    var connection: ConnectionOptions

    init(_ parsed: Parsed<Options>) throws(UsageError) {
        guard parsed.positionals.isEmpty else { throw UsageError("agenda takes no arguments") }
        range = try RangeOption(parsed.group(\.range))
        // A week or dates that cannot be read (or that Graph cannot answer for) are a usage error before
        // anything is asked of Graph.
        try range.checkEarly()
        calendars = try CalendarSet.Request(parsed.group(\.calendars))
        hideEmpty = parsed[\.hideEmpty]
        width = try parsed[\.width]
        output = try parsed[\.output]
        var forms: [(String, Form)] = []
        if parsed[\.json] { forms.append(("--json", .json)) }
        if parsed[\.tsv] { forms.append(("--tsv", .tsv)) }
        if let value = try parsed[\.format] { forms.append(("--format", try Self.form(named: value))) }
        if parsed[\.html] { forms.append(("--html", .html)) }
        guard forms.count <= 1 else {
            throw UsageError("\(forms.map(\.0).joined(separator: " and ")) cannot be combined; give one of them")
        }
        form = forms.first?.1
        connection = try ConnectionOptions(parsed.group(\.connection))
        zone = try parsed[\.zone]
    }

    func run(_ terminal: Terminal) throws -> ExitStatus {
        // The output first: a folder that does not exist fails before anything is fetched.
        let sink = try OutputFile(path: output)
        defer { sink.discard() }
        let session = try Session.open(connection, need: .read, terminal: terminal)
        let zone = try session.mailboxZone(override: self.zone, terminal: terminal)
        let days = try range.resolve(in: zone)
        days.warnIfLong(terminal)
        let (entries, diagnostics) = try Self.fetch(session, calendars: calendars, days: days)
        terminal.report(diagnostics)
        let today = zone.localTime(at: Int64(Date().timeIntervalSince1970.rounded(.down))).date
        let settings = ViewSettings(session.config)
        var text: String
        switch try form ?? Self.configuredForm(session.config) {
        case .json: text = try AgendaJSON.text(entries, zone: zone)
        case .tsv: text = AgendaScript.tsv(entries, zone: zone)
        case .format(let template): text = AgendaScript.format(entries, template: template, zone: zone)
        case .html: text = WeekPage.render(entries, days: days, today: today)
        case .text:
            let toTerminal = output == nil || output == "-"
            let style = AgendaText.Style(
                width: toTerminal ? ViewWidth.lineWidth(option: width) : width,
                colour: settings.colour(toTerminal: toTerminal), today: today, hideEmpty: hideEmpty,
                namesZone: self.zone != nil, twelveHour: settings.twelveHour, palette: settings.palette)
            text = AgendaText.render(entries, days: days, style: style)
        }
        do {
            try text.withUTF8 { try sink.write(UnsafeRawBufferPointer($0)) }
            try sink.commit()
        } catch let error as ICalBridgeError {
            throw CommandFailure(ExitStatus(for: error), error.description)
        }
        let failed = diagnostics.filter { $0.severity == .error }.count
        return failed > 0 ? .partlyFailed : .ok
    }

    /// The form `agenda.format` in the config file gives (`text`, `tsv`, `json` or a `--format` template);
    /// text when it gives none.
    static func configuredForm(_ config: UserConfig) throws(CommandFailure) -> Form {
        guard let value = config["agenda.format"] else { return .text }
        do {
            return try form(named: value)
        } catch {
            throw CommandFailure(.usage, "agenda.format in the config file: \(error.message)")
        }
    }

    /// The form `--format` or `agenda.format` names: `text`, `tsv`, `json` (any case), else a template.
    static func form(named value: String) throws(UsageError) -> Form {
        switch value.lowercased() {
        case "text": .text
        case "tsv": .tsv
        case "json": .json
        default: .format(try AgendaScript.Template(value))
        }
    }

    /// The events of `days` in the chosen calendars (each entry naming its calendar when there are
    /// several), without the organizer where it is the mailbox's owner, and what could not be read. Shared
    /// by agenda, week and month.
    static func fetch(
        _ session: Session, calendars: CalendarSet.Request, days: DayRange
    ) throws -> (entries: [AgendaEntry], diagnostics: [Diagnostic]) {
        var entries: [AgendaEntry] = []
        var diagnostics: [Diagnostic] = []
        let calendarSet = try CalendarSet.resolve(calendars, session: session)
        try calendarSet.events(session.client, start: days.startDate, end: days.endDate) { document, page, calendar in
            let read = AgendaEntry.read(document, file: page, calendar: calendar)
            entries += read.entries
            diagnostics += read.diagnostics
        }
        // Without User.Read the organizer is shown as it is: the owner's name is a nicety, not a reason to fail.
        if let owner = try? session.owner() {
            let names = Set([owner.mail, owner.userPrincipalName, owner.displayName].compactMap { $0?.lowercased() })
            entries = entries.map { $0.hidingOrganizer(names) }
        }
        entries.sort { $0.sortKey(in: days.zone) < $1.sortKey(in: days.zone) }
        return (entries, diagnostics)
    }
}
