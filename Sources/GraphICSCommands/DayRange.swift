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
    /// calendarView requests.
    func warnIfLong(_ terminal: Terminal) {
        let windows = GraphClient.calendarViewWindowCount(start: startDate, end: endDate)
        guard windows > Self.quietWindowCount else { return }
        let years = Int((endDate.timeIntervalSince(startDate) / (365.2425 * 86_400)).rounded())
        terminal.warning(
            "\(description) is about \(years) years: Graph is asked for it in \(windows) calendarView requests of "
                + "31 days; Ctrl-C stops (a shorter --from/--to is quicker)")
    }
}

/// How a command was told which days to show: `--week this|next|last|YYYY-Www`, or `--from DATE --to DATE`
/// (the end exclusive). Neither means this week.
enum RangeOption: Equatable {
    case week(String)
    case dates(from: String, to: String)

    /// The days in `zone`, with `now` deciding what this week is.
    func resolve(in zone: ResolvedZone, now: Date = Date()) throws(UsageError) -> DayRange {
        switch self {
        case .week(let text):
            let today = zone.localTime(at: Int64(now.timeIntervalSince1970.rounded(.down))).date
            let monday: CivilDateTime
            switch text.lowercased() {
            case "this": monday = today.adding(days: 1 - today.isoWeekday)
            case "next": monday = today.adding(days: 8 - today.isoWeekday)
            case "last": monday = today.adding(days: -6 - today.isoWeekday)
            default:
                guard let start = Self.isoWeekStart(text) else {
                    throw UsageError("--week '\(text)' is not this, next, last or an ISO week such as 2026-W49")
                }
                monday = start
            }
            guard monday >= Self.earliest, monday.adding(days: 7) <= Self.latest else {
                throw UsageError(
                    "--week '\(text)' is outside the weeks Graph can answer for (\(Self.earliest.dateString) to "
                        + "\(Self.latest.dateString))")
            }
            return DayRange(first: monday, end: monday.adding(days: 7), zone: zone)
        case .dates(let from, let to):
            guard let first = Self.date(from) else { throw UsageError("--from '\(from)' is not a date (YYYY-MM-DD)") }
            guard let end = Self.date(to) else { throw UsageError("--to '\(to)' is not a date (YYYY-MM-DD)") }
            guard first >= Self.earliest else {
                throw UsageError(
                    "--from \(from) is before \(Self.earliest.dateString), the earliest day Graph can answer for")
            }
            guard end <= Self.latest else {
                throw UsageError("--to \(to) is after \(Self.latest.dateString), the latest --to Graph can answer for")
            }
            guard first < end else {
                throw UsageError("--to \(to) must come after --from \(from) (--to is the day after the last one)")
            }
            return DayRange(first: first, end: end, zone: zone)
        }
    }

    /// The first day a range may start. Exchange keeps times as Windows FILETIMEs, which begin on
    /// 1601-01-01 UTC (Graph documents no bound); a day's margin keeps midnight in every zone (UTC−12 to
    /// UTC+14) after it.
    static let earliest = CivilDateTime(year: 1601, month: 1, day: 2)
    /// The latest `--to` (exclusive): .NET's dates, which Exchange uses, end with 9999-12-31; midnight of
    /// that day in any zone is still before its end.
    static let latest = CivilDateTime(year: 9999, month: 12, day: 31)

    /// `YYYY-MM-DD`.
    static func date(_ text: String) -> CivilDateTime? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        let date = CivilDateTime(year: year, month: month, day: day)
        return date.isValid ? date : nil
    }

    /// The Monday of ISO week `YYYY-Www` (week 1 holds the year's first Thursday).
    static func isoWeekStart(_ text: String) -> CivilDateTime? {
        let upper = text.uppercased()
        let parts = upper.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 4, let year = Int(parts[0]), parts[1].hasPrefix("W"),
            parts[1].count == 3, let week = Int(parts[1].dropFirst()), week >= 1
        else { return nil }
        let january4 = CivilDateTime(year: year, month: 1, day: 4)
        let firstMonday = january4.adding(days: 1 - january4.isoWeekday)
        let monday = firstMonday.adding(days: (week - 1) * 7)
        // A year has 53 weeks only when week 53's Thursday is still in it.
        guard monday.adding(days: 3).year == year else { return nil }
        return monday
    }
}
