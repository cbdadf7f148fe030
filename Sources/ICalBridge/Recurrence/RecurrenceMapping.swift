internal import CLibical
import Foundation

/// Maps a series' recurrence between iCalendar (an RFC 5545 `RRULE` value) and Microsoft Graph
/// (`patternedRecurrence`), in both directions, exactly or not at all.
///
/// Graph holds six shapes: `daily`, `weekly` (one or several weekdays), `absoluteMonthly` (day *n* of the
/// month), `relativeMonthly` (the first…fourth or last of a set of weekdays), `absoluteYearly` and
/// `relativeYearly` (the same inside one month), each with an interval and a range that ends after a
/// number of occurrences, on a date, or never. A rule maps only when both sides produce the same
/// occurrences; anything else is ``Unsupported`` with a reason naming the offending rule part, so that
/// the caller expands the series into single events (or refuses with `--strict`). Nothing is approximated.
///
/// Semantics the mapping relies on, with the places where the two standards differ:
/// - **DTSTART is an occurrence.** iCalendar always counts DTSTART (RFC 5545 §3.8.5.3, and calls a
///   DTSTART outside the rule undefined); Graph's first occurrence is the first date on or after
///   `range.startDate` that fits the pattern. A series maps only when its start fits the pattern, and
///   `range.startDate` must be the start's date.
/// - **Month ends.** Graph moves `dayOfMonth` 29–31 to the last day of a shorter month (documented for
///   Exchange's `DayOfMonth`); iCalendar skips months that lack the day. So `BYMONTHDAY=31` maps only when
///   the series never reaches a shorter month (every six months from January 31, a `COUNT` or `UNTIL`
///   that ends in time), and Graph's day 31 is written `BYMONTHDAY=-1`, day 29/30
///   `BYMONTHDAY=28,29,30;BYSETPOS=-1` ("the last of these that exists") when the series reaches a
///   shorter month. Both written forms map back. The same holds for February 29 in yearly series.
/// - **Week start.** RFC 5545's default `WKST` is Monday and Graph's default `firstDayOfWeek` is Sunday.
///   Weekly patterns always carry an explicit `firstDayOfWeek`, and weekly rules an explicit `WKST`.
/// - **Several days with a position.** Graph's `index` over several `daysOfWeek` picks the *n*-th day of
///   the month that is one of them, which is exactly `BYDAY=…;BYSETPOS=n`.
///
/// Pure functions of their arguments: no I/O, no state of their own. libical parses and iterates each
/// rule in values the call owns (its error number is per thread), so calls may run concurrently.
public enum RecurrenceMapping {
    /// Why a rule cannot be held by Graph (the caller then expands it into single events, or refuses with
    /// `--strict`).
    public struct Unsupported: Error, Equatable, Sendable, CustomStringConvertible {
        /// The rule as the caller gave it: the RRULE value, or a compact rendering of Graph's recurrence
        /// (`weekly interval=1 daysOfWeek=monday … | endDate 2026-06-30`).
        public var rule: String
        /// What Graph (or iCalendar) cannot hold, naming the rule part or Graph property, for example
        /// `BYHOUR=9,17: Graph repeats a series at its start's time of day only`.
        public var reason: String

        public init(rule: String, reason: String) {
            self.rule = rule
            self.reason = reason
        }

        public var description: String { "recurrence \(rule) cannot be mapped exactly: \(reason)" }
    }

    // MARK: - iCalendar → Graph

    /// RRULE value of a series that starts at `start` → Graph's `patternedRecurrence`.
    ///
    /// - Parameters:
    ///   - rrule: the text after `RRULE:` (a leading `RRULE:` is tolerated), for example
    ///     `FREQ=MONTHLY;BYDAY=TU;BYSETPOS=2;COUNT=10`. Parsed with libical's
    ///     `icalrecurrencetype_from_string`; a rule libical refuses is ``Unsupported`` naming the part.
    ///   - start: DTSTART as wall-clock time in the event's zone (which should be the recurrence zone);
    ///     for all-day events the date (the time is ignored).
    ///   - isAllDay: DTSTART is a `DATE`.
    ///   - recurrenceTimeZone: put into `range.recurrenceTimeZone` as given (the caller passes a Windows
    ///     zone name); nil leaves it out.
    ///   - untilToLocal: turns a UTC `UNTIL` (`…Z`, given as seconds since 1970-01-01T00:00:00Z) into the
    ///     wall-clock date **and time** in the recurrence zone. Called only for timed events whose UNTIL
    ///     ends in `Z`. Return the full local time, not midnight: the time decides whether the start's
    ///     time of day on that date is still inside the range.
    /// - Returns: Graph's recurrence with every property Graph needs for the shape set explicitly
    ///   (`interval`, `firstDayOfWeek` for weekly patterns and whenever `WKST` is written, `index` for
    ///   relative ones, `daysOfWeek` in Graph's Sunday-first order), `range.startDate` = the start's
    ///   date, or why Graph cannot hold the rule.
    ///
    /// `UNTIL` becomes the last date on which an occurrence can fall (Graph's `endDate` is inclusive):
    /// - a timed event with a UTC or floating UNTIL: the local date of UNTIL, or the day before when the
    ///   start's time of day is later than UNTIL's local time;
    /// - a timed event with a DATE UNTIL (RFC 5545 forbids the mix): the day before, as libical
    ///   expands it (an occurrence on that date is later than the date);
    /// - an all-day event: the date of UNTIL as written.
    public static func graphRecurrence(
        rrule: String, start: CivilDateTime, isAllDay: Bool, recurrenceTimeZone: String?,
        untilToLocal: (_ utcSecondsSinceEpoch: Int64) -> CivilDateTime
    ) -> Result<GraphPatternedRecurrence, Unsupported> {
        do throws(Unsupported) {
            let parsed = try ParsedRule(rrule, start: start, isAllDay: isAllDay, untilToLocal: untilToLocal)
            return .success(parsed.graphRecurrence(start: start, recurrenceTimeZone: recurrenceTimeZone))
        } catch {
            return .failure(error)
        }
    }

    // MARK: - Graph → iCalendar

    /// Graph's `patternedRecurrence` of a series starting at `start` → RRULE value (without `RRULE:`).
    ///
    /// - Parameters:
    ///   - recurrence: as Graph sends it. Properties a pattern type does not use may carry Graph's fillers
    ///     (`index` "first", `month` 0, `dayOfMonth` 0, empty `daysOfWeek`, `endDate` "0001-01-01" when
    ///     the range is not `endDate`); any other value there is ``Unsupported`` (for example an `index`
    ///     of "second" on a weekly pattern). Missing `interval` is 1, missing `index` "first", missing
    ///     `firstDayOfWeek` on a weekly pattern "sunday" (Graph's defaults).
    ///   - start: the series master's start, wall-clock time in the recurrence zone (for all-day events
    ///     the date). It must be an occurrence of the pattern, and `range.startDate` (when present) its
    ///     date; otherwise the series is ``Unsupported``, because DTSTART always counts in iCalendar.
    ///   - isAllDay: the event is all-day: UNTIL is then written as a DATE.
    ///   - endOfDayToUTC: for timed events with an `endDate` range: receives `endDate` at 23:59:59,
    ///     wall-clock time in the recurrence zone, and returns that instant as seconds since 1970 UTC;
    ///     UNTIL is written as that instant in UTC (RFC 5545: UNTIL must be UTC when DTSTART has a TZID).
    /// - Returns: the rule as `FREQ`, `INTERVAL` (when not 1), `BYDAY`, `BYMONTHDAY`, `BYMONTH`,
    ///   `BYSETPOS`, `WKST` (always for weekly patterns, otherwise when `firstDayOfWeek` is given), then
    ///   `COUNT` or `UNTIL`; or why it cannot be written exactly.
    public static func rrule(
        from recurrence: GraphPatternedRecurrence, start: CivilDateTime, isAllDay: Bool,
        endOfDayToUTC: (_ localEndOfDay: CivilDateTime) -> Int64
    ) -> Result<String, Unsupported> {
        do throws(Unsupported) {
            return .success(
                try writeRule(recurrence, start: start.date, isAllDay: isAllDay, endOfDayToUTC: endOfDayToUTC))
        } catch {
            return .failure(error)
        }
    }

    // MARK: - libical's expansion (for callers that expand, and for tests)

    /// The first `count` occurrences libical's iterator (`icalrecur_iterator_new`/`_next`) generates for
    /// `rrule` from a floating DTSTART `start` (a DATE when `isAllDay`); empty when libical cannot parse
    /// the rule or refuses to iterate it. A UTC UNTIL is compared with the floating times as if they were
    /// UTC, as libical does.
    ///
    /// - Parameter horizon: when given, no occurrence after it is generated (it becomes the rule's UNTIL
    ///   when the rule has none or a later one). libical 3.0 steps through every second, minute, hour or
    ///   day of a rule's frequency until one passes all BY filters, up to the year 2582: a rule whose
    ///   filters never or seldom match (`FREQ=HOURLY;BYMONTH=2;BYMONTHDAY=30`) takes minutes without
    ///   one, but its UNTIL stops the stepping.
    static func occurrences(
        rrule: String, start: CivilDateTime, isAllDay: Bool = false, count: Int, horizon: CivilDateTime? = nil
    ) -> [CivilDateTime] {
        expansion(rrule: rrule, start: start, isAllDay: isAllDay, count: count, horizon: horizon).occurrences
    }

    /// ``occurrences(rrule:start:isAllDay:count:horizon:)``, and whether the horizon ended them: the rule
    /// would have gone on (no UNTIL or a later one, COUNT not reached) but `horizon` stopped it.
    static func expansion(
        rrule: String, start: CivilDateTime, isAllDay: Bool = false, count: Int, horizon: CivilDateTime?
    ) -> (occurrences: [CivilDateTime], cutAtHorizon: Bool) {
        Rule(rrule).expansion(start: start, isAllDay: isAllDay, count: count, horizon: horizon)
    }

    /// An RRULE as libical parsed it (`icalrecurrencetype_from_string`), parsed once and then asked every
    /// question graph-ics has before it lets libical expand the rule.
    final class Rule {
        /// The rule's text, as the file had it (named in warnings).
        let text: String
        private let recurrence: icalrecurrencetype

        init(_ text: String) {
            self.text = text
            recurrence = text.withCString { icalrecurrencetype_from_string($0) }
        }

        deinit {
            // libical allocates the RSCALE text for the caller.
            if let scale = recurrence.rscale { free(scale) }
        }

        /// Whether libical could read the rule at all.
        var isReadable: Bool { recurrence.freq != ICAL_NO_RECURRENCE }

        /// The calendar scale when it is not Gregorian (RFC 7529 `RSCALE=CHINESE`, `HEBREW`, …).
        var nonGregorianScale: String? {
            guard let scale = recurrence.rscale.map({ String(cString: $0) }), !scale.isEmpty,
                !ICalText.equalsIgnoringASCIICase(scale, "GREGORIAN")
            else { return nil }
            return scale
        }

        /// Whether the rule repeats more often than daily (`FREQ=SECONDLY`, `MINUTELY` or `HOURLY`).
        var isFinerThanDaily: Bool {
            isReadable && recurrence.freq.rawValue < ICAL_DAILY_RECURRENCE.rawValue
        }

        /// Why the rule can never occur from `start` on; nil when it may occur. libical 3.0 searches a
        /// monthly or yearly rule for its first occurrence month by month (year by year) up to the year
        /// 20000 before it gives up on one that never occurs: about two seconds a rule.
        ///
        /// First from its parts alone: no month of BYMONTH has a day of BYMONTHDAY
        /// (`BYMONTH=2;BYMONTHDAY=30`), or no BYSETPOS can pick from sets that small
        /// (`FREQ=MONTHLY;BYDAY=MO;BYSETPOS=10`). Then, for a monthly or yearly rule, period by period (see
        /// ``occursInSomePeriod(from:)``): a rule whose INTERVAL never reaches a month of its BYMONTH, or
        /// whose BYSETPOS picks beyond the one day DTSTART gives it, is found there.
        func neverOccurs(from start: CivilDateTime) -> String? {
            if let reason = neverOccursByItsParts { return reason }
            if occursInSomePeriod(from: start) == false {
                return "no \(recurrence.freq == ICAL_YEARLY_RECURRENCE ? "year" : "month") it reaches has a day that"
                    + " matches all of its parts"
            }
            return nil
        }

        private var neverOccursByItsParts: String? {
            guard isReadable else { return nil }
            let byMonth = values(of: recurrence.by_month).filter { (1...12).contains($0) }
            let months = byMonth.isEmpty ? Array(1...12) : byMonth
            let byMonthDay = values(of: recurrence.by_month_day)
            if !byMonthDay.isEmpty,
                !months.contains(where: { month in
                    let length = CivilDateTime.daysInMonth(year: 2024, month: month)  // a leap year: 29 February
                    return byMonthDay.contains { $0 != 0 && abs($0) <= length }
                })
            {
                return "no month of its BYMONTH has a day of its BYMONTHDAY"
            }
            let bySetPos = values(of: recurrence.by_set_pos)
            guard !bySetPos.isEmpty else { return nil }
            // The largest set one period can hold: its days, times the times of day the rule lists.
            let weekdays = Set(
                values(of: recurrence.by_day).map { icalrecurrencetype_day_day_of_week(Int16($0)).rawValue })
            var days: Int
            switch recurrence.freq {
            case ICAL_YEARLY_RECURRENCE: days = 366
            case ICAL_MONTHLY_RECURRENCE: days = 31
            case ICAL_WEEKLY_RECURRENCE: days = 7
            default: days = 1
            }
            if !byMonthDay.isEmpty { days = min(days, byMonthDay.count * max(1, byMonth.count)) }
            if !weekdays.isEmpty, recurrence.freq != ICAL_DAILY_RECURRENCE {
                let perWeekday = [ICAL_WEEKLY_RECURRENCE: 1, ICAL_MONTHLY_RECURRENCE: 5][recurrence.freq] ?? 53
                days = min(days, weekdays.count * perWeekday)
            }
            // (Each array separately: as one array literal they would be boxed, and read as the box.)
            let times =
                max(1, values(of: recurrence.by_hour).count) * max(1, values(of: recurrence.by_minute).count)
                * max(1, values(of: recurrence.by_second).count)
            let largest = days * times
            if bySetPos.allSatisfy({ $0 == 0 || abs($0) > largest }) {
                return "BYSETPOS picks beyond the \(largest) occurrences a period can hold"
            }
            return nil
        }

        /// Whether a monthly or yearly rule has an occurrence in one of the periods libical searches for its
        /// first one: every INTERVAL-th month (year) from `start`'s, over one 400-year Gregorian cycle, after
        /// which the periods repeat. The day set of each period follows RFC 5545: BYMONTH limits; BYDAY
        /// (with its ordinals, within the month, or the year for a yearly rule with neither BYMONTH nor
        /// BYMONTHDAY) and BYMONTHDAY expand, BYDAY limits when both are given; neither gives DTSTART's
        /// day; BYSETPOS picks from the days. Where libical reads RFC 5545 its own way, this follows
        /// libical: BYSETPOS picks among days, not times of day; a yearly rule without BYMONTH keeps to
        /// DTSTART's month. When this
        /// says yes, libical's search ends at the latest 400 years on. Nil for other frequencies and for
        /// parts left to libical (BYWEEKNO, BYYEARDAY, a yearly BYDAY ordinal with BYMONTHDAY but no
        /// BYMONTH).
        func occursInSomePeriod(from start: CivilDateTime) -> Bool? {
            let yearly = recurrence.freq == ICAL_YEARLY_RECURRENCE
            guard yearly || recurrence.freq == ICAL_MONTHLY_RECURRENCE,
                values(of: recurrence.by_week_no).isEmpty, values(of: recurrence.by_year_day).isEmpty
            else { return nil }
            let byMonth = Set(values(of: recurrence.by_month))
            let byMonthDay = values(of: recurrence.by_month_day)
            // (position, ISO weekday 1 = Monday … 7 = Sunday); libical's weekdays run 1 = Sunday … 7.
            let byDay = values(of: recurrence.by_day).map { value -> (position: Int, weekday: Int) in
                let day = Int16(value)
                let weekday = Int(icalrecurrencetype_day_day_of_week(day).rawValue)
                return (Int(icalrecurrencetype_day_position(day)), (weekday + 5) % 7 + 1)
            }
            let bySetPos = values(of: recurrence.by_set_pos)
            // libical picks BYSETPOS among the period's days, not among its times of day.
            func picks(_ days: Int) -> Bool {
                days > 0 && (bySetPos.isEmpty || bySetPos.contains { $0 != 0 && abs($0) <= days })
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
            let interval = max(1, Int(recurrence.interval))
            func greatestCommonDivisor(_ a: Int, _ b: Int) -> Int { b == 0 ? a : greatestCommonDivisor(b, a % b) }
            if !yearly {
                let first = start.year * 12 + start.month - 1
                for step in 0..<(4_800 / greatestCommonDivisor(4_800, interval)) {
                    let index = first + step * interval
                    let (year, month) = (index / 12, index % 12 + 1)
                    if (byMonth.isEmpty || byMonth.contains(month)) && picks(days(year: year, month: month)) {
                        return true
                    }
                }
                return false
            }
            let yearRelative = byMonth.isEmpty && byMonthDay.isEmpty && !byDay.isEmpty
            if byMonth.isEmpty, !byMonthDay.isEmpty, byDay.contains(where: { $0.position != 0 }) { return nil }
            // Without BYMONTH libical keeps to DTSTART's month (RFC 5545 would take every month for BYMONTHDAY).
            let months = !byMonth.isEmpty ? byMonth.filter { (1...12).contains($0) }.sorted() : [start.month]
            for step in 0..<(400 / greatestCommonDivisor(400, interval)) {
                let year = start.year + step * interval
                var count = 0
                if yearRelative {
                    let length = CivilDateTime.isLeap(year) ? 366 : 365
                    let firstWeekday = CivilDateTime(year: year, month: 1, day: 1).isoWeekday
                    for (position, weekday) in byDay {
                        let first = 1 + (weekday - firstWeekday + 7) % 7
                        let inYear = (length - first) / 7 + 1
                        count += position == 0 ? inYear : abs(position) <= inYear ? 1 : 0
                    }
                } else {
                    count = months.reduce(0) { $0 + days(year: year, month: $1) }
                }
                if picks(count) { return true }
            }
            return false
        }

        /// How far from `start` graph-ics lets libical step through the rule for `budget` units of work
        /// (one unit: one step of a secondly … weekly rule, a few microseconds; a monthly step costs about
        /// 20, a yearly one 30). Nil when the rule cannot be read.
        func expansionHorizon(start: CivilDateTime, budget: Int) -> CivilDateTime? {
            let secondsPerUnit: Int64
            switch recurrence.freq {
            case ICAL_SECONDLY_RECURRENCE: secondsPerUnit = 1
            case ICAL_MINUTELY_RECURRENCE: secondsPerUnit = 60
            case ICAL_HOURLY_RECURRENCE: secondsPerUnit = 3_600
            case ICAL_DAILY_RECURRENCE, ICAL_WEEKLY_RECURRENCE: secondsPerUnit = 86_400
            case ICAL_MONTHLY_RECURRENCE: secondsPerUnit = 30 * 86_400 / 20
            case ICAL_YEARLY_RECURRENCE: secondsPerUnit = 365 * 86_400 / 30
            default: return nil
            }
            let interval = Int64(max(1, min(Int(recurrence.interval), 1_000)))
            let seconds = Int64(max(1, budget)) * secondsPerUnit * interval
            return CivilDateTime(secondsSinceEpoch: start.secondsSinceEpoch + seconds)
        }

        /// See ``RecurrenceMapping/expansion(rrule:start:isAllDay:count:horizon:)``.
        func expansion(start: CivilDateTime, isAllDay: Bool = false, count: Int, horizon: CivilDateTime?)
            -> (occurrences: [CivilDateTime], cutAtHorizon: Bool)
        {
            guard isReadable, count > 0 else { return ([], false) }
            var recurrence = recurrence
            var dtstart = icaltime_null_time()
            dtstart.year = Int32(start.year)
            dtstart.month = Int32(start.month)
            dtstart.day = Int32(start.day)
            if isAllDay {
                dtstart.is_date = 1
            } else {
                dtstart.hour = Int32(start.hour)
                dtstart.minute = Int32(start.minute)
                dtstart.second = Int32(start.second)
            }
            var horizonIsUntil = false
            if let horizon {
                var end = icaltime_null_time()
                end.year = Int32(horizon.year)
                end.month = Int32(horizon.month)
                end.day = Int32(horizon.day)
                end.hour = Int32(horizon.hour)
                end.minute = Int32(horizon.minute)
                end.second = Int32(horizon.second)
                if icaltime_is_null_time(recurrence.until) != 0 || icaltime_compare(recurrence.until, end) > 0 {
                    recurrence.until = end
                    horizonIsUntil = true
                }
            }
            // The iterator refers to the RSCALE text that `self` owns; it is freed first, on return.
            guard let iterator = icalrecur_iterator_new(recurrence, dtstart) else { return ([], false) }
            defer { icalrecur_iterator_free(iterator) }
            var result: [CivilDateTime] = []
            while result.count < count {
                let next = icalrecur_iterator_next(iterator)
                if icaltime_is_null_time(next) != 0 { break }
                result.append(civil(next))
            }
            let countReached = recurrence.count > 0 && result.count >= Int(recurrence.count)
            return (result, horizonIsUntil && result.count < count && !countReached)
        }
    }
}

// MARK: - The shapes Graph holds

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

    static func civil(_ time: icaltimetype) -> CivilDateTime {
        CivilDateTime(
            year: Int(time.year), month: Int(time.month), day: Int(time.day), hour: Int(time.hour),
            minute: Int(time.minute), second: Int(time.second))
    }
}

// MARK: - Reading an RRULE

extension RecurrenceMapping {
    /// An RRULE value read with libical and checked against what Graph holds.
    struct ParsedRule {
        var pattern: Pattern
        var interval: Int
        /// From an explicit `WKST`, or Monday (RFC 5545's default) for weekly patterns.
        var firstDayOfWeek: Int?
        var end: End

        /// The rule parts Graph never holds, and the reason given for each.
        private static let refusedParts: [(name: String, reason: String)] = [
            ("BYSECOND", "Graph repeats a series at its start's time of day only"),
            ("BYMINUTE", "Graph repeats a series at its start's time of day only"),
            ("BYHOUR", "Graph repeats a series at its start's time of day only"),
            ("BYWEEKNO", "Graph has no week-of-year patterns"),
            ("BYYEARDAY", "Graph has no day-of-year patterns"),
        ]

        private static let knownParts: Set<String> = [
            "FREQ", "UNTIL", "COUNT", "INTERVAL", "BYSECOND", "BYMINUTE", "BYHOUR", "BYDAY", "BYMONTHDAY",
            "BYYEARDAY", "BYWEEKNO", "BYMONTH", "BYSETPOS", "WKST", "RSCALE", "SKIP",
        ]

        init(
            _ rule: String, start: CivilDateTime, isAllDay: Bool,
            untilToLocal: (Int64) -> CivilDateTime
        ) throws(Unsupported) {
            func refuse(_ reason: String) -> Unsupported { Unsupported(rule: rule, reason: reason) }

            // The names and texts of the parts, so that reasons can quote them and libical's silent
            // readings (a duplicate part overwrites, an empty part ends the rule) never go unnoticed.
            var body = Substring(rule.trimmingCharacters(in: .whitespacesAndNewlines))
            if body.uppercased().hasPrefix("RRULE:") { body = body.dropFirst(6) }
            var pieces = body.split(separator: ";", omittingEmptySubsequences: false)
            if pieces.last?.isEmpty == true { pieces.removeLast() }
            var parts: [String: String] = [:]
            var order: [String] = []
            for piece in pieces {
                guard let equals = piece.firstIndex(of: "="), equals != piece.startIndex else {
                    throw refuse("\"\(piece)\" is not a NAME=VALUE rule part")
                }
                let name = piece[..<equals].uppercased()
                guard parts[name] == nil else { throw refuse("\(name) appears more than once") }
                parts[name] = String(piece[piece.index(after: equals)...])
                order.append(name)
            }
            func quote(_ name: String) -> String { "\(name)=\(parts[name] ?? "")" }
            if let unknown = order.first(where: { !Self.knownParts.contains($0) }) {
                throw refuse("unknown rule part \(quote(unknown))")
            }
            for name in ["RSCALE", "SKIP"] where parts[name] != nil {
                throw refuse(
                    "\(quote(name)): Graph repeats in the Gregorian calendar only (RFC 7529 rules are not held)")
            }
            guard parts["FREQ"] != nil else { throw refuse("FREQ is missing") }
            if parts["COUNT"] != nil && parts["UNTIL"] != nil {
                throw refuse("COUNT together with UNTIL: a rule ends one way or the other (RFC 5545 §3.3.10)")
            }

            let recurrence = body.withCString { icalrecurrencetype_from_string($0) }
            defer { if let scale = recurrence.rscale { free(scale) } }
            guard recurrence.freq != ICAL_NO_RECURRENCE else {
                // Name the part libical refuses by parsing each one on its own.
                for name in order {
                    let probe = name == "FREQ" ? quote(name) : "FREQ=DAILY;\(quote(name))"
                    let alone = probe.withCString { icalrecurrencetype_from_string($0) }
                    if let scale = alone.rscale { free(scale) }
                    if alone.freq == ICAL_NO_RECURRENCE { throw refuse("libical cannot parse \(quote(name))") }
                }
                throw refuse("libical cannot parse the rule")
            }

            // libical reads numbers with atoi into a short: insist that it read what was written.
            let interval = Int(recurrence.interval)
            if let text = parts["INTERVAL"], Int(text) != interval {
                throw refuse("\(quote("INTERVAL")) is not a positive number libical can hold")
            }
            let count = Int(recurrence.count)
            if let text = parts["COUNT"], Int(text) != count {
                throw refuse("\(quote("COUNT")) is not a positive number libical can hold")
            }

            switch recurrence.freq {
            case ICAL_SECONDLY_RECURRENCE, ICAL_MINUTELY_RECURRENCE, ICAL_HOURLY_RECURRENCE:
                throw refuse("\(quote("FREQ")): Graph repeats a series daily at the finest")
            default:
                break
            }
            let byDay = RecurrenceMapping.values(of: recurrence.by_day).map {
                (
                    day: Int(icalrecurrencetype_day_day_of_week(Int16($0)).rawValue) - 1,
                    position: Int(icalrecurrencetype_day_position(Int16($0)))
                )
            }
            let byMonthDay = RecurrenceMapping.values(of: recurrence.by_month_day)
            let byMonth = RecurrenceMapping.values(of: recurrence.by_month)
            let bySetPos = RecurrenceMapping.values(of: recurrence.by_set_pos)
            let present: [String: Bool] = [
                "BYSECOND": !RecurrenceMapping.values(of: recurrence.by_second).isEmpty,
                "BYMINUTE": !RecurrenceMapping.values(of: recurrence.by_minute).isEmpty,
                "BYHOUR": !RecurrenceMapping.values(of: recurrence.by_hour).isEmpty,
                "BYWEEKNO": !RecurrenceMapping.values(of: recurrence.by_week_no).isEmpty,
                "BYYEARDAY": !RecurrenceMapping.values(of: recurrence.by_year_day).isEmpty,
            ]
            for (name, reason) in Self.refusedParts where present[name] == true {
                throw refuse("\(quote(name)): \(reason)")
            }
            if byMonth.count > 1 { throw refuse("\(quote("BYMONTH")): Graph holds one month") }
            if let month = byMonth.first, icalrecurrencetype_month_is_leap(Int16(month)) != 0 {
                throw refuse("\(quote("BYMONTH")): Graph has no leap months")
            }
            if byDay.contains(where: { !(0...6).contains($0.day) }) {
                throw refuse("libical cannot parse \(quote("BYDAY"))")
            }

            let startDay = start.date
            // Day-of-month patterns taken from a plain positive day skip shorter months in iCalendar.
            var plainMonthDay: Int?

            /// `BYMONTHDAY` (or DTSTART's day) of a monthly or yearly rule → Graph's `dayOfMonth`.
            func dayOfMonth(month: Int?) throws(Unsupported) -> Int {
                if !byDay.isEmpty {
                    throw refuse("\(quote("BYMONTHDAY")) together with \(quote("BYDAY")): Graph holds one or the other")
                }
                let longest = month.map(RecurrenceMapping.longestMonth) ?? 31
                let isClampForm =
                    byMonthDay.count > 1 && byMonthDay.sorted() == Array(28..<(28 + byMonthDay.count))
                if byMonthDay.isEmpty && bySetPos.isEmpty {
                    plainMonthDay = startDay.day
                    return startDay.day
                } else if byMonthDay.isEmpty {
                    throw refuse("\(quote("BYSETPOS")) without BYDAY: Graph holds a position among weekdays only")
                } else if byMonthDay.count == 1 && byMonthDay[0] > 0 && bySetPos.isEmpty {
                    plainMonthDay = byMonthDay[0]
                    return byMonthDay[0]
                } else if byMonthDay == [-1] && bySetPos.isEmpty {
                    return longest  // The month's last day: Graph moves its longest day there.
                } else if isClampForm && bySetPos == [-1] {
                    // "The last of 28…d that exists": Graph's day d, moved to the end of shorter months.
                    return min(27 + byMonthDay.count, longest)
                } else if byMonthDay.count == 1 && byMonthDay[0] < 0 {
                    throw refuse("\(quote("BYMONTHDAY")): Graph counts days from the start of the month only")
                } else if byMonthDay.count == 1 {
                    throw refuse("\(quote("BYSETPOS")) with BYMONTHDAY: Graph holds one day of the month")
                } else {
                    throw refuse("\(quote("BYMONTHDAY")): Graph holds one day of the month")
                }
            }

            /// `BYDAY` (+ `BYSETPOS`) of a monthly or yearly rule → Graph's `daysOfWeek` and `index`.
            func relative() throws(Unsupported) -> (days: [Int], index: Int) {
                let days = Set(byDay.map { $0.day }).sorted()
                let positions = Set(byDay.map { $0.position })
                func index(_ value: Int, _ part: String) throws(Unsupported) -> Int {
                    guard (1...4).contains(value) || value == -1 else {
                        throw refuse("\(quote(part)): Graph's index is first, second, third, fourth or last")
                    }
                    return value
                }
                switch bySetPos.count {
                case 0:
                    guard positions != [0] else {
                        throw refuse("\(quote("BYDAY")) without a position: every such weekday of the month")
                    }
                    guard byDay.count == 1, let only = byDay.first else {
                        throw refuse("\(quote("BYDAY")): Graph holds one position of one weekday, or BYSETPOS")
                    }
                    return ([only.day], try index(only.position, "BYDAY"))
                case 1:
                    guard positions == [0] else {
                        throw refuse("\(quote("BYDAY")) with positions together with BYSETPOS")
                    }
                    return (days, try index(bySetPos[0], "BYSETPOS"))
                default:
                    throw refuse("\(quote("BYSETPOS")): Graph holds one position")
                }
            }

            let pattern: Pattern
            switch recurrence.freq {
            case ICAL_DAILY_RECURRENCE:
                for name in ["BYMONTHDAY", "BYMONTH", "BYSETPOS"] where parts[name] != nil {
                    throw refuse("\(quote(name)) in a daily rule: Graph's daily pattern has no such filter")
                }
                if byDay.isEmpty {
                    pattern = .daily
                } else if byDay.contains(where: { $0.position != 0 }) {
                    throw refuse("\(quote("BYDAY")) with positions in a daily rule")
                } else if interval != 1 {
                    throw refuse("\(quote("BYDAY")) with \(quote("INTERVAL")) in a daily rule: Graph has no such shape")
                } else {
                    pattern = .weekly(days: Set(byDay.map { $0.day }).sorted())  // Every listed weekday.
                }
            case ICAL_WEEKLY_RECURRENCE:
                for name in ["BYMONTHDAY", "BYMONTH", "BYSETPOS"] where parts[name] != nil {
                    throw refuse("\(quote(name)) in a weekly rule: Graph's weekly pattern has no such filter")
                }
                if byDay.contains(where: { $0.position != 0 }) {
                    throw refuse("\(quote("BYDAY")): a weekly rule with ordinal days (Graph's index is monthly)")
                }
                pattern = .weekly(
                    days: byDay.isEmpty ? [RecurrenceMapping.weekday(startDay)] : Set(byDay.map { $0.day }).sorted())
            case ICAL_MONTHLY_RECURRENCE:
                if !byMonth.isEmpty {
                    throw refuse("\(quote("BYMONTH")) in a monthly rule: Graph repeats in every month")
                }
                if byDay.isEmpty {
                    pattern = .absoluteMonthly(day: try dayOfMonth(month: nil))
                } else {
                    if !byMonthDay.isEmpty { _ = try dayOfMonth(month: nil) }
                    let (days, index) = try relative()
                    pattern = .relativeMonthly(days: days, index: index)
                }
            case ICAL_YEARLY_RECURRENCE:
                if let month = byMonth.first, !(1...12).contains(month) {
                    throw refuse("\(quote("BYMONTH")) is not a month 1…12")
                }
                if byMonth.isEmpty {
                    if !byMonthDay.isEmpty {
                        throw refuse("\(quote("BYMONTHDAY")) without BYMONTH in a yearly rule: every month of the year")
                    }
                    if !byDay.isEmpty {
                        throw refuse("\(quote("BYDAY")) without BYMONTH in a yearly rule: weekdays of the whole year")
                    }
                    if !bySetPos.isEmpty {
                        throw refuse("\(quote("BYSETPOS")) without BYDAY: Graph holds a position among weekdays only")
                    }
                    plainMonthDay = startDay.day
                    pattern = .absoluteYearly(month: startDay.month, day: startDay.day)
                } else if byDay.isEmpty {
                    pattern = .absoluteYearly(month: byMonth[0], day: try dayOfMonth(month: byMonth[0]))
                } else {
                    if !byMonthDay.isEmpty { _ = try dayOfMonth(month: byMonth[0]) }
                    let (days, index) = try relative()
                    pattern = .relativeYearly(month: byMonth[0], days: days, index: index)
                }
            default:
                throw refuse("\(quote("FREQ")) is not a frequency Graph holds")
            }

            guard RecurrenceMapping.matches(pattern, startDay) else {
                throw refuse(
                    "DTSTART \(startDay.dateString) is not an occurrence of the rule: "
                        + "iCalendar counts it anyway, Graph would not"
                )
            }

            var end = End.never
            if count > 0 {
                end = .count(count)
            } else if icaltime_is_null_time(recurrence.until) == 0 {
                let until = RecurrenceMapping.civil(recurrence.until)
                guard until.isValid else { throw refuse("\(quote("UNTIL")) is not a valid date") }
                var last: CivilDateTime
                if isAllDay {
                    last = until.date
                } else if recurrence.until.is_date != 0 {
                    last = until.date.adding(days: -1)
                } else {
                    let local =
                        icaltime_is_utc(recurrence.until) != 0 ? untilToLocal(until.secondsSinceEpoch) : until
                    last = local.date
                    if (start.hour, start.minute, start.second) > (local.hour, local.minute, local.second) {
                        last = last.adding(days: -1)
                    }
                }
                guard last >= startDay else {
                    throw refuse("\(quote("UNTIL")) ends before DTSTART \(startDay.dateString)")
                }
                end = .date(last)
            }

            if let day = plainMonthDay {
                let step: Int
                switch pattern {
                case .absoluteYearly: step = 12 * interval
                default: step = interval
                }
                if RecurrenceMapping.visitsShortMonth(day: day, from: startDay, everyMonths: step, end: end) {
                    let source = parts["BYMONTHDAY"] != nil ? quote("BYMONTHDAY") : "day \(day) of DTSTART"
                    throw refuse(
                        "\(source): iCalendar skips months without day \(day), "
                            + "Graph moves the occurrence to the month's last day"
                    )
                }
            }

            let firstDayOfWeek: Int?
            if parts["WKST"] != nil {
                firstDayOfWeek = Int(recurrence.week_start.rawValue) - 1
            } else if case .weekly = pattern {
                firstDayOfWeek = 1  // RFC 5545's default: Monday (Graph's would be Sunday).
            } else {
                firstDayOfWeek = nil
            }
            self.pattern = pattern
            self.interval = interval
            self.firstDayOfWeek = firstDayOfWeek
            self.end = end
        }

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
            range.recurrenceTimeZone = recurrenceTimeZone
            return GraphPatternedRecurrence(pattern: graph, range: range)
        }
    }

    /// The values of one of libical's `by_*` arrays, up to its `ICAL_RECURRENCE_ARRAY_MAX` end mark.
    static func values<Storage>(of array: Storage) -> [Int] {
        withUnsafeBytes(of: array) { raw in
            let endMark = Int(ICAL_RECURRENCE_ARRAY_MAX.rawValue)
            var result: [Int] = []
            for offset in stride(from: 0, to: raw.count, by: MemoryLayout<Int16>.stride) {
                let value = Int(raw.load(fromByteOffset: offset, as: Int16.self))
                if value == endMark { break }
                result.append(value)
            }
            return result
        }
    }

    static func indexName(_ index: Int) -> String {
        GraphMappings.weekIndex.first { $0.value == index }?.key ?? "first"
    }
}

// MARK: - Writing an RRULE

extension RecurrenceMapping {
    static func writeRule(
        _ recurrence: GraphPatternedRecurrence, start: CivilDateTime, isAllDay: Bool,
        endOfDayToUTC: (CivilDateTime) -> Int64
    ) throws(Unsupported) -> String {
        let rule = describe(recurrence)
        func refuse(_ reason: String) -> Unsupported { Unsupported(rule: rule, reason: reason) }

        guard let graph = recurrence.pattern else { throw refuse("the recurrence has no pattern") }
        let type = graph.type ?? ""
        let interval = graph.interval ?? 1
        guard interval >= 1 else { throw refuse("interval \(interval): Graph's interval is a positive number") }

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

        let pattern: Pattern
        switch type {
        case "daily":
            try unused(days: true, dayOfMonth: true, month: true, index: true)
            pattern = .daily
        case "weekly":
            try unused(dayOfMonth: true, month: true, index: true)
            pattern = .weekly(days: try days())
        case "absoluteMonthly":
            try unused(days: true, month: true, index: true)
            pattern = .absoluteMonthly(day: try dayOfMonth())
        case "relativeMonthly":
            try unused(dayOfMonth: true, month: true)
            pattern = .relativeMonthly(days: try days(), index: try index())
        case "absoluteYearly":
            try unused(days: true, index: true)
            pattern = .absoluteYearly(month: try month(), day: try dayOfMonth())
        case "relativeYearly":
            try unused(dayOfMonth: true)
            pattern = .relativeYearly(month: try month(), days: try days(), index: try index())
        default:
            throw refuse("pattern type \"\(graph.type ?? "(none)")\" is not one Graph documents")
        }
        var firstDayOfWeek = try graph.firstDayOfWeek.map { (name) throws(Unsupported) in
            try weekday(name, "firstDayOfWeek")
        }
        if case .weekly = pattern, firstDayOfWeek == nil { firstDayOfWeek = 0 }  // Graph's default: Sunday.

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
        let end: End
        switch range.type {
        case "noEnd":
            end = .never
        case "numbered":
            guard let count = range.numberOfOccurrences, count >= 1 else {
                throw refuse(
                    "numberOfOccurrences \(range.numberOfOccurrences.map(String.init) ?? "(none)") is not positive")
            }
            end = .count(count)
        case "endDate":
            guard let text = range.endDate, let last = GraphTimestamp.parse(text)?.civil.date else {
                throw refuse("range endDate \"\(range.endDate ?? "(none)")\" is not a date")
            }
            guard last >= start else {
                throw refuse("range endDate \(last.dateString) is before the series start \(start.dateString)")
            }
            end = .date(last)
        default:
            throw refuse("range type \"\(range.type ?? "(none)")\" is not noEnd, numbered or endDate")
        }

        guard matches(pattern, start) else {
            throw refuse(
                "the series start \(start.dateString) is not an occurrence of the pattern: "
                    + "DTSTART always counts in iCalendar"
            )
        }

        // Weekdays listed from the week start that will apply (WKST, else RFC 5545's Monday).
        let weekStart = firstDayOfWeek ?? 1
        func codes(_ days: [Int]) -> String {
            days.sorted { ($0 - weekStart + 7) % 7 < ($1 - weekStart + 7) % 7 }
                .map { GraphMappings.weekdays[$0].ical }.joined(separator: ",")
        }
        /// Graph's day `day` → BYMONTHDAY (+ BYSETPOS), exact also where Graph moves it to a month's end.
        func monthDay(_ day: Int, month: Int?) -> (byMonthDay: String, bySetPos: String?) {
            let longest = month.map(longestMonth) ?? 31
            let day = min(day, longest)
            let step = month == nil ? interval : 12 * interval
            guard visitsShortMonth(day: day, from: start, everyMonths: step, end: end) else { return ("\(day)", nil) }
            if day == longest { return ("-1", nil) }
            return ((28...day).map(String.init).joined(separator: ","), "-1")
        }

        var parts: [String] = []
        var byDay: String?
        var byMonthDay: String?
        var byMonth: String?
        var bySetPos: String?
        switch pattern {
        case .daily:
            parts.append("FREQ=DAILY")
        case .weekly(let days):
            parts.append("FREQ=WEEKLY")
            byDay = codes(days)
        case .absoluteMonthly(let day):
            parts.append("FREQ=MONTHLY")
            let written = monthDay(day, month: nil)
            byMonthDay = written.byMonthDay
            bySetPos = written.bySetPos
        case .relativeMonthly(let days, let index):
            parts.append("FREQ=MONTHLY")
            let written = relativeParts(days, index, codes)
            byDay = written.byDay
            bySetPos = written.bySetPos
        case .absoluteYearly(let month, let day):
            parts.append("FREQ=YEARLY")
            let written = monthDay(day, month: month)
            byMonthDay = written.byMonthDay
            bySetPos = written.bySetPos
            byMonth = "\(month)"
        case .relativeYearly(let month, let days, let index):
            parts.append("FREQ=YEARLY")
            let written = relativeParts(days, index, codes)
            byDay = written.byDay
            bySetPos = written.bySetPos
            byMonth = "\(month)"
        }
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
        case .date(let last):
            if isAllDay {
                parts.append("UNTIL=\(compact(last, time: false))")
            } else {
                var endOfDay = last
                endOfDay.hour = 23
                endOfDay.minute = 59
                endOfDay.second = 59
                let utc = CivilDateTime(secondsSinceEpoch: endOfDayToUTC(endOfDay))
                parts.append("UNTIL=\(compact(utc, time: true))Z")
            }
        }
        return parts.joined(separator: ";")
    }

    /// One weekday with a position → `BYDAY=2TU`; several → `BYDAY=MO,TU;BYSETPOS=2`.
    private static func relativeParts(_ days: [Int], _ index: Int, _ codes: ([Int]) -> String)
        -> (byDay: String, bySetPos: String?)
    {
        if days.count == 1 { return ("\(index)\(codes(days))", nil) }
        return (codes(days), "\(index)")
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
