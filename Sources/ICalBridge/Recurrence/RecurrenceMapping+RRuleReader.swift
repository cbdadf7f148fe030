extension RecurrenceMapping {
    /// An RRULE's parts as written: their names and texts, so that reasons can quote them and libical's
    /// silent readings (a duplicate part overwrites the first, an empty part ends the rule) never go
    /// unnoticed.
    struct WrittenParts {
        /// The RRULE as the caller gave it (named in ``Unsupported/rule``).
        let rrule: String
        /// What libical reads: the value trimmed, without a leading `RRULE:`.
        let body: String
        /// The text of each part by its upper-cased name.
        private(set) var texts: [String: String] = [:]
        /// The names in the order written.
        private(set) var names: [String] = []

        private static let knownNames: Set<String> = [
            "FREQ", "UNTIL", "COUNT", "INTERVAL", "BYSECOND", "BYMINUTE", "BYHOUR", "BYDAY", "BYMONTHDAY",
            "BYYEARDAY", "BYWEEKNO", "BYMONTH", "BYSETPOS", "WKST", "RSCALE", "SKIP",
        ]

        /// Splits `rrule` into its parts; refuses a part that is not NAME=VALUE, a name written twice or not
        /// in RFC 5545 or RFC 7529, the RFC 7529 parts, a missing FREQ, and COUNT together with UNTIL.
        init(_ rrule: String) throws(Unsupported) {
            self.rrule = rrule
            var body = Substring(rrule.trimmingCharacters(in: .whitespacesAndNewlines))
            if body.uppercased().hasPrefix("RRULE:") { body = body.dropFirst(6) }
            self.body = String(body)
            var pieces = body.split(separator: ";", omittingEmptySubsequences: false)
            if pieces.last?.isEmpty == true { pieces.removeLast() }
            for piece in pieces {
                guard let equals = piece.firstIndex(of: "="), equals != piece.startIndex else {
                    throw refuse("\"\(piece)\" is not a NAME=VALUE rule part")
                }
                let name = piece[..<equals].uppercased()
                guard texts[name] == nil else { throw refuse("\(name) appears more than once") }
                texts[name] = String(piece[piece.index(after: equals)...])
                names.append(name)
            }
            if let unknown = names.first(where: { !Self.knownNames.contains($0) }) {
                throw refuse("unknown rule part \(quote(unknown))")
            }
            for name in ["RSCALE", "SKIP"] where has(name) {
                throw refuse(
                    "\(quote(name)): Graph repeats in the Gregorian calendar only (RFC 7529 rules are not held)")
            }
            guard has("FREQ") else { throw refuse("FREQ is missing") }
            if has("COUNT") && has("UNTIL") {
                throw refuse("COUNT together with UNTIL: a rule ends one way or the other (RFC 5545 §3.3.10)")
            }
        }

        func has(_ name: String) -> Bool { texts[name] != nil }

        /// `NAME=text` as written.
        func quote(_ name: String) -> String { "\(name)=\(texts[name] ?? "")" }

        func refuse(_ reason: String) -> Unsupported { Unsupported(rule: rrule, reason: reason) }
    }

    /// Reads one RRULE of a series into the shape Graph holds, or says why Graph cannot hold it, from the
    /// RRULE as written (``WrittenParts``) and as libical reads it (``RecurrenceRule``).
    struct RRuleReader {
        /// The rule parts Graph never holds, and the reason given for each.
        private static let refusedParts: [(name: String, reason: String)] = [
            ("BYSECOND", "Graph repeats a series at its start's time of day only"),
            ("BYMINUTE", "Graph repeats a series at its start's time of day only"),
            ("BYHOUR", "Graph repeats a series at its start's time of day only"),
            ("BYWEEKNO", "Graph has no week-of-year patterns"),
            ("BYYEARDAY", "Graph has no day-of-year patterns"),
        ]

        let written: WrittenParts
        let recurrenceRule: RecurrenceRule
        /// DTSTART (see ``RecurrenceMapping/graphRecurrence(rrule:start:isAllDay:recurrenceTimeZone:untilToLocal:)``).
        let start: CivilDateTime
        let isAllDay: Bool

        /// DTSTART's date.
        var startDay: CivilDateTime { start.date }

        /// `rrule` of a series from `start` → the shape Graph holds.
        static func read(
            _ rrule: String, start: CivilDateTime, isAllDay: Bool, untilToLocal: (Int64) -> CivilDateTime
        ) throws(Unsupported) -> GraphShape {
            let written = try WrittenParts(rrule)
            let reader = RRuleReader(
                written: written, recurrenceRule: try parse(written), start: start, isAllDay: isAllDay)
            return try reader.shape(untilToLocal: untilToLocal)
        }

        /// libical's reading of the rule; when it cannot read it, the part it refuses, found by parsing each
        /// one on its own.
        private static func parse(_ written: WrittenParts) throws(Unsupported) -> RecurrenceRule {
            let recurrenceRule = RecurrenceRule(written.body)
            guard !recurrenceRule.isReadable else { return recurrenceRule }
            for name in written.names {
                let probe = name == "FREQ" ? written.quote(name) : "FREQ=DAILY;\(written.quote(name))"
                if !RecurrenceRule(probe).isReadable {
                    throw written.refuse("libical cannot parse \(written.quote(name))")
                }
            }
            throw written.refuse("libical cannot parse the rule")
        }

        private func refuse(_ reason: String) -> Unsupported { written.refuse(reason) }
        private func quote(_ name: String) -> String { written.quote(name) }

        private func shape(untilToLocal: (Int64) -> CivilDateTime) throws(Unsupported) -> GraphShape {
            try checkNumbers()
            try checkParts()
            let (pattern, plainMonthDay) = try readPattern()
            guard RecurrenceMapping.matches(pattern, startDay) else {
                throw refuse(
                    "DTSTART \(startDay.dateString) is not an occurrence of the rule: "
                        + "iCalendar counts it anyway, Graph would not"
                )
            }
            let end = try readEnd(untilToLocal: untilToLocal)
            if let day = plainMonthDay { try checkShortMonths(day: day, pattern: pattern, end: end) }
            return GraphShape(
                pattern: pattern, interval: recurrenceRule.interval, firstDayOfWeek: firstDayOfWeek(of: pattern),
                end: end)
        }

        /// libical reads numbers with atoi into a short: it must have read what was written.
        private func checkNumbers() throws(Unsupported) {
            if let text = written.texts["INTERVAL"], Int(text) != recurrenceRule.interval {
                throw refuse("\(quote("INTERVAL")) is not a positive number libical can hold")
            }
            if let text = written.texts["COUNT"], Int(text) != recurrenceRule.count {
                throw refuse("\(quote("COUNT")) is not a positive number libical can hold")
            }
        }

        /// Refuses a frequency finer than daily, the parts Graph never holds, several or leap months, and
        /// weekdays libical could not read.
        private func checkParts() throws(Unsupported) {
            if recurrenceRule.isFinerThanDaily {
                throw refuse("\(quote("FREQ")): Graph repeats a series daily at the finest")
            }
            let present: [String: Bool] = [
                "BYSECOND": !recurrenceRule.bySecond.isEmpty, "BYMINUTE": !recurrenceRule.byMinute.isEmpty,
                "BYHOUR": !recurrenceRule.byHour.isEmpty, "BYWEEKNO": !recurrenceRule.byWeekNo.isEmpty,
                "BYYEARDAY": !recurrenceRule.byYearDay.isEmpty,
            ]
            for (name, reason) in Self.refusedParts where present[name] == true {
                throw refuse("\(quote(name)): \(reason)")
            }
            if recurrenceRule.byMonth.count > 1 { throw refuse("\(quote("BYMONTH")): Graph holds one month") }
            if recurrenceRule.byMonthNamesLeapMonth { throw refuse("\(quote("BYMONTH")): Graph has no leap months") }
            if recurrenceRule.byDay.contains(where: { !(0...6).contains($0.weekday) }) {
                throw refuse("libical cannot parse \(quote("BYDAY"))")
            }
        }

        // MARK: The pattern, by frequency

        /// The pattern, and the day of the month when it comes from a plain positive day (BYMONTHDAY=*n* or
        /// DTSTART's), which iCalendar skips in shorter months.
        private typealias ReadPattern = (pattern: Pattern, plainMonthDay: Int?)

        private func readPattern() throws(Unsupported) -> ReadPattern {
            switch recurrenceRule.frequency {
            case .daily: return (try dailyPattern(), nil)
            case .weekly: return (try weeklyPattern(), nil)
            case .monthly: return try monthlyPattern()
            case .yearly: return try yearlyPattern()
            default: throw refuse("\(quote("FREQ")) is not a frequency Graph holds")
            }
        }

        private var byDay: [RecurrenceRule.WeekdayPart] { recurrenceRule.byDay }
        private var weekdays: [Int] { Set(byDay.map(\.weekday)).sorted() }

        private func dailyPattern() throws(Unsupported) -> Pattern {
            for name in ["BYMONTHDAY", "BYMONTH", "BYSETPOS"] where written.has(name) {
                throw refuse("\(quote(name)) in a daily rule: Graph's daily pattern has no such filter")
            }
            if byDay.isEmpty { return .daily }
            if byDay.contains(where: { $0.position != 0 }) {
                throw refuse("\(quote("BYDAY")) with positions in a daily rule")
            }
            if recurrenceRule.interval != 1 {
                throw refuse("\(quote("BYDAY")) with \(quote("INTERVAL")) in a daily rule: Graph has no such shape")
            }
            return .weekly(days: weekdays)  // Every listed weekday.
        }

        private func weeklyPattern() throws(Unsupported) -> Pattern {
            for name in ["BYMONTHDAY", "BYMONTH", "BYSETPOS"] where written.has(name) {
                throw refuse("\(quote(name)) in a weekly rule: Graph's weekly pattern has no such filter")
            }
            if byDay.contains(where: { $0.position != 0 }) {
                throw refuse("\(quote("BYDAY")): a weekly rule with ordinal days (Graph's index is monthly)")
            }
            return .weekly(days: byDay.isEmpty ? [RecurrenceMapping.weekday(startDay)] : weekdays)
        }

        private func monthlyPattern() throws(Unsupported) -> ReadPattern {
            if !recurrenceRule.byMonth.isEmpty {
                throw refuse("\(quote("BYMONTH")) in a monthly rule: Graph repeats in every month")
            }
            if byDay.isEmpty {
                let day = try dayOfMonth(month: nil)
                return (.absoluteMonthly(day: day.day), day.plain)
            }
            if !recurrenceRule.byMonthDay.isEmpty { _ = try dayOfMonth(month: nil) }
            let (days, index) = try relative()
            return (.relativeMonthly(days: days, index: index), nil)
        }

        private func yearlyPattern() throws(Unsupported) -> ReadPattern {
            guard let month = recurrenceRule.byMonth.first else { return try yearlyPatternOnStartMonth() }
            if !(1...12).contains(month) { throw refuse("\(quote("BYMONTH")) is not a month 1…12") }
            if byDay.isEmpty {
                let day = try dayOfMonth(month: month)
                return (.absoluteYearly(month: month, day: day.day), day.plain)
            }
            if !recurrenceRule.byMonthDay.isEmpty { _ = try dayOfMonth(month: month) }
            let (days, index) = try relative()
            return (.relativeYearly(month: month, days: days, index: index), nil)
        }

        /// A yearly rule without BYMONTH: Graph holds it only as DTSTART's day every year.
        private func yearlyPatternOnStartMonth() throws(Unsupported) -> ReadPattern {
            if !recurrenceRule.byMonthDay.isEmpty {
                throw refuse("\(quote("BYMONTHDAY")) without BYMONTH in a yearly rule: every month of the year")
            }
            if !byDay.isEmpty {
                throw refuse("\(quote("BYDAY")) without BYMONTH in a yearly rule: weekdays of the whole year")
            }
            if !recurrenceRule.bySetPos.isEmpty {
                throw refuse("\(quote("BYSETPOS")) without BYDAY: Graph holds a position among weekdays only")
            }
            return (.absoluteYearly(month: startDay.month, day: startDay.day), startDay.day)
        }

        /// `BYMONTHDAY` (or DTSTART's day) of a monthly or yearly rule → Graph's `dayOfMonth`, and that day
        /// again when it is a plain positive day.
        private func dayOfMonth(month: Int?) throws(Unsupported) -> (day: Int, plain: Int?) {
            if !byDay.isEmpty {
                throw refuse("\(quote("BYMONTHDAY")) together with \(quote("BYDAY")): Graph holds one or the other")
            }
            let byMonthDay = recurrenceRule.byMonthDay
            let bySetPos = recurrenceRule.bySetPos
            let longest = month.map(RecurrenceMapping.longestMonth) ?? 31
            let isClampForm = byMonthDay.count > 1 && byMonthDay.sorted() == Array(28..<(28 + byMonthDay.count))
            if byMonthDay.isEmpty && bySetPos.isEmpty {
                return (startDay.day, startDay.day)
            } else if byMonthDay.isEmpty {
                throw refuse("\(quote("BYSETPOS")) without BYDAY: Graph holds a position among weekdays only")
            } else if byMonthDay.count == 1 && byMonthDay[0] > 0 && bySetPos.isEmpty {
                return (byMonthDay[0], byMonthDay[0])
            } else if byMonthDay == [-1] && bySetPos.isEmpty {
                return (longest, nil)  // The month's last day: Graph moves its longest day there.
            } else if isClampForm && bySetPos == [-1] {
                // "The last of 28…d that exists": Graph's day d, moved to the end of shorter months.
                return (min(27 + byMonthDay.count, longest), nil)
            } else if byMonthDay.count == 1 && byMonthDay[0] < 0 {
                throw refuse("\(quote("BYMONTHDAY")): Graph counts days from the start of the month only")
            } else if byMonthDay.count == 1 {
                throw refuse("\(quote("BYSETPOS")) with BYMONTHDAY: Graph holds one day of the month")
            } else {
                throw refuse("\(quote("BYMONTHDAY")): Graph holds one day of the month")
            }
        }

        /// `BYDAY` (+ `BYSETPOS`) of a monthly or yearly rule → Graph's `daysOfWeek` and `index`.
        private func relative() throws(Unsupported) -> (days: [Int], index: Int) {
            let positions = Set(byDay.map(\.position))
            let bySetPos = recurrenceRule.bySetPos
            switch bySetPos.count {
            case 0:
                guard positions != [0] else {
                    throw refuse("\(quote("BYDAY")) without a position: every such weekday of the month")
                }
                guard byDay.count == 1, let only = byDay.first else {
                    throw refuse("\(quote("BYDAY")): Graph holds one position of one weekday, or BYSETPOS")
                }
                return ([only.weekday], try index(only.position, "BYDAY"))
            case 1:
                guard positions == [0] else {
                    throw refuse("\(quote("BYDAY")) with positions together with BYSETPOS")
                }
                return (weekdays, try index(bySetPos[0], "BYSETPOS"))
            default:
                throw refuse("\(quote("BYSETPOS")): Graph holds one position")
            }
        }

        /// A position → Graph's `index`: 1…4 or -1 (last).
        private func index(_ value: Int, _ part: String) throws(Unsupported) -> Int {
            guard (1...4).contains(value) || value == -1 else {
                throw refuse("\(quote(part)): Graph's index is first, second, third, fourth or last")
            }
            return value
        }

        // MARK: The range

        /// COUNT, or UNTIL as the last date an occurrence can fall on (Graph's `endDate` is inclusive).
        ///
        /// - Parameter untilToLocal: a UTC UNTIL → wall-clock time in the recurrence zone.
        private func readEnd(untilToLocal: (Int64) -> CivilDateTime) throws(Unsupported) -> End {
            if recurrenceRule.count > 0 { return .count(recurrenceRule.count) }
            guard let until = recurrenceRule.until else { return .never }
            guard until.time.isValid else { throw refuse("\(quote("UNTIL")) is not a valid date") }
            var last: CivilDateTime
            if isAllDay {
                last = until.time.date
            } else if until.isDate {
                last = until.time.date.adding(days: -1)  // An occurrence on that date is later than the date.
            } else {
                let local = until.isUTC ? untilToLocal(until.time.secondsSinceEpoch) : until.time
                last = local.date
                if (start.hour, start.minute, start.second) > (local.hour, local.minute, local.second) {
                    last = last.adding(days: -1)
                }
            }
            guard last >= startDay else { throw refuse("\(quote("UNTIL")) ends before DTSTART \(startDay.dateString)") }
            return .date(last)
        }

        /// Refuses a series on a plain day 29…31 that reaches a month without it: iCalendar skips that month,
        /// Graph moves the occurrence to the month's last day.
        private func checkShortMonths(day: Int, pattern: Pattern, end: End) throws(Unsupported) {
            let interval = recurrenceRule.interval
            let step: Int
            switch pattern {
            case .absoluteYearly: step = 12 * interval
            default: step = interval
            }
            if RecurrenceMapping.visitsShortMonth(day: day, from: startDay, everyMonths: step, end: end) {
                let source = written.has("BYMONTHDAY") ? quote("BYMONTHDAY") : "day \(day) of DTSTART"
                throw refuse(
                    "\(source): iCalendar skips months without day \(day), "
                        + "Graph moves the occurrence to the month's last day"
                )
            }
        }

        /// An explicit `WKST`, else Monday (RFC 5545's default; Graph's would be Sunday) for a weekly pattern.
        private func firstDayOfWeek(of pattern: Pattern) -> Int? {
            if written.has("WKST") { return recurrenceRule.weekStart }
            if case .weekly = pattern { return 1 }
            return nil
        }
    }
}
