/// Whether a recurrence rule can occur at all, judged from its parts and period by period, so that graph-ics
/// never hands libical a rule it would search for an occurrence that does not come.
///
/// libical 3.0 searches a monthly or yearly rule for its first occurrence month by month (year by year) up
/// to the year 20000 before it gives up on one that never occurs: about two seconds a rule.
extension RecurrenceRule {
    /// Why the rule can never occur from `start` on; nil when it may occur.
    ///
    /// First from its parts alone (``neverOccursByItsParts``), then, for a monthly or yearly rule, period by
    /// period (``occursInSomePeriod(from:)``): a rule whose INTERVAL never reaches a month of its BYMONTH,
    /// or whose BYSETPOS picks beyond the one day DTSTART gives it, is found there.
    func neverOccurs(from start: CivilDateTime) -> String? {
        if let reason = neverOccursByItsParts { return reason }
        if occursInSomePeriod(from: start) == false {
            return "no \(frequency == .yearly ? "year" : "month") it reaches has a day that matches all of its parts"
        }
        return nil
    }

    /// Why the rule's parts alone say it never occurs: no month of BYMONTH has a day of BYMONTHDAY
    /// (`BYMONTH=2;BYMONTHDAY=30`), or no BYSETPOS can pick from sets as small as one period can hold
    /// (`FREQ=MONTHLY;BYDAY=MO;BYSETPOS=10`). Nil when the parts allow an occurrence, or the rule cannot
    /// be read.
    var neverOccursByItsParts: String? {
        guard let frequency else { return nil }
        let months = byMonth.filter { (1...12).contains($0) }
        if !byMonthDay.isEmpty,
            !(months.isEmpty ? Array(1...12) : months).contains(where: { month in
                let length = CivilDateTime.daysInMonth(year: 2024, month: month)  // a leap year: 29 February
                return byMonthDay.contains { $0 != 0 && abs($0) <= length }
            })
        {
            return "no month of its BYMONTH has a day of its BYMONTHDAY"
        }
        guard !bySetPos.isEmpty else { return nil }
        let largest = largestDaySet(frequency, months: months.count) * largestTimeSet
        if bySetPos.allSatisfy({ $0 == 0 || abs($0) > largest }) {
            return "BYSETPOS picks beyond the \(largest) occurrences a period can hold"
        }
        return nil
    }

    /// The most days one period of the rule can hold: the period's days, fewer when BYMONTHDAY or BYDAY
    /// (outside a daily rule) lists fewer. `months` counts the BYMONTH values that are months 1…12.
    private func largestDaySet(_ frequency: Frequency, months: Int) -> Int {
        var days: Int
        switch frequency {
        case .yearly: days = 366
        case .monthly: days = 31
        case .weekly: days = 7
        default: days = 1
        }
        if !byMonthDay.isEmpty { days = min(days, byMonthDay.count * max(1, months)) }
        let weekdays = Set(byDay.map(\.weekday))
        if !weekdays.isEmpty, frequency != .daily {
            let perWeekday: Int
            switch frequency {
            case .weekly: perWeekday = 1
            case .monthly: perWeekday = 5
            default: perWeekday = 53
            }
            days = min(days, weekdays.count * perWeekday)
        }
        return days
    }

    /// The most times of day one day of the rule holds: the product of its BYHOUR, BYMINUTE and BYSECOND
    /// counts.
    private var largestTimeSet: Int {
        max(1, byHour.count) * max(1, byMinute.count) * max(1, bySecond.count)
    }

    /// Whether a monthly or yearly rule has an occurrence in one of the periods libical searches for its
    /// first one: every INTERVAL-th month (year) from `start`'s, over one 400-year Gregorian cycle, after
    /// which the periods repeat. When this says yes, libical's search ends at the latest 400 years on.
    ///
    /// The day set of each period follows RFC 5545: BYMONTH limits; BYDAY (with its positions, within the
    /// month, or the year for a yearly rule with neither BYMONTH nor BYMONTHDAY) and BYMONTHDAY expand,
    /// BYDAY limits when both are given; neither gives DTSTART's day; BYSETPOS picks from the days. Where
    /// libical reads RFC 5545 its own way, this follows libical: BYSETPOS picks among days, not times of
    /// day; a yearly rule without BYMONTH keeps to DTSTART's month.
    ///
    /// Nil for other frequencies and for parts left to libical (BYWEEKNO, BYYEARDAY, a yearly BYDAY
    /// position with BYMONTHDAY but no BYMONTH).
    func occursInSomePeriod(from start: CivilDateTime) -> Bool? {
        guard frequency == .monthly || frequency == .yearly, byWeekNo.isEmpty, byYearDay.isEmpty else {
            return nil
        }
        let periods = PeriodDays(self, start: start)
        return frequency == .yearly ? periods.someYearMatches() : periods.someMonthMatches()
    }
}

/// The days a monthly or yearly rule gives each of its periods (see
/// ``RecurrenceRule/occursInSomePeriod(from:)``).
private struct PeriodDays {
    let byMonth: Set<Int>
    let byMonthDay: [Int]
    let byDay: [(position: Int, isoWeekday: Int)]
    let bySetPos: [Int]
    let interval: Int
    let start: CivilDateTime

    init(_ recurrenceRule: RecurrenceRule, start: CivilDateTime) {
        byMonth = Set(recurrenceRule.byMonth)
        byMonthDay = recurrenceRule.byMonthDay
        byDay = recurrenceRule.byDay.map { ($0.position, $0.isoWeekday) }
        bySetPos = recurrenceRule.bySetPos
        interval = max(1, recurrenceRule.interval)
        self.start = start
    }

    /// Whether BYSETPOS (if any) picks one of `days` days: libical picks among the period's days, not among
    /// its times of day.
    func picks(_ days: Int) -> Bool {
        days > 0 && (bySetPos.isEmpty || bySetPos.contains { $0 != 0 && abs($0) <= days })
    }

    /// Every INTERVAL-th month from `start`'s, over 400 years (4,800 months).
    func someMonthMatches() -> Bool {
        let first = start.year * 12 + start.month - 1
        for step in 0..<(4_800 / Self.greatestCommonDivisor(4_800, interval)) {
            let index = first + step * interval
            let (year, month) = (index / 12, index % 12 + 1)
            if (byMonth.isEmpty || byMonth.contains(month)) && picks(days(year: year, month: month)) { return true }
        }
        return false
    }

    /// Every INTERVAL-th year from `start`'s, over 400 years; nil for a BYDAY position with BYMONTHDAY but no
    /// BYMONTH, which this does not model.
    func someYearMatches() -> Bool? {
        if byMonth.isEmpty, !byMonthDay.isEmpty, byDay.contains(where: { $0.position != 0 }) { return nil }
        let inTheWholeYear = byMonth.isEmpty && byMonthDay.isEmpty && !byDay.isEmpty
        // Without BYMONTH libical keeps to DTSTART's month (RFC 5545 would take every month for BYMONTHDAY).
        let months = !byMonth.isEmpty ? byMonth.filter { (1...12).contains($0) }.sorted() : [start.month]
        for step in 0..<(400 / Self.greatestCommonDivisor(400, interval)) {
            let year = start.year + step * interval
            let count =
                inTheWholeYear ? weekdaysInYear(year) : months.reduce(0) { $0 + days(year: year, month: $1) }
            if picks(count) { return true }
        }
        return false
    }

    /// The days of one month the rule's day parts give (BYMONTH aside).
    func days(year: Int, month: Int) -> Int {
        let length = CivilDateTime.daysInMonth(year: year, month: month)
        var monthDays: UInt64 = 0
        for day in byMonthDay where day != 0 && abs(day) <= length {
            monthDays |= 1 << UInt64(day > 0 ? day : length + 1 + day)
        }
        guard !byDay.isEmpty else {
            if !byMonthDay.isEmpty { return monthDays.nonzeroBitCount }
            return start.day <= length ? 1 : 0
        }
        let firstWeekday = CivilDateTime(year: year, month: month, day: 1).isoWeekday
        var weekdays: UInt64 = 0
        for (position, weekday) in byDay {
            let first = 1 + (weekday - firstWeekday + 7) % 7
            let count = (length - first) / 7 + 1
            if position == 0 {
                for index in 0..<count { weekdays |= 1 << UInt64(first + 7 * index) }
            } else if abs(position) <= count {
                weekdays |= 1 << UInt64(first + 7 * (position > 0 ? position - 1 : count + position))
            }
        }
        return (byMonthDay.isEmpty ? weekdays : weekdays & monthDays).nonzeroBitCount
    }

    /// The days BYDAY gives a whole year (a yearly rule with neither BYMONTH nor BYMONTHDAY), counted per
    /// BYDAY value.
    func weekdaysInYear(_ year: Int) -> Int {
        let length = CivilDateTime.isLeap(year) ? 366 : 365
        let firstWeekday = CivilDateTime(year: year, month: 1, day: 1).isoWeekday
        var count = 0
        for (position, weekday) in byDay {
            let first = 1 + (weekday - firstWeekday + 7) % 7
            let inYear = (length - first) / 7 + 1
            count += position == 0 ? inYear : abs(position) <= inYear ? 1 : 0
        }
        return count
    }

    static func greatestCommonDivisor(_ a: Int, _ b: Int) -> Int { b == 0 ? a : greatestCommonDivisor(b, a % b) }
}
