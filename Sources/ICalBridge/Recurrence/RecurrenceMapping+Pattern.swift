/// The shapes Graph holds, and Graph's semantics for them, shared by both directions of the mapping.
extension RecurrenceMapping {
    /// One of Graph's pattern types with what it needs, validated. Weekdays are 0 (Sunday) … 6 (Saturday),
    /// the order of ``GraphMappings/weekdays``; an `index` is 1…4 or -1 (last).
    enum Pattern: Equatable {
        case daily
        case weekly(days: [Int])
        case absoluteMonthly(day: Int)
        case relativeMonthly(days: [Int], index: Int)
        case absoluteYearly(month: Int, day: Int)
        case relativeYearly(month: Int, days: [Int], index: Int)
    }

    /// How a series ends. `date` is the last date an occurrence may fall on (Graph's inclusive `endDate`).
    enum End: Equatable {
        case never
        case count(Int)
        case date(CivilDateTime)
    }

    /// Whether `date` is a day of `pattern`, with Graph's semantics (day 29–31 moves to a shorter month's
    /// last day); the interval is not considered (the series start is its own phase).
    static func matches(_ pattern: Pattern, _ date: CivilDateTime) -> Bool {
        let length = CivilDateTime.daysInMonth(year: date.year, month: date.month)
        switch pattern {
        case .daily:
            return true
        case .weekly(let days):
            return days.contains(weekday(date))
        case .absoluteMonthly(let day):
            return date.day == min(day, length)
        case .relativeMonthly(let days, let index):
            return date.day == relativeDay(year: date.year, month: date.month, days: days, index: index)
        case .absoluteYearly(let month, let day):
            return date.month == month && date.day == min(day, length)
        case .relativeYearly(let month, let days, let index):
            return date.month == month
                && date.day == relativeDay(year: date.year, month: date.month, days: days, index: index)
        }
    }

    /// The day of the month that is the `index`-th (1…4, -1 last) of the days whose weekday is in `days`.
    static func relativeDay(year: Int, month: Int, days: [Int], index: Int) -> Int? {
        let length = CivilDateTime.daysInMonth(year: year, month: month)
        let firstWeekday = weekday(CivilDateTime(year: year, month: month, day: 1))
        let candidates = (1...length).filter { days.contains((firstWeekday + $0 - 1) % 7) }
        let position = index > 0 ? index - 1 : candidates.count + index
        return candidates.indices.contains(position) ? candidates[position] : nil
    }

    /// Whether a series on day `day` (29…31) of the month, repeating every `step` months from `start`'s
    /// month, reaches a month shorter than `day` before it ends. Graph moves the occurrence to that month's
    /// last day where iCalendar skips the month, so such a series has no plain `BYMONTHDAY=day` twin.
    /// 400 years of months (the Gregorian cycle) decide a series without end exactly.
    static func visitsShortMonth(day: Int, from start: CivilDateTime, everyMonths step: Int, end: End) -> Bool {
        guard day >= 29, step > 0 else { return false }
        var monthIndex = start.year * 12 + (start.month - 1)
        for visit in 0..<4800 {
            if case .count(let count) = end, visit >= count { return false }
            let year = monthIndex / 12
            let month = monthIndex % 12 + 1
            let length = CivilDateTime.daysInMonth(year: year, month: month)
            if case .date(let last) = end, CivilDateTime(year: year, month: month, day: min(day, length)) > last {
                return false
            }
            if length < day { return true }
            monthIndex += step
        }
        return false
    }

    /// 0 (Sunday) … 6 (Saturday).
    static func weekday(_ date: CivilDateTime) -> Int { date.isoWeekday % 7 }

    /// The longest a month can be (February: 29).
    static func longestMonth(_ month: Int) -> Int { CivilDateTime.daysInMonth(year: 2000, month: month) }

    /// Graph's name of a relative pattern's `index` (1 → "first", -1 → "last").
    static func indexName(_ index: Int) -> String {
        GraphMappings.weekIndex.first { $0.value == index }?.key ?? "first"
    }
}

extension RecurrenceMapping {
    /// A series' recurrence in a shape Graph holds: what an RRULE is read into before it becomes Graph's
    /// `patternedRecurrence`.
    struct GraphShape: Equatable {
        var pattern: Pattern
        var interval: Int
        /// 0 (Sunday) … 6 (Saturday): from an explicit `WKST`, or Monday (RFC 5545's default) for weekly
        /// patterns; nil leaves Graph's `firstDayOfWeek` out.
        var firstDayOfWeek: Int?
        var end: End

        /// Graph's `patternedRecurrence` of a series that starts on `start`'s date.
        func graphRecurrence(start: CivilDateTime, recurrenceTimeZone: String?) -> GraphPatternedRecurrence {
            func names(_ days: [Int]) -> [String] { days.map { GraphMappings.weekdays[$0].graph } }
            var graph = GraphRecurrencePattern(type: nil, interval: interval)
            switch pattern {
            case .daily:
                graph.type = "daily"
            case .weekly(let days):
                graph.type = "weekly"
                graph.daysOfWeek = names(days)
            case .absoluteMonthly(let day):
                graph.type = "absoluteMonthly"
                graph.dayOfMonth = day
            case .relativeMonthly(let days, let index):
                graph.type = "relativeMonthly"
                graph.daysOfWeek = names(days)
                graph.index = RecurrenceMapping.indexName(index)
            case .absoluteYearly(let month, let day):
                graph.type = "absoluteYearly"
                graph.month = month
                graph.dayOfMonth = day
            case .relativeYearly(let month, let days, let index):
                graph.type = "relativeYearly"
                graph.month = month
                graph.daysOfWeek = names(days)
                graph.index = RecurrenceMapping.indexName(index)
            }
            graph.firstDayOfWeek = firstDayOfWeek.map { GraphMappings.weekdays[$0].graph }
            return GraphPatternedRecurrence(pattern: graph, range: range(start: start, zone: recurrenceTimeZone))
        }

        /// Graph's `range`: `noEnd`, `numbered` or `endDate`, from `start`'s date.
        private func range(start: CivilDateTime, zone: String?) -> GraphRecurrenceRange {
            var range = GraphRecurrenceRange(type: "noEnd", startDate: start.dateString)
            switch end {
            case .never:
                break
            case .count(let count):
                range.type = "numbered"
                range.numberOfOccurrences = count
            case .date(let last):
                range.type = "endDate"
                range.endDate = last.dateString
            }
            range.recurrenceTimeZone = zone
            return range
        }
    }
}
