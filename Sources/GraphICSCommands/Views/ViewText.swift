import Foundation
import ICalBridge

/// Text for the terminal views: how many columns a string takes, cutting it to a width with "…", and the
/// names of days and months. Every view measures through here, so a wide character (CJK, emoji) takes its
/// two columns everywhere.
enum ViewText {
    static let weekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    static let months = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
        "November", "December",
    ]

    /// Columns `character` takes on a terminal: 2 for East Asian wide and emoji, 0 for a combining mark
    /// alone, else 1.
    static func columns(_ character: Character) -> Int {
        guard let scalar = character.unicodeScalars.first else { return 0 }
        let value = scalar.value
        if character.unicodeScalars.count == 1, scalar.properties.generalCategory == .nonspacingMark { return 0 }
        let wide: [ClosedRange<UInt32>] = [
            0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F,
            0x1F900...0x1F9FF, 0x20000...0x3FFFD,
        ]
        return wide.contains { $0.contains(value) } ? 2 : 1
    }

    /// Columns `text` takes.
    static func width(_ text: String) -> Int {
        text.reduce(0) { $0 + columns($1) }
    }

    /// `text` in at most `width` columns: cut with "…" when longer.
    static func fit(_ text: String, _ width: Int) -> String {
        guard width > 0 else { return "" }
        guard self.width(text) > width else { return text }
        var result = ""
        var used = 0
        for character in text {
            let needed = columns(character)
            guard used + needed <= width - 1 else { break }
            result.append(character)
            used += needed
        }
        return result + "…"
    }

    /// `text` in exactly `width` columns: cut with "…", or padded with spaces.
    static func cell(_ text: String, _ width: Int) -> String {
        let fitted = fit(text, width)
        return fitted + String(repeating: " ", count: max(0, width - self.width(fitted)))
    }

    /// Text fit for one terminal line: control characters (line breaks, escape sequences) become spaces.
    static func clean(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { scalar in
                    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) ? " " : scalar
                }))
    }

    /// `Monday 30 November 2026`.
    static func heading(_ date: CivilDateTime) -> String {
        "\(weekdays[date.isoWeekday - 1]) \(date.day) \(months[date.month - 1]) \(date.year)"
    }

    /// `Mon 30`.
    static func shortDay(_ date: CivilDateTime) -> String {
        "\(weekdays[date.isoWeekday - 1].prefix(3)) \(date.day)"
    }

    /// `09:05`; on a 12-hour clock (`display.time` in the config file) `9:05am`, gcalcli's form.
    static func time(_ local: CivilDateTime, twelveHour: Bool = false) -> String {
        guard twelveHour else { return pad(local.hour) + ":" + pad(local.minute) }
        let hour = local.hour % 12 == 0 ? 12 : local.hour % 12
        return "\(hour):" + pad(local.minute) + (local.hour < 12 ? "am" : "pm")
    }

    /// Midnight at the start of a day, `00:00` (`12:00am`).
    static func midnight(twelveHour: Bool) -> String { twelveHour ? "12:00am" : "00:00" }

    /// `09:00–09:30` of a timed piece, `00:00` and `24:00` at the edges of a day it crosses (`12:00am` at
    /// both on a 12-hour clock).
    static func timeRange(
        start: Int64, end: Int64, dayStart: Int64, continues: Bool, zone: ResolvedZone, twelveHour: Bool = false
    ) -> String {
        let from =
            start == dayStart
            ? midnight(twelveHour: twelveHour) : time(zone.localTime(at: start), twelveHour: twelveHour)
        let to = continues ? (twelveHour ? "12:00am" : "24:00") : time(zone.localTime(at: end), twelveHour: twelveHour)
        return from + "–" + to
    }

    /// The hour label of the week grid: `08:00`, or `8am` on a 12-hour clock.
    static func hourLabel(_ hour: Int, twelveHour: Bool) -> String {
        guard twelveHour else { return pad(hour) + ":00" }
        return "\(hour % 12 == 0 ? 12 : hour % 12)" + (hour < 12 ? "am" : "pm")
    }

    static func pad(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }

    /// The subject as the views print it: "(no subject)" for none, control characters as spaces.
    static func subject(_ entry: AgendaEntry) -> String {
        entry.subject.isEmpty ? "(no subject)" : clean(entry.subject)
    }

    /// The ANSI colour (a foreground code, 31…36) of a calendar or category name: the same name always
    /// gets the same colour.
    static func colourCode(for name: String) -> Int {
        var hash: UInt32 = 2_166_136_261
        for byte in name.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return 31 + Int(hash % 6)
    }

    /// What the colour of an entry follows: its calendar when one is named, else its first category.
    static func colourKey(_ entry: AgendaEntry) -> String? {
        entry.calendar ?? entry.categories.first
    }
}
