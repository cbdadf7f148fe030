extension RecurrenceMapping {
    /// Writes Graph's `patternedRecurrence` of a series as an RRULE value, exactly or not at all. One
    /// function per Graph pattern type reads that type's properties and writes its rule parts; what all
    /// types share (week start, range, DTSTART) is read by ``series(_:)``.
    struct RRuleWriter {
        let recurrence: GraphPatternedRecurrence
        let graph: GraphRecurrencePattern
        /// Graph's pattern type ("" when missing).
        let type: String
        let interval: Int
        /// The series start's date.
        let start: CivilDateTime

        /// See ``RecurrenceMapping/rrule(from:start:isAllDay:endOfDayToUTC:)``; `start` is a date.
        static func write(
            _ recurrence: GraphPatternedRecurrence, start: CivilDateTime, isAllDay: Bool,
            endOfDayToUTC: (CivilDateTime) -> Int64
        ) throws(Unsupported) -> String {
            let described = describe(recurrence)
            guard let graph = recurrence.pattern else {
                throw Unsupported(rule: described, reason: "the recurrence has no pattern")
            }
            let interval = graph.interval ?? 1
            guard interval >= 1 else {
                throw Unsupported(
                    rule: described, reason: "interval \(interval): Graph's interval is a positive number")
            }
            let writer = RRuleWriter(
                recurrence: recurrence, graph: graph, type: graph.type ?? "", interval: interval, start: start)
            let parts: RRuleParts
            switch writer.type {
            case "daily": parts = try writer.daily()
            case "weekly": parts = try writer.weekly()
            case "absoluteMonthly": parts = try writer.absoluteMonthly()
            case "relativeMonthly": parts = try writer.relativeMonthly()
            case "absoluteYearly": parts = try writer.absoluteYearly()
            case "relativeYearly": parts = try writer.relativeYearly()
            default: throw writer.refuse("pattern type \"\(graph.type ?? "(none)")\" is not one Graph documents")
            }
            return parts.text(interval: interval, isAllDay: isAllDay, endOfDayToUTC: endOfDayToUTC)
        }

        func refuse(_ reason: String) -> Unsupported {
            Unsupported(rule: RecurrenceMapping.describe(recurrence), reason: reason)
        }

        // MARK: One function per Graph pattern type

        /// `daily` → `FREQ=DAILY`.
        func daily() throws(Unsupported) -> RRuleParts {
            try unused(days: true, dayOfMonth: true, month: true, index: true)
            return RRuleParts(frequency: "DAILY", series: try series(.daily))
        }

        /// `weekly` → `FREQ=WEEKLY;BYDAY=…`, with WKST always (Graph's default week start is Sunday).
        func weekly() throws(Unsupported) -> RRuleParts {
            try unused(dayOfMonth: true, month: true, index: true)
            let days = try days()
            var parts = RRuleParts(frequency: "WEEKLY", series: try series(.weekly(days: days)))
            parts.byDay = parts.codes(days)
            return parts
        }

        /// `absoluteMonthly` → `FREQ=MONTHLY;BYMONTHDAY=…` (see ``monthDay(_:month:end:)``).
        func absoluteMonthly() throws(Unsupported) -> RRuleParts {
            try unused(days: true, month: true, index: true)
            let day = try dayOfMonth()
            var parts = RRuleParts(frequency: "MONTHLY", series: try series(.absoluteMonthly(day: day)))
            (parts.byMonthDay, parts.bySetPos) = monthDay(day, month: nil, end: parts.end)
            return parts
        }

        /// `relativeMonthly` → `FREQ=MONTHLY;BYDAY=2TU` or `BYDAY=MO,TU;BYSETPOS=2`.
        func relativeMonthly() throws(Unsupported) -> RRuleParts {
            try unused(dayOfMonth: true, month: true)
            let (days, index) = (try days(), try index())
            var parts = RRuleParts(
                frequency: "MONTHLY", series: try series(.relativeMonthly(days: days, index: index)))
            parts.setRelative(days, index)
            return parts
        }

        /// `absoluteYearly` → `FREQ=YEARLY;BYMONTHDAY=…;BYMONTH=…`.
        func absoluteYearly() throws(Unsupported) -> RRuleParts {
            try unused(days: true, index: true)
            let (month, day) = (try month(), try dayOfMonth())
            var parts = RRuleParts(
                frequency: "YEARLY", series: try series(.absoluteYearly(month: month, day: day)))
            (parts.byMonthDay, parts.bySetPos) = monthDay(day, month: month, end: parts.end)
            parts.byMonth = "\(month)"
            return parts
        }

        /// `relativeYearly` → `FREQ=YEARLY;BYDAY=…;BYMONTH=…` (+ `BYSETPOS`).
        func relativeYearly() throws(Unsupported) -> RRuleParts {
            try unused(dayOfMonth: true)
            let (month, days, index) = (try month(), try days(), try index())
            var parts = RRuleParts(
                frequency: "YEARLY", series: try series(.relativeYearly(month: month, days: days, index: index)))
            parts.setRelative(days, index)
            parts.byMonth = "\(month)"
            return parts
        }

        // MARK: What every pattern shares

        /// `firstDayOfWeek` (Sunday, Graph's default, for a weekly pattern), the range, and whether the series
        /// start is an occurrence of `pattern` (DTSTART always counts in iCalendar).
        func series(_ pattern: Pattern) throws(Unsupported) -> (firstDayOfWeek: Int?, end: End) {
            var firstDayOfWeek = try graph.firstDayOfWeek.map { (name) throws(Unsupported) in
                try weekday(name, "firstDayOfWeek")
            }
            if case .weekly = pattern, firstDayOfWeek == nil { firstDayOfWeek = 0 }
            let end = try range()
            guard matches(pattern, start) else {
                throw refuse(
                    "the series start \(start.dateString) is not an occurrence of the pattern: "
                        + "DTSTART always counts in iCalendar"
                )
            }
            return (firstDayOfWeek, end)
        }

        /// Graph's range → how the series ends; `range.startDate`, when given, must be the series start.
        func range() throws(Unsupported) -> End {
            guard let range = recurrence.range else { throw refuse("the recurrence has no range") }
            if let text = range.startDate {
                guard let startDate = GraphTimestamp.parse(text)?.civil.date else {
                    throw refuse("range.startDate \"\(text)\" is not a date")
                }
                guard startDate == start else {
                    throw refuse(
                        "range.startDate \(startDate.dateString) is not the series start \(start.dateString): "
                            + "DTSTART always counts in iCalendar"
                    )
                }
            }
            switch range.type {
            case "noEnd":
                return .never
            case "numbered":
                guard let count = range.numberOfOccurrences, count >= 1 else {
                    throw refuse(
                        "numberOfOccurrences \(range.numberOfOccurrences.map(String.init) ?? "(none)") is not positive")
                }
                return .count(count)
            case "endDate":
                guard let text = range.endDate, let last = GraphTimestamp.parse(text)?.civil.date else {
                    throw refuse("range endDate \"\(range.endDate ?? "(none)")\" is not a date")
                }
                guard last >= start else {
                    throw refuse("range endDate \(last.dateString) is before the series start \(start.dateString)")
                }
                return .date(last)
            default:
                throw refuse("range type \"\(range.type ?? "(none)")\" is not noEnd, numbered or endDate")
            }
        }

        /// Graph's day `day` → BYMONTHDAY (+ BYSETPOS), exact also where Graph moves it to a month's end: the
        /// day itself while the series never reaches a shorter month, else `-1` for the month's longest day
        /// and `28,…,day;BYSETPOS=-1` ("the last of these that exists") for a shorter one.
        func monthDay(_ day: Int, month: Int?, end: End) -> (byMonthDay: String, bySetPos: String?) {
            let longest = month.map(longestMonth) ?? 31
            let day = min(day, longest)
            let step = month == nil ? interval : 12 * interval
            guard visitsShortMonth(day: day, from: start, everyMonths: step, end: end) else { return ("\(day)", nil) }
            if day == longest { return ("-1", nil) }
            return ((28...day).map(String.init).joined(separator: ","), "-1")
        }

        // MARK: Graph's properties, checked

        func weekday(_ name: String, _ property: String) throws(Unsupported) -> Int {
            guard let day = GraphMappings.weekdays.firstIndex(where: { $0.graph == name.lowercased() }) else {
                throw refuse("\(property) \"\(name)\" is not a day of the week")
            }
            return day
        }

        func days() throws(Unsupported) -> [Int] {
            var result: Set<Int> = []
            for name in graph.daysOfWeek ?? [] { result.insert(try weekday(name, "daysOfWeek")) }
            guard !result.isEmpty else { throw refuse("a \(type) pattern without daysOfWeek") }
            return result.sorted()
        }

        func index() throws(Unsupported) -> Int {
            let name = graph.index ?? "first"
            guard let value = GraphMappings.weekIndex[name.lowercased()] else {
                throw refuse("index \"\(name)\" is not first, second, third, fourth or last")
            }
            return value
        }

        func dayOfMonth() throws(Unsupported) -> Int {
            guard let day = graph.dayOfMonth, (1...31).contains(day) else {
                throw refuse("dayOfMonth \(graph.dayOfMonth.map(String.init) ?? "(none)") is not a day 1…31")
            }
            return day
        }

        func month() throws(Unsupported) -> Int {
            guard let month = graph.month, (1...12).contains(month) else {
                throw refuse("month \(graph.month.map(String.init) ?? "(none)") is not a month 1…12")
            }
            return month
        }

        /// Graph sends every property with every type; those the type does not use must be its fillers.
        func unused(days: Bool = false, dayOfMonth: Bool = false, month: Bool = false, index: Bool = false)
            throws(Unsupported)
        {
            if days, let list = graph.daysOfWeek, !list.isEmpty {
                throw refuse("daysOfWeek \(list.joined(separator: ",")) on a \(type) pattern, which has no weekdays")
            }
            if dayOfMonth, let day = graph.dayOfMonth, day != 0 {
                throw refuse("dayOfMonth \(day) on a \(type) pattern, which has no day of the month")
            }
            if month, let value = graph.month, value != 0 {
                throw refuse("month \(value) on a \(type) pattern, which has no month")
            }
            if index, let name = graph.index, name.lowercased() != "first" {
                throw refuse("index \"\(name)\" on a \(type) pattern: Graph uses index only for relative patterns")
            }
        }
    }

    /// An RRULE's parts as ``RRuleWriter`` writes them: `FREQ`, `INTERVAL` (when not 1), `BYDAY`,
    /// `BYMONTHDAY`, `BYMONTH`, `BYSETPOS`, `WKST`, then `COUNT` or `UNTIL`.
    struct RRuleParts {
        var frequency: String
        /// 0 (Sunday) … 6 (Saturday); written as WKST when set.
        var firstDayOfWeek: Int?
        var end: End
        var byDay: String?
        var byMonthDay: String?
        var byMonth: String?
        var bySetPos: String?

        init(frequency: String, series: (firstDayOfWeek: Int?, end: End)) {
            self.frequency = frequency
            firstDayOfWeek = series.firstDayOfWeek
            end = series.end
        }

        /// Weekday codes listed from the week start that will apply (WKST, else RFC 5545's Monday).
        func codes(_ days: [Int]) -> String {
            let weekStart = firstDayOfWeek ?? 1
            return days.sorted { ($0 - weekStart + 7) % 7 < ($1 - weekStart + 7) % 7 }
                .map { GraphMappings.weekdays[$0].ical }.joined(separator: ",")
        }

        /// One weekday with a position → `BYDAY=2TU`; several → `BYDAY=MO,TU;BYSETPOS=2`.
        mutating func setRelative(_ days: [Int], _ index: Int) {
            if days.count == 1 {
                byDay = "\(index)\(codes(days))"
            } else {
                byDay = codes(days)
                bySetPos = "\(index)"
            }
        }

        /// The RRULE value. For a timed series UNTIL is the end of the last day (23:59:59 in the recurrence
        /// zone) in UTC, as `endOfDayToUTC` converts it; for an all-day one that day as a DATE.
        func text(interval: Int, isAllDay: Bool, endOfDayToUTC: (CivilDateTime) -> Int64) -> String {
            var parts = ["FREQ=\(frequency)"]
            if interval != 1 { parts.append("INTERVAL=\(interval)") }
            if let byDay { parts.append("BYDAY=\(byDay)") }
            if let byMonthDay { parts.append("BYMONTHDAY=\(byMonthDay)") }
            if let byMonth { parts.append("BYMONTH=\(byMonth)") }
            if let bySetPos { parts.append("BYSETPOS=\(bySetPos)") }
            if let firstDayOfWeek { parts.append("WKST=\(GraphMappings.weekdays[firstDayOfWeek].ical)") }
            switch end {
            case .never:
                break
            case .count(let count):
                parts.append("COUNT=\(count)")
            case .date(let last) where isAllDay:
                parts.append("UNTIL=\(RecurrenceMapping.compact(last, time: false))")
            case .date(let last):
                var endOfDay = last
                endOfDay.hour = 23
                endOfDay.minute = 59
                endOfDay.second = 59
                let utc = CivilDateTime(secondsSinceEpoch: endOfDayToUTC(endOfDay))
                parts.append("UNTIL=\(RecurrenceMapping.compact(utc, time: true))Z")
            }
            return parts.joined(separator: ";")
        }
    }

    /// `20260630` or `20260630T215959`.
    static func compact(_ time: CivilDateTime, time withTime: Bool) -> String {
        let pad = CivilDateTime.pad
        let date = pad(time.year, 4) + pad(time.month, 2) + pad(time.day, 2)
        guard withTime else { return date }
        return date + "T" + pad(time.hour, 2) + pad(time.minute, 2) + pad(time.second, 2)
    }

    /// Graph's recurrence in one line, for ``Unsupported/rule``.
    static func describe(_ recurrence: GraphPatternedRecurrence) -> String {
        var words: [String] = []
        if let pattern = recurrence.pattern {
            words.append(pattern.type ?? "(no type)")
            if let value = pattern.interval { words.append("interval=\(value)") }
            if let value = pattern.daysOfWeek, !value.isEmpty {
                words.append("daysOfWeek=\(value.joined(separator: ","))")
            }
            if let value = pattern.index { words.append("index=\(value)") }
            if let value = pattern.month, value != 0 { words.append("month=\(value)") }
            if let value = pattern.dayOfMonth, value != 0 { words.append("dayOfMonth=\(value)") }
            if let value = pattern.firstDayOfWeek { words.append("firstDayOfWeek=\(value)") }
        } else {
            words.append("(no pattern)")
        }
        if let range = recurrence.range {
            words.append("|")
            words.append(range.type ?? "(no range type)")
            switch range.type {
            case "endDate": words.append(range.endDate ?? "(no endDate)")
            case "numbered": words.append(range.numberOfOccurrences.map(String.init) ?? "(no number)")
            default: break
            }
            if let value = range.startDate { words.append("from \(value)") }
        }
        return words.joined(separator: " ")
    }
}
