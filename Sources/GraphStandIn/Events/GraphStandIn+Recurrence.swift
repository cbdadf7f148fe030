// Stands in for Exchange's expansion of a `patternedRecurrence` into occurrences when a series is created
// through Graph (daily, weekly, absolute/relative monthly and yearly; endDate, numbered and noEnd ranges),
// so graph-ics can list a created series' instances, delete one (EXDATE) or patch one (an override).
// Seeded events are never expanded: tests seed occurrences explicitly.
import Foundation

extension GraphStandIn {
    /// A recurrence the stand-in cannot expand, with Graph's wording where it has one.
    struct RecurrenceProblem: Error {
        var message: String
    }

    /// How far a `noEnd` series is expanded (Exchange expands on demand; two years covers any test).
    static let noEndHorizonDays = 730
    /// An upper bound on the occurrences of one series.
    static let maxOccurrences = 2000

    static let weekdayNames = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
    static let indexNames = ["first": 0, "second": 1, "third": 2, "fourth": 3, "last": -1]

    /// The days (since 1970-01-01) a series falls on, collected in order within its range's bounds.
    struct OccurrenceDays {
        /// The range's `startDate`: pattern days before it are skipped.
        var firstDay: Int
        /// The last day the range allows.
        var lastDay: Int
        /// The most occurrences the range allows.
        var limit: Int
        var days: [Int] = []

        /// Adds a pattern day; false once the day is past the range or the range is full.
        mutating func add(_ day: Int) -> Bool {
            guard day <= lastDay, days.count < limit else { return false }
            if day >= firstDay { days.append(day) }
            return true
        }
    }

    /// The wall-clock starts (in the start's zone) of a series' occurrences: each on a pattern date at the
    /// master's time of day in the range's `recurrenceTimeZone` (the start's zone when it names none).
    static func occurrenceStarts(_ recurrence: [String: Any], start: When)
        -> Result<[GraphDateTime], RecurrenceProblem>
    {
        guard let pattern = recurrence["pattern"] as? [String: Any], let range = recurrence["range"] as? [String: Any],
            let patternType = pattern["type"] as? String, let rangeType = range["type"] as? String
        else {
            return .failure(RecurrenceProblem(message: "The recurrence needs a pattern and a range, each with a type."))
        }
        if let problem = rangeStartProblem(range, start: start) { return .failure(problem) }
        let interval = pattern["interval"] as? Int ?? 1
        guard interval >= 1 else {
            return .failure(RecurrenceProblem(message: "The recurrence pattern's interval must be at least 1."))
        }
        var dates: OccurrenceDays
        switch occurrenceBounds(range, type: rangeType) {
        case .success(let bounds): dates = bounds
        case .failure(let problem): return .failure(problem)
        }
        if let problem = collect(pattern, type: patternType, interval: interval, into: &dates) {
            return .failure(problem)
        }
        let startZone = timeZone(named: start.zone) ?? utc
        let patternZone = (range["recurrenceTimeZone"] as? String).flatMap(timeZone(named:)) ?? startZone
        let time = patternZone == startZone ? start.local : GraphDateTime(start.instant, in: patternZone)
        return .success(
            dates.days.map { day in
                let (year, monthNumber, dayNumber) = GraphDateTime.civil(days: day)
                let local = GraphDateTime(
                    year: year, month: monthNumber, day: dayNumber, hour: time.hour, minute: time.minute,
                    second: time.second, ticks: time.ticks)
                return patternZone == startZone ? local : GraphDateTime(local.instant(in: patternZone), in: startZone)
            })
    }

    /// Graph's rule for `range.startDate`: the date of the series' start in the range's `recurrenceTimeZone`
    /// (the event's own zone when there is none), `resources/recurrencerange.md`. A payload whose start was
    /// moved into another zone than its pattern's (a Tuesday 21:30 UTC start with a Wednesday pattern and
    /// `startDate` in Berlin time) is refused.
    static func rangeStartProblem(_ range: [String: Any], start: When) -> RecurrenceProblem? {
        let zoneName = range["recurrenceTimeZone"] as? String ?? start.zone
        guard let zone = timeZone(named: zoneName) else {
            return RecurrenceProblem(
                message: "A valid TimeZone value must be specified. The following TimeZone value is not supported: "
                    + "'\(zoneName)'.")
        }
        guard let text = range["startDate"] as? String, let startDate = GraphDateTime(text) else { return nil }
        let local = GraphDateTime(start.instant, in: zone)
        guard (local.year, local.month, local.day) != (startDate.year, startDate.month, startDate.day) else {
            return nil
        }
        let expected = String(format: "%04d-%02d-%02d", local.year, local.month, local.day)
        return RecurrenceProblem(
            message: "The recurrence range's startDate \(text) is not the date of the event's start in "
                + "\(zoneName) (\(expected)).")
    }

    /// The bounds a `recurrenceRange` sets: its start, and its end date or number of occurrences.
    static func occurrenceBounds(_ range: [String: Any], type rangeType: String)
        -> Result<OccurrenceDays, RecurrenceProblem>
    {
        let startText = range["startDate"] as? String ?? ""
        guard let rangeStart = GraphDateTime(startText) else {
            return .failure(RecurrenceProblem(message: "The recurrence range needs a startDate (YYYY-MM-DD)."))
        }
        let firstDay = GraphDateTime.days(year: rangeStart.year, month: rangeStart.month, day: rangeStart.day)
        var lastDay = firstDay + noEndHorizonDays
        var limit = maxOccurrences
        switch rangeType {
        case "endDate":
            guard let endText = range["endDate"] as? String, let end = GraphDateTime(endText) else {
                return .failure(RecurrenceProblem(message: "An endDate range needs an endDate (YYYY-MM-DD)."))
            }
            lastDay = GraphDateTime.days(year: end.year, month: end.month, day: end.day)
            guard lastDay >= firstDay else {
                return .failure(RecurrenceProblem(message: "The recurrence range's endDate is before its startDate."))
            }
        case "numbered":
            guard let count = range["numberOfOccurrences"] as? Int, count >= 1 else {
                return .failure(RecurrenceProblem(message: "A numbered range needs numberOfOccurrences of at least 1."))
            }
            limit = min(count, maxOccurrences)
            lastDay = firstDay + 366 * 100
        case "noEnd":
            break
        default:
            return .failure(RecurrenceProblem(message: "Unknown recurrence range type '\(rangeType)'."))
        }
        return .success(OccurrenceDays(firstDay: firstDay, lastDay: lastDay, limit: limit))
    }

    /// Collects the days a `recurrencePattern` names; nil when done, the problem when the pattern is unusable.
    static func collect(
        _ pattern: [String: Any], type patternType: String, interval: Int, into dates: inout OccurrenceDays
    ) -> RecurrenceProblem? {
        let days = (pattern["daysOfWeek"] as? [String] ?? []).compactMap { name in
            weekdayNames.firstIndex(of: name.lowercased())
        }
        switch patternType {
        case "daily":
            var day = dates.firstDay
            while dates.add(day) { day += interval }
        case "weekly":
            guard !days.isEmpty else { return RecurrenceProblem(message: "A weekly pattern needs daysOfWeek.") }
            let firstDayOfWeek =
                weekdayNames.firstIndex(of: (pattern["firstDayOfWeek"] as? String ?? "sunday").lowercased()) ?? 0
            collectWeekly(days, firstDayOfWeek: firstDayOfWeek, interval: interval, into: &dates)
        case "absoluteMonthly", "relativeMonthly", "absoluteYearly", "relativeYearly":
            return collectMonthly(pattern, type: patternType, weekdays: days, interval: interval, into: &dates)
        default:
            return RecurrenceProblem(message: "Unknown recurrence pattern type '\(patternType)'.")
        }
        return nil
    }

    /// Every `interval`th week from the one holding the range's start, on the given weekdays in week order.
    static func collectWeekly(_ days: [Int], firstDayOfWeek: Int, interval: Int, into dates: inout OccurrenceDays) {
        let weekday = ((dates.firstDay % 7) + 11) % 7
        var weekStart = dates.firstDay - ((weekday - firstDayOfWeek + 7) % 7)
        let ordered = (0..<7).map { (firstDayOfWeek + $0) % 7 }.filter { days.contains($0) }
        while true {
            for day in ordered {
                let offset = (day - firstDayOfWeek + 7) % 7
                if !dates.add(weekStart + offset) { return }
            }
            weekStart += 7 * interval
        }
    }

    /// Every `interval`th month (or year, in the pattern's month): a day of the month, clamped to its length,
    /// or the first to fourth or last of the given weekdays.
    static func collectMonthly(
        _ pattern: [String: Any], type patternType: String, weekdays days: [Int], interval: Int,
        into dates: inout OccurrenceDays
    ) -> RecurrenceProblem? {
        let dayOfMonth = pattern["dayOfMonth"] as? Int ?? 0
        let month = pattern["month"] as? Int ?? 0
        let index = indexNames[(pattern["index"] as? String ?? "first").lowercased()] ?? 0
        let yearly = patternType.hasSuffix("Yearly")
        let relative = patternType.hasPrefix("relative")
        if relative && days.isEmpty {
            return RecurrenceProblem(message: "A relative pattern needs daysOfWeek.")
        }
        if !relative && !(1...31).contains(dayOfMonth) {
            return RecurrenceProblem(message: "An absolute pattern needs dayOfMonth between 1 and 31.")
        }
        if yearly && !(1...12).contains(month) {
            return RecurrenceProblem(message: "A yearly pattern needs month between 1 and 12.")
        }
        let start = GraphDateTime.civil(days: dates.firstDay)
        var monthIndex = start.year * 12 + (yearly ? month - 1 : start.month - 1)
        if yearly && monthIndex < start.year * 12 + start.month - 1 { monthIndex += 12 }
        let step = yearly ? 12 * interval : interval
        while true {
            let year = monthIndex / 12
            let monthNumber = monthIndex % 12 + 1
            let length = GraphDateTime.daysIn(month: monthNumber, year: year)
            let first = GraphDateTime.days(year: year, month: monthNumber, day: 1)
            if first > dates.lastDay || dates.days.count >= dates.limit { break }
            let day: Int
            if relative {
                let matching = (0..<length).map { first + $0 }.filter { days.contains((($0 % 7) + 11) % 7) }
                day = index < 0 ? matching[matching.count - 1] : matching[min(index, matching.count - 1)]
            } else {
                day = first + min(dayOfMonth, length) - 1
            }
            if !dates.add(day) { break }
            monthIndex += step
        }
        return nil
    }

    // MARK: Occurrences

    /// Stores one occurrence per start, copying the master's properties.
    static func storeOccurrences(of master: StoredEvent, starts: [GraphDateTime], in state: inout State) {
        guard let zone = timeZone(named: master.startZone) else { return }
        let endZone = timeZone(named: master.endZone) ?? zone
        let wallLength = master.endLocal.secondsAsUTC - master.startLocal.secondsAsUTC
        let length = master.end.timeIntervalSince(master.start)
        var fields = master.fields
        fields["recurrence"] = NSNull()
        fields["transactionId"] = NSNull()
        for startLocal in starts {
            let startInstant = startLocal.instant(in: zone)
            let endInstant: Date
            let endLocal: GraphDateTime
            if master.isAllDay {
                endLocal = startLocal.adding(days: wallLength / 86_400)
                endInstant = endLocal.instant(in: endZone)
            } else {
                endInstant = startInstant.addingTimeInterval(length)
                endLocal = GraphDateTime(endInstant, in: endZone)
            }
            var own = fields
            own["iCalUId"] = "040000008200E00074C5B7101A82E00807" + randomHex(bytes: 26)
            own["originalStart"] = utcStamp(startInstant)
            state.nextSequence += 1
            let occurrence = StoredEvent(
                id: newItemID(prefix: "AAMkAGI2Occ"), userID: master.userID, calendarID: master.calendarID,
                fields: own, start: startInstant, end: endInstant, startLocal: startLocal,
                endLocal: GraphDateTime(
                    year: endLocal.year, month: endLocal.month, day: endLocal.day, hour: endLocal.hour,
                    minute: endLocal.minute, second: endLocal.second, ticks: endLocal.ticks),
                startZone: master.startZone, endZone: master.endZone, isAllDay: master.isAllDay, type: "occurrence",
                seriesMasterID: master.id, extendedProperties: master.extendedProperties, sequence: state.nextSequence)
            state.events[occurrence.id] = occurrence
        }
    }
}
