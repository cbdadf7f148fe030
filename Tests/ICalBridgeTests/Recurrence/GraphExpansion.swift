import Foundation

@testable import ICalBridge

/// Graph's documented recurrence semantics, expanded by brute force and independently of the mapping:
/// every day from the start is tested against the pattern and its interval.
enum GraphExpansion {
    static let names = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
    static let indexes = ["first": 1, "second": 2, "third": 3, "fourth": 4, "last": -1]

    static func occurrences(_ recurrence: GraphPatternedRecurrence, start: CivilDateTime, limit: Int)
        -> [CivilDateTime]
    {
        guard let pattern = recurrence.pattern, let range = recurrence.range else { return [] }
        let interval = pattern.interval ?? 1
        let days = Set((pattern.daysOfWeek ?? []).compactMap { names.firstIndex(of: $0) })
        let firstDay = names.firstIndex(of: pattern.firstDayOfWeek ?? "sunday") ?? 0
        let index = indexes[pattern.index ?? "first"] ?? 1
        let count = range.type == "numbered" ? range.numberOfOccurrences ?? 0 : Int.max
        let endDate = range.type == "endDate" ? range.endDate : nil

        func weekday(_ date: CivilDateTime) -> Int { date.isoWeekday % 7 }
        func weekStart(_ date: CivilDateTime) -> Int64 {
            date.daysSinceEpoch - Int64((weekday(date) - firstDay + 7) % 7)
        }
        func monthsSinceStart(_ date: CivilDateTime) -> Int {
            (date.year * 12 + date.month) - (start.year * 12 + start.month)
        }
        func dayOfMonthFits(_ date: CivilDateTime) -> Bool {
            let length = CivilDateTime.daysInMonth(year: date.year, month: date.month)
            return date.day == min(pattern.dayOfMonth ?? 0, length)
        }
        func relativeFits(_ date: CivilDateTime) -> Bool {
            let length = CivilDateTime.daysInMonth(year: date.year, month: date.month)
            let candidates = (1...length).filter {
                days.contains(weekday(CivilDateTime(year: date.year, month: date.month, day: $0)))
            }
            let chosen = index == -1 ? candidates.last : candidates.dropFirst(index - 1).first
            return date.day == chosen
        }
        func fits(_ date: CivilDateTime, _ offset: Int) -> Bool {
            switch pattern.type {
            case "daily":
                return offset % interval == 0
            case "weekly":
                return days.contains(weekday(date)) && (weekStart(date) - weekStart(start)) / 7 % Int64(interval) == 0
            case "absoluteMonthly":
                return monthsSinceStart(date) % interval == 0 && dayOfMonthFits(date)
            case "relativeMonthly":
                return monthsSinceStart(date) % interval == 0 && relativeFits(date)
            case "absoluteYearly":
                return (date.year - start.year) % interval == 0 && date.month == pattern.month && dayOfMonthFits(date)
            case "relativeYearly":
                return (date.year - start.year) % interval == 0 && date.month == pattern.month && relativeFits(date)
            default:
                return false
            }
        }

        var result: [CivilDateTime] = []
        for offset in 0..<(366 * 130) {
            let date = start.adding(days: offset)
            if let endDate, date.dateString > endDate { break }
            if result.count >= min(limit, count) { break }
            if fits(date, offset) { result.append(date) }
        }
        return result
    }
}
