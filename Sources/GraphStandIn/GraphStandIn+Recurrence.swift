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

    /// The wall-clock starts of a series' occurrences, each on a pattern date at the master's time of day.
    static func occurrenceStarts(_ recurrence: [String: Any], masterStart: GraphDateTime)
        -> Result<[GraphDateTime], RecurrenceProblem>
    {
        guard let pattern = recurrence["pattern"] as? [String: Any], let range = recurrence["range"] as? [String: Any],
            let patternType = pattern["type"] as? String, let rangeType = range["type"] as? String
        else {
            return .failure(RecurrenceProblem(message: "The recurrence needs a pattern and a range, each with a type."))
        }
        let interval = pattern["interval"] as? Int ?? 1
        guard interval >= 1 else {
            return .failure(RecurrenceProblem(message: "The recurrence pattern's interval must be at least 1."))
        }
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

        let days = (pattern["daysOfWeek"] as? [String] ?? []).compactMap { name in
            weekdayNames.firstIndex(of: name.lowercased())
        }
        let dayOfMonth = pattern["dayOfMonth"] as? Int ?? 0
        let month = pattern["month"] as? Int ?? 0
        let index = indexNames[(pattern["index"] as? String ?? "first").lowercased()] ?? 0
        let firstDayOfWeek =
            weekdayNames.firstIndex(of: (pattern["firstDayOfWeek"] as? String ?? "sunday").lowercased()) ?? 0

        var dates: [Int] = []
        func add(_ day: Int) -> Bool {
            guard day <= lastDay, dates.count < limit else { return false }
            if day >= firstDay { dates.append(day) }
            return true
        }
        let start = GraphDateTime.civil(days: firstDay)
        switch patternType {
        case "daily":
            var day = firstDay
            while add(day) { day += interval }
        case "weekly":
            guard !days.isEmpty else {
                return .failure(RecurrenceProblem(message: "A weekly pattern needs daysOfWeek."))
            }
            let weekday = ((firstDay % 7) + 11) % 7
            var weekStart = firstDay - ((weekday - firstDayOfWeek + 7) % 7)
            let ordered = (0..<7).map { (firstDayOfWeek + $0) % 7 }.filter { days.contains($0) }
            outer: while true {
                for day in ordered {
                    let offset = (day - firstDayOfWeek + 7) % 7
                    if !add(weekStart + offset) { break outer }
                }
                weekStart += 7 * interval
            }
        case "absoluteMonthly", "relativeMonthly", "absoluteYearly", "relativeYearly":
            let yearly = patternType.hasSuffix("Yearly")
            let relative = patternType.hasPrefix("relative")
            if relative && days.isEmpty {
                return .failure(RecurrenceProblem(message: "A relative pattern needs daysOfWeek."))
            }
            if !relative && !(1...31).contains(dayOfMonth) {
                return .failure(RecurrenceProblem(message: "An absolute pattern needs dayOfMonth between 1 and 31."))
            }
            if yearly && !(1...12).contains(month) {
                return .failure(RecurrenceProblem(message: "A yearly pattern needs month between 1 and 12."))
            }
            var monthIndex = start.year * 12 + (yearly ? month - 1 : start.month - 1)
            if yearly && monthIndex < start.year * 12 + start.month - 1 { monthIndex += 12 }
            let step = yearly ? 12 * interval : interval
            while true {
                let year = monthIndex / 12
                let monthNumber = monthIndex % 12 + 1
                let length = GraphDateTime.daysIn(month: monthNumber, year: year)
                let first = GraphDateTime.days(year: year, month: monthNumber, day: 1)
                if first > lastDay || dates.count >= limit { break }
                let day: Int
                if relative {
                    let matching = (0..<length).map { first + $0 }.filter { days.contains((($0 % 7) + 11) % 7) }
                    day = index < 0 ? matching[matching.count - 1] : matching[min(index, matching.count - 1)]
                } else {
                    day = first + min(dayOfMonth, length) - 1
                }
                if !add(day) { break }
                monthIndex += step
            }
        default:
            return .failure(RecurrenceProblem(message: "Unknown recurrence pattern type '\(patternType)'."))
        }
        return .success(
            dates.map { day in
                let (year, monthNumber, dayNumber) = GraphDateTime.civil(days: day)
                return GraphDateTime(
                    year: year, month: monthNumber, day: dayNumber, hour: masterStart.hour, minute: masterStart.minute,
                    second: masterStart.second, ticks: masterStart.ticks)
            })
    }
}
