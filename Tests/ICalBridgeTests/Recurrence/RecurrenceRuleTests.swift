import CLibical
import Foundation
import Testing

@testable import ICalBridge

/// ``RecurrenceRule``: an RRULE as libical reads it, the same whether made from text or from a property's
/// struct, with its parts as Swift values and its RSCALE text owned (freed once, by the rule that made it).
@Suite struct RecurrenceRuleTests {
    /// RRULEs with every part, as text and as a property of a parsed VEVENT.
    static let rrules = [
        "FREQ=DAILY",
        "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE,FR;WKST=SU;UNTIL=20260630T235959Z",
        "FREQ=MONTHLY;BYDAY=2TU,-1FR;COUNT=12",
        "FREQ=MONTHLY;BYMONTHDAY=28,29,30;BYSETPOS=-1",
        "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;UNTIL=20400301",
        "FREQ=HOURLY;BYHOUR=9,17;BYMINUTE=0,30;BYSECOND=15",
        "FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO",
        "FREQ=YEARLY;BYYEARDAY=100,-1",
        "FREQ=MONTHLY;BYDAY=MO;BYSETPOS=10",
        "RSCALE=HEBREW;FREQ=YEARLY;BYMONTH=5L;BYMONTHDAY=1",
        "RSCALE=GREGORIAN;FREQ=MONTHLY;BYMONTHDAY=31;SKIP=FORWARD",
    ]

    /// The RRULE properties of a VEVENT with `rrules`, handed to `body` while the parsed calendar lives.
    static func withRRuleProperties<T>(_ rrules: [String], _ body: ([OpaquePointer]) throws -> T) throws -> T {
        let text =
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:r\r\nDTSTART:20260302T090000\r\n"
            + rrules.map { "RRULE:\($0)\r\n" }.joined() + "END:VEVENT\r\nEND:VCALENDAR\r\n"
        let root = try #require(ICalComponent.parse(text))
        return try withExtendedLifetime(root) {
            let event = try #require(ICalComponent.children(of: root.pointer, ICAL_VEVENT_COMPONENT).first)
            var properties: [OpaquePointer] = []
            var property = icalcomponent_get_first_property(event, ICAL_RRULE_PROPERTY)
            while let current = property {
                properties.append(current)
                property = icalcomponent_get_next_property(event, ICAL_RRULE_PROPERTY)
            }
            return try body(properties)
        }
    }

    /// Every answer a rule gives, side by side.
    struct Answers: Equatable {
        var frequency: RecurrenceRule.Frequency?
        var interval, count, weekStart: Int
        var until: RecurrenceRule.Until?
        var byParts: [[Int]]
        var byDay: [RecurrenceRule.WeekdayPart]
        var leapMonth: Bool
        var scale: String?
        var isFiltering, isFinerThanDaily: Bool
        var neverOccurs: String?
        var occursInSomePeriod: Bool?
        var horizon: CivilDateTime?
        var occurrences: [CivilDateTime]

        init(_ rule: RecurrenceRule) {
            let start = CivilDateTime(year: 2026, month: 3, day: 2, hour: 9)
            frequency = rule.frequency
            interval = rule.interval
            count = rule.count
            weekStart = rule.weekStart
            until = rule.until
            byParts = [
                rule.bySecond, rule.byMinute, rule.byHour, rule.byMonthDay, rule.byYearDay, rule.byWeekNo,
                rule.byMonth, rule.bySetPos,
            ]
            byDay = rule.byDay
            leapMonth = rule.byMonthNamesLeapMonth
            scale = rule.scale
            isFiltering = rule.isFiltering
            isFinerThanDaily = rule.isFinerThanDaily
            neverOccurs = rule.neverOccurs(from: start)
            occursInSomePeriod = rule.occursInSomePeriod(from: start)
            horizon = rule.expansionHorizon(start: start, budget: 100)
            // As the import does: rules in other calendars (iterated with ICU) and rules that never occur
            // (which libical would search for centuries) are not expanded.
            occurrences =
                rule.nonGregorianScale == nil && neverOccurs == nil
                ? rule.expansion(start: start, count: 5, horizon: horizon).occurrences : []
        }
    }

    @Test("a rule made from RRULE text and one made from the property's struct give the same answers")
    func textAndStructAgree() throws {
        try Self.withRRuleProperties(Self.rrules) { properties in
            try #require(properties.count == Self.rrules.count)
            for (text, property) in zip(Self.rrules, properties) {
                let fromText = RecurrenceRule(text)
                let fromStruct = RecurrenceRule(copying: icalproperty_get_rrule(property))
                #expect(fromText.isReadable, "\(text)")
                #expect(Answers(fromStruct) == Answers(fromText), "\(text)")
                // The struct's text, as libical writes it (RSCALE in lower case), reads back as the same rule.
                var reread = Answers(RecurrenceRule(fromStruct.text))
                reread.scale = reread.scale?.uppercased()
                #expect(reread == Answers(fromText), "\(fromStruct.text)")
            }
        }
    }

    @Test("the parts read as Swift values: weekdays Sunday-first, positions, UNTIL's form, WKST, RSCALE")
    func partsAreSwiftValues() {
        let weekly = RecurrenceRule("FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,-1FR,2SU;WKST=SU;UNTIL=20260630T235959Z")
        #expect(weekly.frequency == .weekly)
        #expect(weekly.interval == 2)
        #expect(weekly.count == 0)
        // In libical's order: by weekday, Sunday first.
        #expect(
            weekly.byDay == [
                .init(weekday: 0, position: 2), .init(weekday: 1, position: 0), .init(weekday: 5, position: -1),
            ])
        #expect(weekly.byDay.map(\.isoWeekday) == [7, 1, 5])
        #expect(weekly.weekStart == 0)
        #expect(
            weekly.until
                == .init(
                    time: CivilDateTime(year: 2026, month: 6, day: 30, hour: 23, minute: 59, second: 59),
                    isDate: false, isUTC: true))
        #expect(weekly.text == "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,-1FR,2SU;WKST=SU;UNTIL=20260630T235959Z")

        #expect(RecurrenceRule("FREQ=DAILY;COUNT=3").count == 3)
        let yearly = RecurrenceRule("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;UNTIL=20400301")
        #expect(yearly.weekStart == 1)  // RFC 5545's default, Monday
        #expect(yearly.count == 0)
        #expect(yearly.until == .init(time: CivilDateTime(year: 2040, month: 3, day: 1), isDate: true, isUTC: false))
        #expect(yearly.byMonth == [2])
        #expect(yearly.byMonthDay == [29])
        #expect(!yearly.byMonthNamesLeapMonth)
        #expect(yearly.scale == nil)

        let hebrew = RecurrenceRule("RSCALE=HEBREW;FREQ=YEARLY;BYMONTH=5L")
        #expect(hebrew.scale == "HEBREW")
        #expect(hebrew.nonGregorianScale == "HEBREW")
        #expect(hebrew.byMonthNamesLeapMonth)
        #expect(hebrew.byMonth.allSatisfy { !(1...12).contains($0) })
    }

    @Test("frequencies are ordered finest first; only SECONDLY, MINUTELY and HOURLY are finer than daily")
    func frequencies() {
        let names = ["SECONDLY", "MINUTELY", "HOURLY", "DAILY", "WEEKLY", "MONTHLY", "YEARLY"]
        let frequencies = names.map { RecurrenceRule("FREQ=\($0)").frequency }
        #expect(frequencies == [.secondly, .minutely, .hourly, .daily, .weekly, .monthly, .yearly])
        #expect(frequencies.compactMap { $0 } == frequencies.compactMap { $0 }.sorted())
        #expect(
            names.map { RecurrenceRule("FREQ=\($0)").isFinerThanDaily } == [
                true, true, true, false, false, false, false,
            ])
    }

    @Test("a rule libical cannot read has no frequency, no horizon and no occurrences")
    func unreadableRule() {
        for text in ["", "COUNT=3", "FREQ=FORTNIGHTLY", "FREQ=DAILY;BYDAY=XX"] {
            let rule = RecurrenceRule(text)
            #expect(!rule.isReadable, "\(text)")
            #expect(rule.frequency == nil, "\(text)")
            #expect(!rule.isFiltering && !rule.isFinerThanDaily, "\(text)")
            #expect(rule.neverOccursByItsParts == nil, "\(text)")
            let start = CivilDateTime(year: 2026, month: 1, day: 1)
            #expect(rule.expansionHorizon(start: start, budget: 100) == nil, "\(text)")
            #expect(rule.expansion(start: start, count: 3, horizon: nil).occurrences.isEmpty, "\(text)")
        }
    }

    @Test("a rule owns its RSCALE text: the property's stays intact after the rules made from it are gone")
    func rscaleIsOwned() throws {
        let rrules = ["RSCALE=HEBREW;FREQ=YEARLY;BYMONTH=5L;BYMONTHDAY=1", "RSCALE=CHINESE;FREQ=MONTHLY"]
        try Self.withRRuleProperties(rrules) { properties in
            for _ in 0..<100 {
                for property in properties {
                    // Made and freed at once; the sanitizer run shows any leak or double free.
                    _ = RecurrenceRule(copying: icalproperty_get_rrule(property)).scale
                }
                _ = rrules.map { RecurrenceRule($0).scale }
            }
            let scales = properties.map { RecurrenceRule(copying: icalproperty_get_rrule($0)).scale }
            #expect(scales == ["HEBREW", "CHINESE"])
            // The properties' own RSCALE texts were not freed by the rules.
            for (property, scale) in zip(properties, ["HEBREW", "CHINESE"]) {
                let written = try #require(icalproperty_get_value_as_string(property))
                #expect(String(cString: written).contains("RSCALE=\(scale)"))
            }
        }
    }

    @Test("a VEVENT counts only the RRULEs libical expands by filtering, read from its properties")
    func documentCountsFilteringRules() throws {
        let text =
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:f\r\nDTSTART:20260302T090000\r\n"
            + "RRULE:FREQ=WEEKLY;BYDAY=MO\r\nRRULE:FREQ=DAILY\r\nRRULE:FREQ=HOURLY;BYMONTH=2\r\n"
            + "RRULE:FREQ=MONTHLY;BYDAY=2TU\r\nRRULE:RSCALE=HEBREW;FREQ=DAILY;BYMONTH=5L\r\n"
            + "END:VEVENT\r\nEND:VCALENDAR\r\n"
        let document = try ICSDocument(Data(text.utf8), file: "filtering.ics")
        #expect(document.withEvents { $0.map(\.filteringRecurrenceRules) } == [3])
    }
}
