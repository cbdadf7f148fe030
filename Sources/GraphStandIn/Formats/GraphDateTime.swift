// How Graph writes and reads date-times (`2026-12-01T08:00:00.0000000`, ISO 8601 with `Z` or an offset), and
// the proleptic Gregorian arithmetic behind them.
import Foundation

/// A wall-clock date-time as Graph writes it, with an optional UTC offset when the text carried one.
struct GraphDateTime: Equatable {
    var year: Int
    var month: Int
    var day: Int
    var hour: Int
    var minute: Int
    var second: Int
    /// Sub-second part in 100-nanosecond ticks (Graph writes seven fractional digits).
    var ticks: Int
    /// Seconds east of UTC when the text ended in `Z` or `±hh:mm`; nil for a bare local time.
    var offset: Int?

    /// Parses `YYYY-MM-DDTHH:MM[:SS[.fffffff]][Z|±HH:MM|±HHMM]`, or a bare `YYYY-MM-DD` (midnight).
    init?(_ text: String) {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ digits: Int) -> Int? {
            guard index + digits <= bytes.count else { return nil }
            var value = 0
            for _ in 0..<digits {
                let byte = bytes[index]
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
                index += 1
            }
            return value
        }
        func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
        guard let year = number(4), take(0x2D), let month = number(2), take(0x2D), let day = number(2) else {
            return nil
        }
        self.year = year
        self.month = month
        self.day = day
        hour = 0
        minute = 0
        second = 0
        ticks = 0
        offset = nil
        if index < bytes.count {
            guard take(0x54) || take(0x74) || take(0x20), let hour = number(2), take(0x3A), let minute = number(2)
            else { return nil }
            self.hour = hour
            self.minute = minute
            if take(0x3A) {
                guard let second = number(2) else { return nil }
                self.second = second
                if take(0x2E) {
                    var digits = 0
                    var value = 0
                    while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                        if digits < 7 { value = value * 10 + Int(bytes[index] - 0x30) }
                        digits += 1
                        index += 1
                    }
                    guard digits > 0 else { return nil }
                    for _ in digits..<max(digits, 7) { value *= 10 }
                    ticks = value
                }
            }
            if take(0x5A) || take(0x7A) {
                offset = 0
            } else if index < bytes.count, bytes[index] == 0x2B || bytes[index] == 0x2D {
                let sign = bytes[index] == 0x2D ? -1 : 1
                index += 1
                guard let hours = number(2) else { return nil }
                _ = take(0x3A)
                guard let minutes = number(2), hours < 24, minutes < 60 else { return nil }
                offset = sign * (hours * 3600 + minutes * 60)
            }
        }
        guard index == bytes.count, (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60,
            second < 61, day <= GraphDateTime.daysIn(month: month, year: year)
        else { return nil }
    }

    init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, ticks: Int = 0, offset: Int? = nil) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.ticks = ticks
        self.offset = offset
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01.
    static func civil(days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Seconds since the epoch of this wall-clock time read as UTC (ignoring `offset`).
    var secondsAsUTC: Int {
        GraphDateTime.days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
    }

    /// The instant this wall-clock time denotes in `zone` (`offset`, when present, wins over the zone).
    ///
    /// A time in a spring-forward gap moves forward by the gap; a time in a fall-back fold takes the first
    /// (daylight) occurrence, as Exchange does.
    func instant(in zone: TimeZone) -> Date {
        let fraction = Double(ticks) / 10_000_000
        let local = secondsAsUTC
        if let offset { return Date(timeIntervalSince1970: Double(local - offset) + fraction) }
        // The offsets a day either side cover at most one transition; keep those that map back to `local`.
        let before = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(local - 86_400)))
        let after = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(local + 86_400)))
        let readings = Set([before, after]).map { local - $0 }.filter {
            local - $0 == zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double($0)))
        }
        // Fold: the earlier instant. Gap: read with the offset before the gap, which moves it forward.
        let utc = readings.min() ?? local - before
        return Date(timeIntervalSince1970: Double(utc) + fraction)
    }

    /// How many instants this wall-clock time names in `zone`: 0 in a gap (clocks go forward), 2 in a fold
    /// (clocks go back), 1 otherwise; 1 when the text carried an offset.
    func readings(in zone: TimeZone) -> Int {
        guard offset == nil else { return 1 }
        let local = secondsAsUTC
        let offsets = Set(
            stride(from: -26, through: 26, by: 2).map {
                zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(local + $0 * 3600)))
            })
        return offsets.filter {
            zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(local - $0))) == $0
        }.count
    }

    /// The wall-clock reading of `date` in `zone`.
    init(_ date: Date, in zone: TimeZone) {
        let allTicks = Int((date.timeIntervalSince1970 * 10_000_000).rounded())
        var seconds = allTicks / 10_000_000
        var ticks = allTicks % 10_000_000
        if ticks < 0 {
            ticks += 10_000_000
            seconds -= 1
        }
        let offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds)))
        let local = seconds + offset
        var days = local / 86_400
        var rest = local % 86_400
        if rest < 0 {
            rest += 86_400
            days -= 1
        }
        let (year, month, day) = GraphDateTime.civil(days: days)
        self.init(
            year: year, month: month, day: day, hour: rest / 3600, minute: rest / 60 % 60, second: rest % 60,
            ticks: ticks, offset: offset)
    }

    /// `2026-12-01T08:00:00.0000000`, the form of `dateTimeTimeZone.dateTime`.
    var graphText: String {
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))."
            + pad(ticks, 7)
    }

    /// The same wall-clock time `days` days later.
    func adding(days count: Int) -> GraphDateTime {
        let (y, m, d) = GraphDateTime.civil(days: GraphDateTime.days(year: year, month: month, day: day) + count)
        var copy = self
        copy.year = y
        copy.month = m
        copy.day = d
        return copy
    }

    /// ISO weekday: 0 = Sunday … 6 = Saturday.
    var weekday: Int {
        let days = GraphDateTime.days(year: year, month: month, day: day)
        return ((days % 7) + 11) % 7
    }
}
