import Foundation
import GraphICS
import ICalBridge

/// A time as a command line gives it: a wall-clock time in the command's zone, or an instant when the text
/// carried its own UTC offset (`2026-12-01T09:00+01:00`, `…Z`) or said `now`.
enum TypedMoment: Equatable {
    case local(CivilDateTime)
    /// Seconds since 1970-01-01 UTC.
    case instant(Int64)
}

/// The one reader of the days, times, weeks and lengths people type (`--from`, `--to`, `--start`, `--end`,
/// `--duration`, `--week`), for every command. It is made with the moment it counts from ("now") and the
/// zone the command works in, so `today`, `mon` and `+3d` mean the days of that zone, and a test can fix both.
///
/// Days: `today`, `tomorrow`, `yesterday`, `mon` … `sun` (or `monday` …: the next such day, today
/// included), `+3d`, `-1w`, `3d`, `+1m` (days, weeks or months from today, or from the day given as `relativeTo`),
/// `YYYY-MM-DD`. Relative days are calendar days: `+1d` keeps the wall-clock time across a change of the
/// clocks. Times: a day plus `HH:MM` (`tomorrow 10:00`, `mon 9:30`, `2026-12-01T09:00`, `9:30pm`), a time
/// alone (on today, or on the `relativeTo` day), `now`, or ISO 8601 with an offset. A wall-clock time that
/// falls in a gap or a fold of its zone is placed by ``place(_:)`` as `add` has always placed it.
struct TypedTime {
    /// The seconds since 1970 the relative forms count from.
    let now: Int64
    let zone: ResolvedZone
    /// Today in `zone`, at midnight.
    let today: CivilDateTime

    init(now: Date = Date(), zone: ResolvedZone) {
        self.now = Int64(now.timeIntervalSince1970.rounded(.down))
        self.zone = zone
        today = zone.localTime(at: self.now).date
    }

    static let dayForms =
        "today, tomorrow, yesterday, mon … sun (the next one, today included), +3d, -1w or +1m (days, weeks or "
        + "months from today), or YYYY-MM-DD"
    static let momentForms =
        "HH:MM (today), a day and a time ('tomorrow 10:00', 'mon 9:30', '+2d 14:00', '2026-12-01 09:00', "
        + "'fri 2:30pm'), now, or ISO 8601 with an offset (2026-12-01T09:00+01:00, 2026-12-01T08:00Z)"
    static let durationForms = "30m, 1h, 1h30m, 2d, or minutes alone (90)"
    static let weekForms = "this, next, last, +2 or -1 (weeks from this one), or an ISO week such as 2026-W49"

    // MARK: Days

    /// The day `text` names (midnight), counting relative days from today.
    func day(_ text: String, option: String) throws(UsageError) -> CivilDateTime {
        try day(text, option: option, relativeTo: today)
    }

    /// The day `text` names (midnight); `+3d`, `-1w` count from `base` (as khal counts a relative end from
    /// the start), every other form as ``day(_:option:)`` reads it.
    func day(_ text: String, option: String, relativeTo base: CivilDateTime) throws(UsageError) -> CivilDateTime {
        guard let day = Self.parseDay(text.trimmingCharacters(in: .whitespaces).lowercased(), today: today, base: base)
        else { throw UsageError("\(option) '\(text)' is not a day: give \(Self.dayForms)") }
        return day
    }

    static func parseDay(_ text: String, today: CivilDateTime, base: CivilDateTime) -> CivilDateTime? {
        switch text {
        case "today": return today
        case "tomorrow": return today.adding(days: 1)
        case "yesterday": return today.adding(days: -1)
        default: break
        }
        if let weekday = weekday(text) { return today.adding(days: (weekday - today.isoWeekday + 7) % 7) }
        if let days = relativeDays(text) { return base.date.adding(days: days) }
        if let months = relativeMonths(text) { return adding(months: months, to: base.date) }
        return date(text)
    }

    /// The months of `+1m`, `-2m`, `3m`; nil when `text` is not such an offset.
    static func relativeMonths(_ text: String) -> Int? {
        guard let (count, unit) = offset(text), unit == "m" else { return nil }
        return count
    }

    /// The same day `months` months later (or earlier), the last day of the month when it has no such day
    /// (2026-01-31 + 1m is 2026-02-28).
    static func adding(months: Int, to day: CivilDateTime) -> CivilDateTime {
        var (year, month) = (day.year * 12 + day.month - 1 + months).quotientAndRemainder(dividingBy: 12)
        if month < 0 {
            year -= 1
            month += 12
        }
        let last = CivilDateTime.daysInMonth(year: year, month: month + 1)
        return CivilDateTime(year: year, month: month + 1, day: min(day.day, last))
    }

    /// ISO weekday (Monday = 1) of `mon`, `tues`, `thursday`, …; nil for anything else.
    static func weekday(_ text: String) -> Int? {
        let names = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
        guard text.count >= 3 else { return nil }
        return names.firstIndex { $0.hasPrefix(text) }.map { $0 + 1 }
    }

    /// The days of `+3d`, `-1w`, `3d`, `2w`; nil when `text` is not such an offset.
    static func relativeDays(_ text: String) -> Int? {
        guard let (count, unit) = offset(text), unit == "d" || unit == "w" else { return nil }
        return count * (unit == "w" ? 7 : 1)
    }

    /// `+3d` as 3 and `d`, `-1m` as -1 and `m`: a sign (or none), one to six digits and a unit letter; nil
    /// for anything else.
    static func offset(_ text: String) -> (count: Int, unit: Character)? {
        var rest = Substring(text.lowercased())
        var sign = 1
        if let first = rest.first, first == "+" || first == "-" {
            sign = first == "-" ? -1 : 1
            rest = rest.dropFirst()
        }
        guard let unit = rest.last else { return nil }
        let digits = rest.dropLast()
        guard (1...6).contains(digits.count), digits.allSatisfy(\.isASCII), let count = Int(digits) else { return nil }
        return (sign * count, unit)
    }

    /// `YYYY-MM-DD`, a real day; nil otherwise.
    static func date(_ text: String) -> CivilDateTime? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        let date = CivilDateTime(year: year, month: month, day: day)
        return date.isValid ? date : nil
    }

    // MARK: Times

    /// The time `text` names; a time alone is today.
    func moment(_ text: String, option: String) throws(UsageError) -> TypedMoment {
        try moment(text, option: option, relativeTo: today)
    }

    /// The time `text` names; a time alone is on `base`'s day, and `+1d 10:00` counts from it (an end read
    /// after its start).
    func moment(_ text: String, option: String, relativeTo base: CivilDateTime) throws(UsageError) -> TypedMoment {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if trimmed == "now" { return .instant(now) }
        let (dayText, timeText) = Self.split(trimmed)
        let day: CivilDateTime?
        if let dayText { day = Self.parseDay(dayText, today: today, base: base) } else { day = base.date }
        guard let day, let time = TimeOfDay(timeText) else {
            if Self.parseDay(trimmed, today: today, base: base) != nil {
                throw UsageError("\(option) '\(text)' is a day without a time: add one ('\(trimmed) 10:00')")
            }
            throw UsageError("\(option) '\(text)' is not a time: give \(Self.momentForms)")
        }
        let local = CivilDateTime(
            year: day.year, month: day.month, day: day.day, hour: time.hour, minute: time.minute, second: time.second)
        guard let offset = time.utcOffset else { return .local(local) }
        return .instant(local.secondsSinceEpoch - Int64(offset))
    }

    /// `tomorrow 10:00` → (`tomorrow`, `10:00`); `2026-12-01t09:00` → (`2026-12-01`, `09:00`); `9:30` →
    /// (nil, `9:30`).
    static func split(_ text: String) -> (day: String?, time: String) {
        if let space = text.lastIndex(of: " ") {
            let day = text[..<space].trimmingCharacters(in: .whitespaces)
            return (day, String(text[text.index(after: space)...]))
        }
        if let t = text.firstIndex(of: "t"), date(String(text[..<t])) != nil {
            return (String(text[..<t]), String(text[text.index(after: t)...]))
        }
        return (nil, text)
    }

    /// Where a typed time falls in the zone: exact, moved forward out of a gap, or the first of two in a
    /// fold (``EventDraft/place(_:in:)``, as `add` places every time).
    func place(_ moment: TypedMoment) -> EventDraft.Placement {
        switch moment {
        case .instant(let instant): .exact(instant)
        case .local(let local): EventDraft.place(local, in: zone)
        }
    }

    // MARK: Weeks

    /// The Monday of the week `text` names: `this`, `next`, `last`, `+2`, `-1`, `YYYY-Www`.
    func week(_ text: String, option: String) throws(UsageError) -> CivilDateTime {
        let thisMonday = today.adding(days: 1 - today.isoWeekday)
        let lower = text.trimmingCharacters(in: .whitespaces).lowercased()
        let weeks: Int?
        switch lower {
        case "this": weeks = 0
        case "next": weeks = 1
        case "last": weeks = -1
        default: weeks = Self.signedCount(lower)
        }
        if let weeks { return thisMonday.adding(days: weeks * 7) }
        guard let monday = Self.isoWeekStart(lower) else {
            throw UsageError("\(option) '\(text)' is not a week: give \(Self.weekForms)")
        }
        return monday
    }

    /// `+2`, `-1` (a sign is required, so that `2026` is never read as weeks); nil otherwise.
    static func signedCount(_ text: String) -> Int? {
        guard let first = text.first, first == "+" || first == "-" else { return nil }
        let digits = text.dropFirst()
        guard (1...5).contains(digits.count), digits.allSatisfy(\.isASCII), let count = Int(digits) else { return nil }
        return first == "-" ? -count : count
    }

    /// The Monday of ISO week `YYYY-Www` (week 1 holds the year's first Thursday).
    static func isoWeekStart(_ text: String) -> CivilDateTime? {
        let parts = text.uppercased().split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 4, let year = Int(parts[0]), parts[1].hasPrefix("W"),
            parts[1].count == 3, let week = Int(parts[1].dropFirst()), week >= 1
        else { return nil }
        let january4 = CivilDateTime(year: year, month: 1, day: 4)
        let monday = january4.adding(days: 1 - january4.isoWeekday + (week - 1) * 7)
        // A year has 53 weeks only when week 53's Thursday is still in it.
        guard monday.adding(days: 3).year == year else { return nil }
        return monday
    }

    // MARK: Lengths

    /// Seconds in `30m`, `1h`, `1h30m`, `45min`, `2d`, or minutes alone (`90`).
    static func duration(_ text: String, option: String) throws(UsageError) -> Int64 {
        guard let seconds = parseDuration(text.lowercased().filter { $0 != " " }) else {
            throw UsageError("\(option) '\(text)' is not a length: give \(durationForms)")
        }
        return seconds
    }

    static func parseDuration(_ text: String) -> Int64? {
        if (1...6).contains(text.count), text.allSatisfy(\.isASCII), let minutes = Int64(text) { return minutes * 60 }
        let units: [(String, Int64)] = [("d", 86_400), ("h", 3600), ("min", 60), ("m", 60)]
        var rest = Substring(text)
        var total: Int64 = 0
        var used = Set<Int64>()
        while !rest.isEmpty {
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard (1...6).contains(digits.count), let count = Int64(digits) else { return nil }
            rest = rest.dropFirst(digits.count)
            guard let (unit, seconds) = units.first(where: { rest.hasPrefix($0.0) }), used.insert(seconds).inserted
            else { return nil }
            rest = rest.dropFirst(unit.count)
            total += count * seconds
        }
        return text.isEmpty ? nil : total
    }
}

/// `HH:MM`, `H:MM`, `HH:MM:SS`, `9am`, `9:30pm`, with an optional UTC offset (`Z`, `+01:00`, `+0100`, `-05`).
struct TimeOfDay: Equatable {
    var hour: Int
    var minute: Int
    var second: Int
    /// Seconds east of UTC, when the text gave an offset.
    var utcOffset: Int?

    init?(_ text: String) {
        var clock = Substring(text)
        if clock.hasSuffix("z") {
            utcOffset = 0
            clock = clock.dropLast()
        } else if let sign = clock.lastIndex(where: { $0 == "+" || $0 == "-" }) {
            guard let offset = Self.offset(clock[sign...]) else { return nil }
            utcOffset = offset
            clock = clock[..<sign]
        }
        var half: Int?
        if clock.hasSuffix("am") || clock.hasSuffix("pm") {
            half = clock.hasSuffix("pm") ? 12 : 0
            clock = clock.dropLast(2)
        }
        let fields = clock.split(separator: ":", omittingEmptySubsequences: false)
        let parts = fields.compactMap { Self.number($0) }
        // Hours of one or two digits, minutes and seconds of two; an hour alone only with am or pm.
        guard parts.count == fields.count, (1...3).contains(parts.count), parts.count > 1 || half != nil,
            parts.dropFirst().allSatisfy({ $0.count == 2 })
        else { return nil }
        hour = parts[0].value
        minute = parts.count > 1 ? parts[1].value : 0
        second = parts.count > 2 ? parts[2].value : 0
        if let half {
            guard (1...12).contains(hour) else { return nil }
            hour = hour % 12 + half
        }
        guard (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second) else { return nil }
    }

    /// One or two ASCII digits, with how many there were.
    static func number(_ text: Substring) -> (value: Int, count: Int)? {
        guard (1...2).contains(text.count), text.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(text)
        else { return nil }
        return (value, text.count)
    }

    /// `+01:00`, `+0100`, `-05` in seconds; nil when not an offset up to ±18 hours.
    static func offset(_ text: Substring) -> Int? {
        let sign = text.first == "-" ? -1 : 1
        let digits = text.dropFirst().filter { $0 != ":" }
        guard digits.count == 2 || digits.count == 4, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            let hours = Int(digits.prefix(2)),
            let minutes = Int(digits.dropFirst(2).isEmpty ? "0" : digits.dropFirst(2)),
            hours <= 18, minutes < 60
        else { return nil }
        return sign * (hours * 3600 + minutes * 60)
    }
}
