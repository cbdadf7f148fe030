import Foundation
import GraphICS
import ICalBridge

/// `graph-ics week`: a week as a grid, the days in columns and the hours in rows (gcalcli's calw).
struct WeekCommand: Command {
    static let name = "week"
    static let abstract = "Draw the week as a grid: days in columns, hours in rows, events as blocks."
    static let synopsis = [
        "[--week WEEK | --from DATE --to DATE] [--calendar NAME|ID]... [--all-calendars] [--tz ZONE]",
        "[--width N] [--account NAME] [--user UPN]",
    ]
    static let discussion = """
        Draws the days of a week (this one unless told otherwise; --from/--to for up to seven other
        days) side by side, with a row for every half hour from 08:00 to 18:00, or from the earliest
        to the latest event when they are outside. Each timed event is a block marked at its left
        edge: its subject, its times and its location, as far as the block is long; events at the
        same time stand side by side. All-day events come first, above the hours. Today's column
        says "today" and is underlined with a heavy line. Times are in the mailbox's time zone, or
        --tz; the zone is named in the title. The grid fits the width of the terminal (--width N,
        else COLUMNS, else the terminal's size, else 80 columns); text that does not fit is cut with
        "…". Cancelled events are marked '×'.
        """
    static let epilogue = """
        Examples:
          graph-ics week
          graph-ics week --week next --width 160

        Exit status: 0 ok, 1 some events could not be read (the others are shown), 64 usage,
        66 no such calendar, 69 Graph unavailable, 77 not signed in or no permission.
        """

    struct Options: OptionGroup {
        let range = RangeOption.Declarations()
        let calendars = CalendarSet.Declarations()
        let zone = Option.zone(help: "Show times (and choose the week) in this zone instead of the mailbox's.")
        let width = ViewWidth.option
        let connection = ConnectionOptions.Declarations()
    }

    var range: RangeOption
    var calendars: CalendarSet.Request
    var zone: ResolvedZone?
    var width: Int?
    var connection: ConnectionOptions

    init(_ parsed: Parsed<Options>) throws(UsageError) {
        guard parsed.positionals.isEmpty else { throw UsageError("week takes no arguments") }
        range = try RangeOption(parsed.group(\.range))
        let days = try range.resolve(in: .utc)
        guard days.end.daysSinceEpoch - days.first.daysSinceEpoch <= 7 else {
            throw UsageError(
                "week draws at most seven days; --from \(days.first.dateString) --to "
                    + "\(days.end.dateString) is more (see 'graph-ics agenda' or 'graph-ics month')")
        }
        calendars = try CalendarSet.Request(parsed.group(\.calendars))
        width = try parsed[\.width]
        connection = try ConnectionOptions(parsed.group(\.connection))
        zone = try parsed[\.zone]
    }

    func run(_ terminal: Terminal) throws -> ExitStatus {
        let session = try Session.open(connection, need: .read, terminal: terminal)
        let zone = try session.mailboxZone(override: self.zone, terminal: terminal)
        let days = try range.resolve(in: zone)
        let (entries, diagnostics) = try AgendaCommand.fetch(session, calendars: calendars, days: days)
        terminal.report(diagnostics)
        let today = zone.localTime(at: Int64(Date().timeIntervalSince1970.rounded(.down))).date
        terminal.out(
            WeekGrid.render(
                entries, days: days, today: today, width: ViewWidth.columns(option: width) ?? 80,
                twelveHour: ViewSettings(session.config).twelveHour))
        return diagnostics.contains { $0.severity == .error } ? .partlyFailed : .ok
    }
}
