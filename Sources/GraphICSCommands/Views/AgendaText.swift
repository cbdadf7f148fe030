import Foundation
import ICalBridge

/// The agenda's text view: a heading per day, the day's events under it, one line each.
enum AgendaText {
    /// How the text view is laid out; a pure function of these and the events.
    struct Style: Equatable {
        /// Cut each line to this many columns with "…"; nil: never cut (not a terminal).
        var width: Int?
        /// ANSI colour: bold headings, each calendar or category in its colour, cancelled events dim.
        var colour = false
        /// The day marked "(today)".
        var today: CivilDateTime?
        /// Leave out days without events.
        var hideEmpty = false
        /// Say the zone on the first line (given with --tz).
        var namesZone = false
        /// Times on a 12-hour clock (`9:05am`).
        var twelveHour = false
        /// SGR codes chosen in the config file's `[colors]`, by lower-cased calendar or category name.
        var palette: [String: String] = [:]
    }

    /// `Monday 30 November 2026` (``ViewText/heading(_:)``, by the name `add` uses too).
    static func heading(_ date: CivilDateTime) -> String { ViewText.heading(date) }

    /// `09:05` (``ViewText/time(_:)``).
    static func time(_ local: CivilDateTime) -> String { ViewText.time(local) }

    /// `+01:00`, `-03:30`, `+00:00`.
    static func offset(_ seconds: Int) -> String {
        let minutes = abs(seconds) / 60
        return (seconds < 0 ? "-" : "+") + ViewText.pad(minutes / 60) + ":" + ViewText.pad(minutes % 60)
    }

    static func render(_ entries: [AgendaEntry], days: DayRange, style: Style) -> String {
        let zone = days.zone
        let calendarWidth = min(16, entries.compactMap { $0.calendar.map(ViewText.width) }.max() ?? 0)
        var lines: [String] = []
        if style.namesZone { lines.append(line("Times in \(zone.name)", style: style)) }
        for (day, items) in AgendaEntry.byDay(entries, days: days) {
            guard !items.isEmpty || !style.hideEmpty else { continue }
            let heading = ViewText.heading(day) + (day == style.today ? " (today)" : "")
            lines.append(line(heading, style: style, code: style.colour ? "1" : nil))
            if items.isEmpty { lines.append(line("  (nothing)", style: style)) }
            for item in items {
                let text =
                    "  " + self.text(item, zone: zone, calendarWidth: calendarWidth, twelveHour: style.twelveHour)
                lines.append(line(text, style: style, code: code(item.entry, style)))
            }
        }
        return lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
    }

    /// One line cut to the style's width, then coloured with the SGR `code`.
    private static func line(_ text: String, style: Style, code: String? = nil) -> String {
        let cut = style.width.map { ViewText.fit(text, $0) } ?? text
        guard let code, style.colour else { return cut }
        return "\u{1B}[\(code)m" + cut + "\u{1B}[0m"
    }

    private static func code(_ entry: AgendaEntry, _ style: Style) -> String? {
        guard style.colour else { return nil }
        if entry.isCancelled { return "2" }
        return ViewText.colourKey(entry).map { style.palette[$0.lowercased()] ?? String(ViewText.colourCode(for: $0)) }
    }

    /// `all day      Subject (Organizer) @ Location (note)`, with the calendar column when calendars are named.
    static func text(
        _ item: AgendaEntry.DayItem, zone: ResolvedZone, calendarWidth: Int, twelveHour: Bool = false
    ) -> String {
        let entry = item.entry
        let (when, note) = when(item.piece, zone: zone, twelveHour: twelveHour)
        var line = when.padding(toLength: twelveHour ? 15 : 11, withPad: " ", startingAt: 0) + "  "
        if calendarWidth > 0 { line += ViewText.cell(ViewText.clean(entry.calendar ?? ""), calendarWidth) + "  " }
        if entry.isCancelled { line += "[cancelled] " }
        line += ViewText.subject(entry)
        if let organizer = entry.organizer { line += " (\(ViewText.clean(organizer)))" }
        if let location = entry.location { line += " @ " + ViewText.clean(location) }
        if let note { line += " (\(note))" }
        return line
    }

    /// The time column of a piece and the note for an event that spans days.
    static func when(_ piece: AgendaEntry.Piece, zone: ResolvedZone, twelveHour: Bool = false) -> (String, String?) {
        switch piece {
        case .allDay(let index, let count):
            return ("all day", count > 1 ? "day \(index)/\(count)" : nil)
        case .timed(let start, let end, let continued, let continues, let dayStart):
            let note: String? =
                switch (continued, continues) {
                case (false, false): nil
                case (false, true): "continues"
                case (true, false): "continued"
                case (true, true): "continued, continues"
                }
            let range = ViewText.timeRange(
                start: start, end: end, dayStart: dayStart, continues: continues, zone: zone, twelveHour: twelveHour)
            return (continued ? ViewText.midnight(twelveHour: twelveHour) + range.drop { $0 != "–" } : range, note)
        }
    }
}
