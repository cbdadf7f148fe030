import Foundation
import GraphICS
import ICalBridge

/// A range of whole days in one zone, `[first, end)`, as the `--week` / `--from --to` options give it.
struct DayRange: Equatable {
    /// The first day (midnight).
    var first: CivilDateTime
    /// The day after the last one (exclusive).
    var end: CivilDateTime
    var zone: ResolvedZone

    /// The instant the range starts (midnight of `first` in `zone`).
    var startInstant: Int64 { zone.instant(forLocal: first) }
    /// The instant it ends (midnight of `end` in `zone`).
    var endInstant: Int64 { zone.instant(forLocal: end) }

    var startDate: Date { Date(timeIntervalSince1970: TimeInterval(startInstant)) }
    var endDate: Date { Date(timeIntervalSince1970: TimeInterval(endInstant)) }

    /// `2026-11-30 – 2026-12-06 (Europe/Berlin)`.
    var description: String {
        "\(first.dateString) – \(end.adding(days: -1).dateString) (\(zone.name))"
    }

    /// The most calendarView requests (windows, before paging) a range takes without a warning: 120 windows
    /// of 31 days, about ten years.
    static let quietWindowCount = 120

    /// Warns on stderr, before anything is fetched, when the range takes more than ``quietWindowCount``
    /// calendarView requests; returns how many it takes then, nil otherwise.
    @discardableResult
    func warnIfLong(_ terminal: Terminal) -> Int? {
        let windows = GraphClient.calendarViewWindowCount(start: startDate, end: endDate)
        guard windows > Self.quietWindowCount else { return nil }
        let years = Int((endDate.timeIntervalSince(startDate) / (365.2425 * 86_400)).rounded())
        terminal.warning(
            "\(description) is about \(years) years: Graph is asked for it in \(windows) calendarView requests of "
                + "31 days; Ctrl-C stops (a shorter --from/--to is quicker)")
        return windows
    }

    /// Nil to go on with a range that may be long: it is not (``warnIfLong(_:)``), `yes` says so, or `y` is
    /// answered on a terminal. Else the exit status: 64 with no terminal to ask on, 0 when the answer is no.
    func confirmIfLong(_ terminal: Terminal, yes: Bool) -> ExitStatus? {
        guard let windows = warnIfLong(terminal) else { return nil }
        return terminal.confirm(
            "Send \(windows) requests to Graph? [y/N] ", yes: yes,
            refusal: "not sending \(windows) calendarView requests without --yes (standard input is not a terminal "
                + "to ask on); give --yes, or a shorter range",
            declined: "nothing exported")
    }
}

/// How a command was told which days to show: `--week WEEK`, `--month MONTH`, `--from DAY --to DAY` (the end
/// exclusive; a relative `--to +7d` or `+1m` counts from `--from`), or `--days N` (from `--from`, else
/// today). None means this week. Every day and week is read by ``TypedTime``.
enum RangeOption: Equatable {
    case week(String)
    /// `--month`: `this`, `next`, `last` or `YYYY-MM`.
    case month(String)
    case dates(from: String, to: String)
    /// `count` days from `from` (today when nil).
    case days(from: String?, count: Int)

    /// The check a command makes while reading its options, before its zone is known: every typed form,
    /// and a range of dates alone (`2026-12-01`, `2026-W49`) whole. A range that depends on today (`today`,
    /// `+7d`, `mon`, `this`) is put in order by ``resolve(in:now:)`` in the command's zone, where today may be
    /// another day than in UTC.
    func checkEarly() throws(UsageError) {
        let typed = TypedTime(zone: .utc)
        switch self {
        case .week(let text):
            guard Self.isoWeekPattern(text) else {
                _ = try typed.week(text, option: "--week")
                return
            }
        case .dates(let from, let to):
            guard Self.datePattern(from), Self.datePattern(to) else {
                _ = try typed.day(to, option: "--to", relativeTo: try typed.day(from, option: "--from"))
                return
            }
        case .days(let from, _):
            guard let from, Self.datePattern(from) else {
                if let from { _ = try typed.day(from, option: "--from") }
                return
            }
        case .month(let text):
            _ = try Self.month(text, today: CivilDateTime(year: 2000, month: 1, day: 1))
            return
        }
        _ = try resolve(in: .utc)
    }

    /// `YYYY-MM-DD` in form (whether it is a real day is TypedTime's to say).
    static func datePattern(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.count == 10 && bytes[4] == UInt8(ascii: "-") && bytes[7] == UInt8(ascii: "-")
            && bytes.enumerated().allSatisfy { $0.offset == 4 || $0.offset == 7 || (48...57).contains($0.element) }
    }

    /// `YYYY-Www` in form.
    static func isoWeekPattern(_ text: String) -> Bool {
        let bytes = Array(text.uppercased().utf8)
        return bytes.count == 8 && bytes[4] == UInt8(ascii: "-") && bytes[5] == UInt8(ascii: "W")
            && bytes.enumerated().allSatisfy { [4, 5].contains($0.offset) || (48...57).contains($0.element) }
    }

    /// The days in `zone`, with `now` deciding what today and this week are.
    func resolve(in zone: ResolvedZone, now: Date = Date()) throws(UsageError) -> DayRange {
        let typed = TypedTime(now: now, zone: zone)
        switch self {
        case .week(let text):
            let monday = try typed.week(text, option: "--week")
            guard monday >= Self.earliest, monday.adding(days: 7) <= Self.latest else {
                throw UsageError(
                    "--week '\(text)' is outside the weeks Graph can answer for (\(Self.earliest.dateString) to "
                        + "\(Self.latest.dateString))")
            }
            return DayRange(first: monday, end: monday.adding(days: 7), zone: zone)
        case .month(let text):
            let (year, month) = try Self.month(text, today: typed.today)
            let first = CivilDateTime(year: year, month: month, day: 1)
            return DayRange(first: first, end: TypedTime.adding(months: 1, to: first), zone: zone)
        case .dates(let from, let to):
            let first = try typed.day(from, option: "--from")
            let end = try typed.day(to, option: "--to", relativeTo: first)
            return try Self.checked(first: first, end: end, from: from, to: to, zone: zone)
        case .days(let from, let count):
            let first =
                try from.map { (text) throws(UsageError) in try typed.day(text, option: "--from") } ?? typed.today
            return try Self.checked(
                first: first, end: first.adding(days: count), from: from ?? "today", to: "+\(count)d", zone: zone)
        }
    }

    /// The year and month `text` names, `this`/`next`/`last` counted from `today`.
    static func month(_ text: String, today: CivilDateTime) throws(UsageError) -> (year: Int, month: Int) {
        let index = today.year * 12 + today.month - 1
        let chosen: Int
        switch text.lowercased() {
        case "this": chosen = index
        case "next": chosen = index + 1
        case "last": chosen = index - 1
        default:
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0].count == 4, parts[1].count == 2, let year = Int(parts[0]),
                let month = Int(parts[1]), (1...12).contains(month), year >= 1602, year <= 9998
            else {
                throw UsageError("--month '\(text)' is not this, next, last or a month such as 2026-12")
            }
            chosen = year * 12 + month - 1
        }
        return (chosen / 12, chosen % 12 + 1)
    }

    /// The range from `first` to `end`, when Graph can answer for it and it holds a day.
    static func checked(
        first: CivilDateTime, end: CivilDateTime, from: String, to: String, zone: ResolvedZone
    ) throws(UsageError) -> DayRange {
        guard first >= Self.earliest else {
            throw UsageError(
                "--from \(from) is before \(Self.earliest.dateString), the earliest day Graph can answer for")
        }
        guard end <= Self.latest else {
            throw UsageError("--to \(to) is after \(Self.latest.dateString), the latest --to Graph can answer for")
        }
        guard first < end else {
            throw UsageError(
                "--to \(to) (\(end.dateString)) must come after --from \(from) (\(first.dateString)); --to is the "
                    + "day after the last one")
        }
        return DayRange(first: first, end: end, zone: zone)
    }

    /// The first day a range may start. Exchange keeps times as Windows FILETIMEs, which begin on
    /// 1601-01-01 UTC (Graph documents no bound); a day's margin keeps midnight in every zone (UTC−12 to
    /// UTC+14) after it.
    static let earliest = CivilDateTime(year: 1601, month: 1, day: 2)
    /// The latest `--to` (exclusive): .NET's dates, which Exchange uses, end with 9999-12-31; midnight of
    /// that day in any zone is still before its end.
    static let latest = CivilDateTime(year: 9999, month: 12, day: 31)
}
