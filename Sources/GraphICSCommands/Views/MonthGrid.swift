import Foundation
import ICalBridge

/// `graph-ics month`: a calendar page of one month, Monday to Sunday, each day with its events' titles
/// (all-day ones first, then `09:00 Subject`). A pure function of the events, the month, the zone, today and
/// the width.
enum MonthGrid {
    /// The most event lines a day shows; more become `+N more`.
    static let linesPerDay = 5

    /// The days of the month `year`-`month` in `zone`.
    static func days(year: Int, month: Int, zone: ResolvedZone) -> DayRange {
        let first = CivilDateTime(year: year, month: month, day: 1)
        return DayRange(
            first: first, end: first.adding(days: CivilDateTime.daysInMonth(year: year, month: month)), zone: zone)
    }

    /// The grid in at most `width` columns (each day gets at least 4).
    static func render(
        _ entries: [AgendaEntry], month days: DayRange, today: CivilDateTime?, width: Int, twelveHour: Bool = false
    ) -> String {
        let cell = max(4, (width - 1) / 7 - 1)
        let byDay = Dictionary(
            AgendaEntry.byDay(entries, days: days).map { ($0.day, $0.items) }, uniquingKeysWith: { first, _ in first })
        let title = "\(ViewText.months[days.first.month - 1]) \(days.first.year) (\(days.zone.name))"
        let full = 1 + 7 * (cell + 1)
        let padding = max(0, (full - ViewText.width(title)) / 2)
        var lines = [ViewText.fit(String(repeating: " ", count: padding) + title, width)]
        lines.append(rule("┌", "┬", "┐", cell))
        lines.append("│" + ViewText.weekdays.map { ViewText.cell(String($0.prefix(3)), cell) + "│" }.joined())
        var monday = days.first.adding(days: 1 - days.first.isoWeekday)
        while monday < days.end {
            lines.append(rule("├", "┼", "┤", cell))
            let week = (0..<7).map { monday.adding(days: $0) }
            let cells = week.map { day -> [String] in
                guard days.first <= day, day < days.end else { return [] }
                return [dayNumber(day, today: today, width: cell)]
                    + eventLines(byDay[day] ?? [], zone: days.zone, twelveHour: twelveHour)
            }
            let height = max(3, cells.map(\.count).max() ?? 0)
            for row in 0..<height {
                lines.append("│" + cells.map { ViewText.cell(row < $0.count ? $0[row] : "", cell) + "│" }.joined())
            }
            monday = monday.adding(days: 7)
        }
        lines.append(rule("└", "┴", "┘", cell))
        return lines.joined(separator: "\n") + "\n"
    }

    /// `1`, or `1 today` (`1*` when that does not fit).
    static func dayNumber(_ day: CivilDateTime, today: CivilDateTime?, width: Int) -> String {
        guard day == today else { return String(day.day) }
        return String(day.day).count + 6 <= width ? "\(day.day) today" : "\(day.day)*"
    }

    /// A day's events, a line each: all-day ones by subject, timed ones `09:00 Subject`; `+N more` past
    /// ``linesPerDay``.
    static func eventLines(_ items: [AgendaEntry.DayItem], zone: ResolvedZone, twelveHour: Bool = false) -> [String] {
        let lines = items.map { item -> String in
            let subject = (item.entry.isCancelled ? "× " : "") + ViewText.subject(item.entry)
            guard case .timed(let start, _, let continued, _, _) = item.piece else { return subject }
            let time =
                continued
                ? ViewText.midnight(twelveHour: twelveHour)
                : ViewText.time(zone.localTime(at: start), twelveHour: twelveHour)
            return time + " " + subject
        }
        guard lines.count > linesPerDay else { return lines }
        return Array(lines.prefix(linesPerDay - 1)) + ["+\(lines.count - linesPerDay + 1) more"]
    }

    static func rule(_ left: String, _ joint: String, _ right: String, _ cell: Int) -> String {
        left + Array(repeating: String(repeating: "─", count: cell), count: 7).joined(separator: joint) + right
    }
}
