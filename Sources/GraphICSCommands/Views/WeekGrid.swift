import Foundation
import ICalBridge

/// `graph-ics week`: the days of a week in columns and the hours in rows of half an hour, events as blocks,
/// all-day events on top, overlapping events side by side. A pure function of the events, the days (with
/// their zone), today and the width.
enum WeekGrid {
    /// The hours always shown; an event earlier or later widens the grid to it.
    static let usualHours = 8..<18
    /// The gutter: `09:00`.
    static let gutter = 5

    /// The grid in at most `width` columns (each day gets at least 3).
    static func render(
        _ entries: [AgendaEntry], days: DayRange, today: CivilDateTime?, width: Int, twelveHour: Bool = false
    ) -> String {
        let columns = AgendaEntry.byDay(entries, days: days)
        let count = max(1, columns.count)
        let cell = max(3, (width - gutter - 1) / count - 1)
        var lines = [ViewText.fit(title(days), width)]
        lines.append(
            String(repeating: " ", count: gutter)
                + columns.map { "│" + ViewText.cell(label($0.day, today: today, width: cell), cell) }.joined() + "│")
        lines.append(rule(columns.map { $0.day == today }, cell: cell, joint: "┼", heavyToday: true))
        let allDay = columns.map { $0.items.filter(\.isAllDay) }
        let allDayRows = allDay.map(\.count).max() ?? 0
        for row in 0..<allDayRows {
            let cells = allDay.map { items in row < items.count ? allDayText(items[row]) : "" }
            lines.append(
                ViewText.cell(row == 0 ? "all" : "", gutter) + cells.map { "│" + ViewText.cell($0, cell) }.joined()
                    + "│")
        }
        if allDayRows > 0 { lines.append(rule(columns.map { _ in false }, cell: cell, joint: "┼", heavyToday: false)) }
        let layouts = columns.map {
            DayLayout($0.items.filter { !$0.isAllDay }, zone: days.zone, width: cell, twelveHour: twelveHour)
        }
        let first = min(usualHours.lowerBound * 2, layouts.compactMap(\.firstSlot).min() ?? .max)
        let end = max(usualHours.upperBound * 2, layouts.compactMap(\.endSlot).max() ?? 0)
        for slot in first..<end {
            let time = slot % 2 == 0 ? ViewText.hourLabel(slot / 2, twelveHour: twelveHour) : ""
            lines.append(
                ViewText.cell(time, gutter) + layouts.map { "│" + $0.row(slot) }.joined() + "│")
        }
        lines.append(rule(columns.map { _ in false }, cell: cell, joint: "┴", heavyToday: false, last: true))
        return lines.joined(separator: "\n") + "\n"
    }

    /// `30 November – 6 December 2026 (Europe/Berlin)`.
    static func title(_ days: DayRange) -> String {
        let last = days.end.adding(days: -1)
        let start =
            days.first.year != last.year
            ? "\(days.first.day) \(ViewText.months[days.first.month - 1]) \(days.first.year)"
            : "\(days.first.day) \(ViewText.months[days.first.month - 1])"
        return "\(start) – \(last.day) \(ViewText.months[last.month - 1]) \(last.year) (\(days.zone.name))"
    }

    /// `Tue 1`, and `today` after it (or `*` when that does not fit).
    static func label(_ day: CivilDateTime, today: CivilDateTime?, width: Int) -> String {
        let label = ViewText.shortDay(day)
        guard day == today else { return label }
        return ViewText.width(label) + 6 <= width ? label + " today" : label + " *"
    }

    /// A horizontal rule under the gutter and every day, heavy under today when asked.
    static func rule(_ isToday: [Bool], cell: Int, joint: String, heavyToday: Bool, last: Bool = false) -> String {
        let parts = isToday.enumerated().map { index, today in
            (index == 0 ? (last ? "┴" : "┼") : joint) + String(repeating: today && heavyToday ? "━" : "─", count: cell)
        }
        return String(repeating: "─", count: gutter) + parts.joined() + (last ? "┘" : "┤")
    }

    /// An all-day event in its row: `× ` for cancelled, `(2/3)` for a day of several.
    static func allDayText(_ item: AgendaEntry.DayItem) -> String {
        var text = (item.entry.isCancelled ? "× " : "") + ViewText.subject(item.entry)
        if case .allDay(let index, let count) = item.piece, count > 1 { text += " (\(index)/\(count))" }
        return text
    }

    /// One day's timed events placed in half-hour slots and side-by-side lanes.
    struct DayLayout {
        struct Block {
            var first: Int
            var end: Int
            var lane: Int
            var lanes: Int
            var lines: [String]
        }

        var blocks: [Block] = []
        let width: Int

        init(_ items: [AgendaEntry.DayItem], zone: ResolvedZone, width: Int, twelveHour: Bool = false) {
            self.width = width
            var placed: [Block] = []
            var cluster: [Int] = []
            var clusterEnd = Int.min
            for item in items {
                guard case .timed(let start, let end, _, let continues, let dayStart) = item.piece else { continue }
                let first = Int((start - dayStart) / 1800)
                let last = max(first + 1, Int((end - dayStart + 1799) / 1800))
                if first >= clusterEnd { Self.close(&cluster, in: &placed) }
                let busy = Set(cluster.filter { placed[$0].end > first }.map { placed[$0].lane })
                let lane = (0...).first { !busy.contains($0) } ?? 0
                let time = ViewText.timeRange(
                    start: start, end: end, dayStart: dayStart, continues: continues, zone: zone,
                    twelveHour: twelveHour)
                placed.append(Block(first: first, end: last, lane: lane, lanes: 1, lines: Self.lines(item, time)))
                cluster.append(placed.count - 1)
                clusterEnd = max(clusterEnd, last)
            }
            Self.close(&cluster, in: &placed)
            blocks = placed
        }

        /// Gives every block of a finished cluster (events overlapping one another, directly or through
        /// others) the cluster's lane count.
        private static func close(_ cluster: inout [Int], in placed: inout [Block]) {
            let lanes = (cluster.map { placed[$0].lane }.max() ?? 0) + 1
            for index in cluster { placed[index].lanes = lanes }
            cluster = []
        }

        /// What a block says, a line per slot: the subject, the times, the location.
        static func lines(_ item: AgendaEntry.DayItem, _ time: String) -> [String] {
            let entry = item.entry
            let subject = (entry.isCancelled ? "× " : "") + ViewText.subject(entry)
            return [subject, time] + (entry.location.map { [ViewText.clean($0)] } ?? [])
        }

        var firstSlot: Int? { blocks.map(\.first).min() }
        var endSlot: Int? { blocks.map(\.end).max() }

        /// The day's cell in `slot`: each lane's block or spaces, `width` columns.
        func row(_ slot: Int) -> String {
            let here = blocks.filter { $0.first <= slot && slot < $0.end }
            guard let lanes = here.first?.lanes else { return String(repeating: " ", count: width) }
            var text = ""
            for lane in 0..<lanes {
                let from = lane * width / lanes
                let to = (lane + 1) * width / lanes
                guard let block = here.first(where: { $0.lane == lane }) else {
                    text += String(repeating: " ", count: to - from)
                    continue
                }
                let line = slot - block.first < block.lines.count ? block.lines[slot - block.first] : ""
                text += to > from ? "▌" + ViewText.cell(line, to - from - 1) : ""
            }
            return text
        }
    }
}
