import Foundation

/// A POSIX TZ string as TZif footers hold it (`CET-1CEST,M3.5.0,M10.5.0/3`, `<+0530>-5:30`,
/// `<-02>2<-01>,M3.5.0/-1,M10.5.0/0`), with RFC 8536's extensions (hours up to 167, negative times).
struct PosixTZRule: Sendable {
    /// A day of the year in one of POSIX's three forms.
    enum Day: Sendable {
        /// `Mm.w.d`: weekday `d` (0 = Sunday) of week `w` (5 = last) of month `m`.
        case monthWeekDay(month: Int, week: Int, weekday: Int)
        /// `Jn`: day 1…365, 29 February never counted.
        case julian(Int)
        /// `n`: day 0…365, 29 February counted.
        case zeroBased(Int)
    }

    /// The abbreviations of standard time and, when there is one, of daylight time.
    var names: [String] = []
    /// Seconds east of UTC in standard time and in daylight time (nil without daylight time).
    var standard: Int
    var daylight: Int?
    /// When daylight time starts (in local standard time) and ends (in local daylight time): the day and
    /// the seconds after its midnight.
    var start: (day: Day, time: Int) = (.julian(1), 0)
    var end: (day: Day, time: Int) = (.julian(1), 0)

    init?(_ text: [UInt8]) {
        var scanner = Scanner(text: text)
        // POSIX offsets count west of UTC.
        guard let standardName = scanner.name(), let west = scanner.duration() else { return nil }
        standard = -west
        names = [standardName]
        guard !scanner.atEnd else { return }
        guard let daylightName = scanner.name() else { return nil }
        names.append(daylightName)
        var daylightWest = west - 3600
        if let byte = scanner.peek(), byte != UInt8(ascii: ",") {
            guard let value = scanner.duration() else { return nil }
            daylightWest = value
        }
        daylight = -daylightWest
        guard scanner.eat(","), let start = scanner.transition(), scanner.eat(","), let end = scanner.transition(),
            scanner.atEnd
        else { return nil }
        self.start = start
        self.end = end
    }

    /// Reads the parts of a POSIX TZ string from left to right.
    private struct Scanner {
        let text: [UInt8]
        var position = 0

        var atEnd: Bool { position >= text.count }

        func peek() -> UInt8? { position < text.count ? text[position] : nil }

        mutating func eat(_ character: Character) -> Bool {
            guard let ascii = character.asciiValue, peek() == ascii else { return false }
            position += 1
            return true
        }

        func isDigit(_ byte: UInt8?) -> Bool { byte.map { $0 >= 0x30 && $0 <= 0x39 } ?? false }

        /// Up to six decimal digits.
        mutating func number() -> Int? {
            var value = 0
            var digits = 0
            while isDigit(peek()), digits < 6, let byte = peek() {
                value = value * 10 + Int(byte - 0x30)
                position += 1
                digits += 1
            }
            return digits > 0 ? value : nil
        }

        /// An abbreviation: `<+0530>` or three letters or more.
        mutating func name() -> String? {
            if eat("<") {
                let from = position
                while let byte = peek(), byte != UInt8(ascii: ">") { position += 1 }
                let name = String(decoding: text[from..<position], as: UTF8.self)
                return position > from && eat(">") ? name : nil
            }
            let from = position
            while let byte = peek(), (byte | 0x20) >= 0x61, (byte | 0x20) <= 0x7A { position += 1 }
            return position - from >= 3 ? String(decoding: text[from..<position], as: UTF8.self) : nil
        }

        /// `[+-]hh[:mm[:ss]]` in seconds.
        mutating func duration() -> Int? {
            let negative = eat("-")
            if !negative { _ = eat("+") }
            guard let hours = number(), hours <= 167 else { return nil }
            var seconds = hours * 3600
            if eat(":") {
                guard let minutes = number(), minutes < 60 else { return nil }
                seconds += minutes * 60
                if eat(":") {
                    guard let rest = number(), rest < 60 else { return nil }
                    seconds += rest
                }
            }
            return negative ? -seconds : seconds
        }

        mutating func day() -> Day? {
            if eat("M") {
                guard let month = number(), (1...12).contains(month), eat("."), let week = number(),
                    (1...5).contains(week), eat("."), let weekday = number(), weekday <= 6
                else { return nil }
                return .monthWeekDay(month: month, week: week, weekday: weekday)
            }
            if eat("J") {
                guard let day = number(), (1...365).contains(day) else { return nil }
                return .julian(day)
            }
            guard let day = number(), day <= 365 else { return nil }
            return .zeroBased(day)
        }

        /// A day with its optional `/time` (02:00 when absent).
        mutating func transition() -> (Day, Int)? {
            guard let day = day() else { return nil }
            guard eat("/") else { return (day, 7200) }
            guard let time = duration() else { return nil }
            return (day, time)
        }
    }

    /// Seconds east of UTC at `instant`: the state set by the latest start or end at or before it, looked
    /// for in the year before, the year and the year after (a rule's times may cross a new year).
    func offset(at instant: Int64) -> Int {
        guard let daylight else { return standard }
        let year = CivilDateTime(secondsSinceEpoch: instant).year
        var latest: (instant: Int64, isDaylight: Bool)?
        for candidateYear in (year - 1)...(year + 1) {
            let starts = Self.midnight(of: start.day, in: candidateYear) + Int64(start.time - standard)
            let ends = Self.midnight(of: end.day, in: candidateYear) + Int64(end.time - daylight)
            for (change, isDaylight) in [(starts, true), (ends, false)] where change <= instant {
                if latest.map({ change > $0.instant }) ?? true { latest = (change, isDaylight) }
            }
        }
        return latest?.isDaylight == true ? daylight : standard
    }

    /// Midnight (as if UTC) of `day` in `year`.
    static func midnight(of day: Day, in year: Int) -> Int64 {
        let january1 = CivilDateTime.days(fromYear: year, month: 1, day: 1)
        switch day {
        case .monthWeekDay(let month, let week, let weekday):
            let first = CivilDateTime(year: year, month: month, day: 1)
            var dayOfMonth = 1 + (weekday - first.isoWeekday % 7 + 7) % 7 + (week - 1) * 7
            while dayOfMonth > CivilDateTime.daysInMonth(year: year, month: month) { dayOfMonth -= 7 }
            return CivilDateTime.days(fromYear: year, month: month, day: dayOfMonth) * 86_400
        case .julian(let number):
            let index = CivilDateTime.isLeap(year) && number >= 60 ? number : number - 1
            return (january1 + Int64(index)) * 86_400
        case .zeroBased(let number):
            return (january1 + Int64(number)) * 86_400
        }
    }
}
