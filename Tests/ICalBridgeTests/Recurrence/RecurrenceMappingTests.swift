import Foundation
import Testing

@testable import ICalBridge

/// RRULE ↔ Graph `patternedRecurrence`: every shape Graph holds, both ways, with exact values; every
/// refused shape with the part it names; round trips checked against libical's own expansion and against
/// an independent brute-force expansion of Graph's documented semantics.
@Suite struct RecurrenceMappingTests {
    static let zone = "W. Europe Standard Time"

    // MARK: - Tables

    /// An RRULE Graph can hold, with the recurrence it must become (identity UTC conversion for UNTIL).
    struct ImportCase: Sendable, CustomTestStringConvertible {
        var rrule: String
        var start: CivilDateTime
        var isAllDay = false
        var pattern: GraphRecurrencePattern
        var range: GraphRecurrenceRange
        var testDescription: String { "\(rrule) from \(start)" }
    }

    /// An RRULE Graph cannot hold, and the text its reason must contain.
    struct RefusedRule: Sendable, CustomTestStringConvertible {
        var rrule: String
        var start: CivilDateTime
        var names: [String]
        var testDescription: String { rrule.isEmpty ? "(empty rule)" : rrule }

        init(_ rrule: String, _ names: String..., start: CivilDateTime = at(2026, 3, 2)) {
            self.rrule = rrule
            self.start = start
            self.names = names
        }
    }

    /// A Graph recurrence and the RRULE it must become (identity UTC conversion for UNTIL).
    struct ExportCase: Sendable, CustomTestStringConvertible {
        var recurrence: GraphPatternedRecurrence
        var start: CivilDateTime
        var isAllDay = false
        var rrule: String
        /// Written as the reverse direction produces it, so Graph → RRULE → Graph must be the identity.
        var isCanonical = true
        var testDescription: String { rrule }
    }

    /// A Graph recurrence that cannot be written exactly, and the text its reason must contain.
    struct RefusedRecurrence: Sendable, CustomTestStringConvertible {
        var recurrence: GraphPatternedRecurrence
        var start: CivilDateTime
        var name: String
        var testDescription: String { "\(RecurrenceMapping.describe(recurrence)) → \(name)" }
    }

    static func at(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 9) -> CivilDateTime {
        CivilDateTime(year: year, month: month, day: day, hour: hour)
    }

    static func day(_ year: Int, _ month: Int, _ day: Int) -> CivilDateTime {
        CivilDateTime(year: year, month: month, day: day)
    }

    static func pattern(
        _ type: String, interval: Int = 1, days: [String]? = nil, firstDay: String? = nil, index: String? = nil,
        month: Int? = nil, dayOfMonth: Int? = nil
    ) -> GraphRecurrencePattern {
        var pattern = GraphRecurrencePattern(type: type, interval: interval)
        pattern.daysOfWeek = days
        pattern.firstDayOfWeek = firstDay
        pattern.index = index
        pattern.month = month
        pattern.dayOfMonth = dayOfMonth
        return pattern
    }

    static func range(_ startDate: String, until endDate: String? = nil, count: Int? = nil) -> GraphRecurrenceRange {
        var range = GraphRecurrenceRange(type: "noEnd", startDate: startDate)
        if let endDate {
            range.type = "endDate"
            range.endDate = endDate
        } else if let count {
            range.type = "numbered"
            range.numberOfOccurrences = count
        }
        range.recurrenceTimeZone = zone
        return range
    }

    static func utcIsLocal(_ seconds: Int64) -> CivilDateTime { CivilDateTime(secondsSinceEpoch: seconds) }
    static func localIsUTC(_ local: CivilDateTime) -> Int64 { local.secondsSinceEpoch }

    // MARK: - iCalendar → Graph

    @Test("every RRULE shape Graph holds becomes the exact pattern and range", arguments: imports)
    func importsSupportedShape(_ example: ImportCase) throws {
        let result = RecurrenceMapping.graphRecurrence(
            rrule: example.rrule, start: example.start, isAllDay: example.isAllDay, recurrenceTimeZone: Self.zone,
            untilToLocal: Self.utcIsLocal)
        let recurrence = try result.get()
        #expect(recurrence.pattern == example.pattern)
        #expect(recurrence.range == example.range)
    }

    @Test("every RRULE Graph cannot hold is refused with the offending part named", arguments: refusedRules)
    func refusesUnsupportedRule(_ example: RefusedRule) {
        let result = RecurrenceMapping.graphRecurrence(
            rrule: example.rrule, start: example.start, isAllDay: false, recurrenceTimeZone: Self.zone,
            untilToLocal: Self.utcIsLocal)
        guard case .failure(let unsupported) = result else {
            Issue.record("\(example.rrule) was mapped to \(result)")
            return
        }
        #expect(unsupported.rule == example.rrule)
        for name in example.names {
            #expect(unsupported.reason.contains(name), "reason: \(unsupported.reason)")
        }
        #expect(unsupported.description.contains(unsupported.reason))
    }

    @Test("a UTC UNTIL is read in the recurrence zone, and the start's time decides the last date")
    func utcUntilFallsOnItsLocalDate() throws {
        var calls: [Int64] = []
        func endDate(_ rrule: String) throws -> String? {
            try RecurrenceMapping.graphRecurrence(
                rrule: rrule, start: Self.at(2026, 6, 1), isAllDay: false, recurrenceTimeZone: nil,
                untilToLocal: { seconds in
                    calls.append(seconds)
                    return CivilDateTime(secondsSinceEpoch: seconds + 7200)  // Berlin in summer.
                }
            ).get().range?.endDate
        }
        // 09:00 local is 07:00Z: an UNTIL at that instant keeps the last day, one second earlier does not.
        #expect(try endDate("FREQ=DAILY;UNTIL=20260610T070000Z") == "2026-06-10")
        #expect(try endDate("FREQ=DAILY;UNTIL=20260610T065959Z") == "2026-06-09")
        // 23:00Z is already the next day in Berlin, but before 09:00 there.
        #expect(try endDate("FREQ=DAILY;UNTIL=20260609T230000Z") == "2026-06-09")
        #expect(try endDate("FREQ=DAILY;UNTIL=20260610T215959Z") == "2026-06-10")
        #expect(calls == [1_781_074_800, 1_781_074_799, 1_781_046_000, 1_781_128_799])

        // Floating and DATE values are already local: the closure is not asked.
        calls = []
        #expect(try endDate("FREQ=DAILY;UNTIL=20260610T120000") == "2026-06-10")
        #expect(try endDate("FREQ=DAILY;UNTIL=20260610") == "2026-06-09")
        #expect(calls.isEmpty)
    }

    @Test("all-day series take UNTIL's date as written and never ask for a zone conversion")
    func allDayUntilIsADate() throws {
        let recurrence = try RecurrenceMapping.graphRecurrence(
            rrule: "FREQ=DAILY;UNTIL=20260610T230000Z", start: Self.day(2026, 6, 1), isAllDay: true,
            recurrenceTimeZone: nil,
            untilToLocal: { _ in
                Issue.record("the closure was called for an all-day series")
                return CivilDateTime(year: 1970, month: 1, day: 1)
            }
        ).get()
        #expect(recurrence.range?.endDate == "2026-06-10")
        #expect(recurrence.range?.recurrenceTimeZone == nil)
    }

    // MARK: - Graph → iCalendar

    @Test("every Graph pattern becomes the exact RRULE text, and libical parses it", arguments: exports)
    func exportsSupportedPattern(_ example: ExportCase) throws {
        let rrule = try RecurrenceMapping.rrule(
            from: example.recurrence, start: example.start, isAllDay: example.isAllDay,
            endOfDayToUTC: Self.localIsUTC
        ).get()
        #expect(rrule == example.rrule)
        let occurrences = RecurrenceMapping.occurrences(
            rrule: rrule, start: example.start, isAllDay: example.isAllDay, count: 3)
        #expect(occurrences.first == example.start, "libical did not expand \(rrule) from its start")
    }

    @Test(
        "every Graph recurrence that cannot be written exactly is refused, naming the property",
        arguments: refusedRecurrences)
    func refusesUnsupportedRecurrence(_ example: RefusedRecurrence) {
        let result = RecurrenceMapping.rrule(
            from: example.recurrence, start: example.start, isAllDay: false, endOfDayToUTC: Self.localIsUTC)
        guard case .failure(let unsupported) = result else {
            Issue.record("mapped to \(result)")
            return
        }
        #expect(unsupported.reason.contains(example.name), "reason: \(unsupported.reason)")
        #expect(unsupported.rule == RecurrenceMapping.describe(example.recurrence))
    }

    @Test("UNTIL is the end of endDate in the recurrence zone, converted to UTC by the caller")
    func untilIsTheEndOfTheLastDayInUTC() throws {
        var asked: [CivilDateTime] = []
        let rrule = try RecurrenceMapping.rrule(
            from: .init(pattern: Self.pattern("daily"), range: Self.range("2026-06-01", until: "2026-06-30")),
            start: Self.at(2026, 6, 1), isAllDay: false,
            endOfDayToUTC: { local in
                asked.append(local)
                return local.secondsSinceEpoch - 7200  // Berlin in summer.
            }
        ).get()
        #expect(rrule == "FREQ=DAILY;UNTIL=20260630T215959Z")
        #expect(asked == [CivilDateTime(year: 2026, month: 6, day: 30, hour: 23, minute: 59, second: 59)])
    }

    // MARK: - Round trips

    @Test("RRULE → Graph → RRULE generates the same occurrences in libical", arguments: imports)
    func ruleRoundTripKeepsOccurrences(_ example: ImportCase) throws {
        let graph = try RecurrenceMapping.graphRecurrence(
            rrule: example.rrule, start: example.start, isAllDay: example.isAllDay, recurrenceTimeZone: Self.zone,
            untilToLocal: Self.utcIsLocal
        ).get()
        let rrule = try RecurrenceMapping.rrule(
            from: graph, start: example.start, isAllDay: example.isAllDay, endOfDayToUTC: Self.localIsUTC
        ).get()
        let original = RecurrenceMapping.occurrences(
            rrule: example.rrule.replacingPrefix("RRULE:"), start: example.start, isAllDay: example.isAllDay,
            count: 20)
        let written = RecurrenceMapping.occurrences(
            rrule: rrule, start: example.start, isAllDay: example.isAllDay, count: 20)
        #expect(original.first == example.start)
        #expect(written == original, "\(example.rrule) came back as \(rrule)")
        // And Graph's own semantics, expanded independently, give the same series.
        #expect(GraphExpansion.occurrences(graph, start: example.start, limit: 20) == original)
    }

    @Test(
        "Graph → RRULE → Graph is the identity, and libical expands the RRULE as Graph would",
        arguments: exports)
    func recurrenceRoundTripIsIdentity(_ example: ExportCase) throws {
        let rrule = try RecurrenceMapping.rrule(
            from: example.recurrence, start: example.start, isAllDay: example.isAllDay,
            endOfDayToUTC: Self.localIsUTC
        ).get()
        let back = try RecurrenceMapping.graphRecurrence(
            rrule: rrule, start: example.start, isAllDay: example.isAllDay, recurrenceTimeZone: Self.zone,
            untilToLocal: Self.utcIsLocal
        ).get()
        if example.isCanonical {
            #expect(back == example.recurrence)
        }
        let libical = RecurrenceMapping.occurrences(
            rrule: rrule, start: example.start, isAllDay: example.isAllDay, count: 20)
        #expect(libical == GraphExpansion.occurrences(example.recurrence, start: example.start, limit: 20))
        #expect(GraphExpansion.occurrences(back, start: example.start, limit: 20) == libical)
    }

    @Test("month ends: Graph's day 31 is the last day of every month, and BYMONTHDAY=-1 says the same")
    func monthEndsFollowGraph() throws {
        let recurrence = GraphPatternedRecurrence(
            pattern: Self.pattern("absoluteMonthly", dayOfMonth: 31), range: Self.range("2027-12-31", count: 4))
        let rrule = try RecurrenceMapping.rrule(
            from: recurrence, start: Self.at(2027, 12, 31), isAllDay: false, endOfDayToUTC: Self.localIsUTC
        ).get()
        #expect(rrule == "FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=4")
        #expect(
            RecurrenceMapping.occurrences(rrule: rrule, start: Self.at(2027, 12, 31), count: 10) == [
                Self.at(2027, 12, 31), Self.at(2028, 1, 31), Self.at(2028, 2, 29), Self.at(2028, 3, 31),
            ])
        // February 29 every year: February 28 in common years, on both sides.
        let leap = GraphPatternedRecurrence(
            pattern: Self.pattern("absoluteYearly", month: 2, dayOfMonth: 29), range: Self.range("2028-02-29"))
        let yearly = try RecurrenceMapping.rrule(
            from: leap, start: Self.at(2028, 2, 29), isAllDay: false, endOfDayToUTC: Self.localIsUTC
        ).get()
        #expect(
            RecurrenceMapping.occurrences(rrule: yearly, start: Self.at(2028, 2, 29), count: 3) == [
                Self.at(2028, 2, 29), Self.at(2029, 2, 28), Self.at(2030, 2, 28),
            ])
    }

    @Test("the Unsupported error reads as one sentence naming the rule and the reason")
    func unsupportedDescribesItself() {
        let error = RecurrenceMapping.Unsupported(rule: "FREQ=HOURLY", reason: "FREQ=HOURLY: too often")
        #expect(error.description == "recurrence FREQ=HOURLY cannot be mapped exactly: FREQ=HOURLY: too often")
        #expect(error == RecurrenceMapping.Unsupported(rule: "FREQ=HOURLY", reason: "FREQ=HOURLY: too often"))
    }
}

extension String {
    fileprivate func replacingPrefix(_ prefix: String) -> String {
        uppercased().hasPrefix(prefix) ? String(dropFirst(prefix.count)) : self
    }
}
