import Foundation
import GraphICS
import ICalBridge

/// `graph-ics month`: a month as a calendar page with the events' titles (gcalcli's calm).
struct MonthCommand: Command {
    static let name = "month"
    static let abstract = "Draw a month as a calendar page with the events' titles."
    static let synopsis = [
        "[--month MONTH] [--calendar NAME|ID]... [--all-calendars] [--tz ZONE] [--width N]",
        "[--account NAME] [--user UPN]",
    ]
    static let discussion = """
        Draws a month (this one unless told otherwise) as weeks from Monday to Sunday, each day
        with its events: all-day ones first, then the others as "09:00 Subject", in the mailbox's
        time zone or --tz; a day with more than five says "+N more" (see 'graph-ics agenda' for
        them). Today says "today". The page fits the width of the terminal (--width N, else
        COLUMNS, else the terminal's size, else 80 columns); titles that do not fit are cut with
        "…". Cancelled events are marked '×'.
        """
    static let epilogue = """
        Examples:
          graph-ics month
          graph-ics month --month 2026-12 --width 160

        Exit status: 0 ok, 1 some events could not be read (the others are shown), 64 usage,
        66 no such calendar, 69 Graph unavailable, 77 not signed in or no permission.
        """

    struct Options: OptionGroup {
        let month = Option(
            "--month", value: "MONTH",
            help: "this (the default), next, last, or a month such as 2026-12, in the mailbox's time zone (or --tz).")
        let calendars = CalendarSet.Declarations()
        let zone = Option.zone(help: "Show times (and choose the month) in this zone instead of the mailbox's.")
        let width = ViewWidth.option
        let connection = ConnectionOptions.Declarations()
    }

    var month: String
    var calendars: CalendarSet.Request
    var zone: ResolvedZone?
    var width: Int?
    var connection: ConnectionOptions

    init(_ parsed: Parsed<Options>) throws(UsageError) {
        guard parsed.positionals.isEmpty else { throw UsageError("month takes no arguments") }
        month = try parsed[\.month] ?? "this"
        _ = try RangeOption.month(month, today: CivilDateTime(year: 2000, month: 1, day: 1))
        calendars = try CalendarSet.Request(parsed.group(\.calendars))
        width = try parsed[\.width]
        connection = try ConnectionOptions(parsed.group(\.connection))
        zone = try parsed[\.zone]
    }

    func run(_ terminal: Terminal) throws -> ExitStatus {
        let session = try Session.open(connection, need: .read, terminal: terminal)
        let zone = try session.mailboxZone(override: self.zone, terminal: terminal)
        let today = zone.localTime(at: Int64(Date().timeIntervalSince1970.rounded(.down))).date
        let (year, month) = try RangeOption.month(self.month, today: today)
        let days = MonthGrid.days(year: year, month: month, zone: zone)
        let (entries, diagnostics) = try AgendaCommand.fetch(session, calendars: calendars, days: days)
        terminal.report(diagnostics)
        terminal.out(
            MonthGrid.render(
                entries, month: days, today: today, width: ViewWidth.columns(option: width) ?? 80,
                twelveHour: ViewSettings(session.config).twelveHour))
        return diagnostics.contains { $0.severity == .error } ? .partlyFailed : .ok
    }
}
