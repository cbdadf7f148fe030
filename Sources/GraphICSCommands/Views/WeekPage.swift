import Foundation
import ICalBridge

/// `agenda --html`: the days as one self-contained HTML page (no external assets, no script): a column per
/// day, all-day events on top, timed events as blocks placed by time, overlapping ones side by side, with a
/// print style sheet (landscape, colours kept, no page break inside a day). A pure function of the events,
/// the days, today and the generator's version line.
enum WeekPage {
    static func render(_ entries: [AgendaEntry], days: DayRange, today: CivilDateTime?) -> String {
        let columns = AgendaEntry.byDay(entries, days: days)
        let layouts = columns.map { WeekGrid.DayLayout($0.items.filter { !$0.isAllDay }, zone: days.zone, width: 1) }
        let first = min(WeekGrid.usualHours.lowerBound * 2, layouts.compactMap(\.firstSlot).min() ?? .max)
        let end = max(WeekGrid.usualHours.upperBound * 2, layouts.compactMap(\.endSlot).max() ?? 0)
        let title = WeekGrid.title(days)
        var html = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="generator" content="graph-ics \(escape(GraphICSVersion.version))">
            <title>\(escape(title))</title>
            <style>
            \(style(columns: columns.count, slots: end - first))
            </style>
            </head>
            <body>
            <h1>\(escape(title))</h1>
            <div class="week">
            <div class="corner"></div>

            """
        for (day, _) in columns {
            let mark = day == today ? " today" : ""
            html +=
                "<div class=\"head\(mark)\">\(escape(ViewText.heading(day)))\(day == today ? " (today)" : "")</div>\n"
        }
        html += "<div class=\"gutter allday-label\">all day</div>\n"
        for (_, items) in columns {
            html += "<div class=\"allday\">"
            for item in items where item.isAllDay {
                html += "<div class=\"event\(classes(item.entry))\">\(escape(WeekGrid.allDayText(item)))</div>"
            }
            html += "</div>\n"
        }
        html += "<div class=\"gutter hours\">"
        for slot in stride(from: first + first % 2, to: end, by: 2) {
            let top = percent(slot - first, of: end - first)
            html += "<div class=\"hour\" style=\"top:\(top)\">\(ViewText.pad(slot / 2)):00</div>"
        }
        html += "</div>\n"
        for (index, (_, items)) in columns.enumerated() {
            html += "<div class=\"day\">"
            let timed = items.filter { !$0.isAllDay }
            for (block, item) in zip(layouts[index].blocks, timed) {
                html += self.block(block, item, first: first, slots: end - first)
            }
            html += "</div>\n"
        }
        html += "</div>\n<p class=\"zone\">Times in \(escape(days.zone.name)).</p>\n</body>\n</html>\n"
        return html
    }

    /// One timed event, placed by its slots and lane.
    static func block(_ block: WeekGrid.DayLayout.Block, _ item: AgendaEntry.DayItem, first: Int, slots: Int) -> String
    {
        let top = percent(block.first - first, of: slots)
        let height = percent(block.end - block.first, of: slots)
        let left = percent(block.lane, of: block.lanes)
        let width = percent(1, of: block.lanes)
        let lines = block.lines.map(escape)
        let rest = lines.dropFirst().map { "<span>\($0)</span>" }.joined()
        return "<div class=\"event\(classes(item.entry))\" style=\"top:\(top);height:\(height);left:\(left);"
            + "width:\(width)\"><b>\(lines.first ?? "")</b>\(rest)</div>"
    }

    /// `c3` for the colour of the event's calendar or category (the same six as the terminal's), and
    /// `cancelled`.
    static func classes(_ entry: AgendaEntry) -> String {
        var classes = ""
        if let key = ViewText.colourKey(entry) { classes += " c\(ViewText.colourCode(for: key) - 30)" }
        if entry.isCancelled { classes += " cancelled" }
        return classes
    }

    static func percent(_ part: Int, of whole: Int) -> String {
        let value = Double(part) * 100 / Double(max(1, whole))
        return String(format: "%.4g%%", value)
    }

    /// Text as HTML: `&`, `<`, `>`, `"` and `'` escaped, control characters as spaces.
    static func escape(_ text: String) -> String {
        var result = ""
        for character in ViewText.clean(text) {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }

    static func style(columns: Int, slots: Int) -> String {
        """
        * { box-sizing: border-box; }
        body { font: 13px/1.3 "DejaVu Sans", Arial, sans-serif; margin: 16px; color: #1b1b1b; background: #fff; }
        h1 { font-size: 18px; margin: 0 0 10px; }
        .week { display: grid; grid-template-columns: 48px repeat(\(columns), 1fr);
          grid-template-rows: auto auto \(slots * 22)px; border: 1px solid #9a9a9a; }
        .head { padding: 4px 6px; font-weight: bold; border-left: 1px solid #c8c8c8; border-bottom: 1px solid #9a9a9a;
          background: #f1f1f1; }
        .head.today { background: #dbe9ff; }
        .gutter { font-size: 11px; color: #555; }
        .allday-label { padding: 3px; border-bottom: 1px solid #9a9a9a; }
        .allday { border-left: 1px solid #c8c8c8; border-bottom: 1px solid #9a9a9a; padding: 2px; min-height: 22px; }
        .allday .event { position: static; margin: 1px 0; }
        .hours, .day { position: relative; }
        .hour { position: absolute; right: 4px; transform: translateY(-1px); }
        .day { border-left: 1px solid #c8c8c8;
          background: repeating-linear-gradient(to bottom, #fff 0, #fff 43px, #e6e6e6 43px, #e6e6e6 44px); }
        .event { position: absolute; overflow: hidden; padding: 1px 4px; border-radius: 3px; font-size: 12px;
          background: #e4ecf7; border-left: 4px solid #4a78b5; }
        .day .event { border: 1px solid #fff; border-left: 4px solid #4a78b5; }
        .event b, .event span { display: block; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
        .event span { font-size: 11px; color: #333; }
        .event.cancelled { text-decoration: line-through; opacity: 0.6; }
        .c1 { background: #fbe3e3; border-left-color: #c0392b !important; }
        .c2 { background: #e3f5e6; border-left-color: #2e8b47 !important; }
        .c3 { background: #fdf3d8; border-left-color: #b8860b !important; }
        .c4 { background: #e4ecf7; border-left-color: #2f5f9e !important; }
        .c5 { background: #f3e4f5; border-left-color: #8e44ad !important; }
        .c6 { background: #def3f4; border-left-color: #16878c !important; }
        .zone { color: #555; font-size: 11px; }
        @media print {
          @page { size: A4 landscape; margin: 10mm; }
          body { margin: 0; font-size: 10px; }
          .week { grid-template-rows: auto auto \(slots * 14)px; break-inside: avoid; }
          .day { background: none; }
          .event, .head, .allday { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
        }
        """
    }
}
