import Foundation
import Testing

@testable import ICalBridge

/// The bounds on libical's work: RRULEs that never occur, or whose filters seldom match, are judged
/// before libical searches them, and expansions stop at a horizon.
@Suite struct RecurrenceRuleWorkBoundTests {
    @Test("rules that can never occur are recognised from their parts")
    func neverOccurs() {
        let start = CivilDateTime(year: 2019, month: 1, day: 31)
        #expect(RecurrenceRule("FREQ=MONTHLY;BYDAY=MO;BYSETPOS=10").neverOccurs(from: start) != nil)
        #expect(RecurrenceRule("FREQ=MONTHLY;BYMONTHDAY=31;BYMONTH=4,6").neverOccurs(from: start) != nil)
        #expect(RecurrenceRule("FREQ=YEARLY;BYMONTHDAY=-30;BYMONTH=2").neverOccurs(from: start) != nil)
        #expect(RecurrenceRule("FREQ=WEEKLY;BYDAY=MO,TU;BYSETPOS=3").neverOccurs(from: start) != nil)
        // Rare but possible: left to libical.
        #expect(RecurrenceRule("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29").neverOccurs(from: start) == nil)
        #expect(RecurrenceRule("FREQ=MONTHLY;BYDAY=MO;BYSETPOS=5").neverOccurs(from: start) == nil)
        #expect(RecurrenceRule("FREQ=MONTHLY;BYDAY=MO,TU;BYSETPOS=-3").neverOccurs(from: start) == nil)
        #expect(RecurrenceRule("FREQ=MONTHLY;BYMONTHDAY=31;BYMONTH=4,5").neverOccurs(from: start) == nil)
        #expect(RecurrenceRule("FREQ=DAILY;BYHOUR=9,10;BYSETPOS=2").neverOccurs(from: start) == nil)
    }

    @Test("monthly and yearly rules are judged period by period; when they may occur, libical finds them")
    func periodByPeriod() {
        let start = CivilDateTime(year: 2019, month: 1, day: 31)
        for rule in [
            "FREQ=MONTHLY;INTERVAL=1;BYSETPOS=-2",  // one day a month (the 31st), and it picks the second last
            "FREQ=MONTHLY;INTERVAL=12;BYMONTH=2;BYMONTHDAY=1",  // every January: never a February
            "FREQ=MONTHLY;BYMONTH=2;BYDAY=6MO",
            "FREQ=YEARLY;BYDAY=54MO",
            "FREQ=YEARLY;BYMONTH=3;BYSETPOS=2",
            // libical picks BYSETPOS among days only: two times on one day are not a set of two.
            "FREQ=MONTHLY;BYHOUR=9,10;BYSETPOS=-2",
        ] {
            #expect(RecurrenceRule(rule).occursInSomePeriod(from: start) == false, "\(rule)")
            #expect(RecurrenceRule(rule).neverOccurs(from: start) != nil, "\(rule)")
        }
        for rule in [
            "FREQ=MONTHLY;BYMONTH=2;BYDAY=5MO",  // a leap February that starts on a Monday
            "FREQ=YEARLY;BYDAY=53MO",
            "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=SU",
            "FREQ=MONTHLY;INTERVAL=12;BYMONTH=1;BYMONTHDAY=1",
            "FREQ=MONTHLY;BYSETPOS=1",
            "FREQ=MONTHLY;INTERVAL=7;BYMONTH=6;BYDAY=-1FR;BYMONTHDAY=24,25,26,27,28,29,30",
            "FREQ=YEARLY;INTERVAL=3;BYMONTH=2;BYMONTHDAY=29",
            "FREQ=YEARLY;BYMONTHDAY=-1;BYDAY=TU",
        ] {
            let parsed = RecurrenceRule(rule)
            #expect(parsed.occursInSomePeriod(from: start) == true, "\(rule)")
            #expect(parsed.neverOccurs(from: start) == nil, "\(rule)")
            // The claim the judgement makes: libical finds an occurrence (it found none in a second before).
            let first = parsed.expansion(start: start, count: 1, horizon: nil).occurrences.first
            #expect(first != nil, "\(rule)")
        }
        // Left to libical: parts this judgement does not model.
        #expect(RecurrenceRule("FREQ=YEARLY;BYWEEKNO=20").occursInSomePeriod(from: start) == nil)
        #expect(RecurrenceRule("FREQ=DAILY;BYMONTH=2").occursInSomePeriod(from: start) == nil)
    }

    @Test("the fuzz finding of rules no period matches is planned at once: no occurrence but DTSTART's")
    func rulesThatReachNoPeriod() throws {
        let data = try Fixtures.data("fuzz/rules-that-reach-no-period.ics")
        let started = ContinuousClock.now
        let plan = try ICSToGraph.plan(data, options: ImportOptions(file: "rules.ics"))
        #expect(ContinuousClock.now - started < .seconds(5))  // 2 s a rule in libical's search before
        #expect(plan.events.count == 2)
        let never = plan.diagnostics.filter { $0.message.contains("never occurs") }
        #expect(never.count == 5, "\(plan.diagnostics.map(\.message))")
    }

    @Test("each rule's share of a file's expansion work: 3,000 steps alone, less with many, never under 100")
    func budgetShares() throws {
        #expect(ICSToGraph.expansionBudget(filteringRecurrenceRules: 0) == 3_000)
        #expect(ICSToGraph.expansionBudget(filteringRecurrenceRules: 1) == 3_000)
        #expect(ICSToGraph.expansionBudget(filteringRecurrenceRules: 100) == 300)
        #expect(ICSToGraph.expansionBudget(filteringRecurrenceRules: 100_000) == 100)
        // Only rules libical steps through and filters count: a plain weekly or a monthly rule does not.
        for (rule, filtering) in [
            ("FREQ=WEEKLY;BYDAY=MO", true), ("FREQ=HOURLY;BYMONTH=2", true), ("FREQ=DAILY", false),
            ("FREQ=WEEKLY;COUNT=4", false), ("FREQ=MONTHLY;BYDAY=2TU", false), ("FREQ=YEARLY;BYMONTH=3", false),
        ] {
            #expect(RecurrenceRule(rule).isFiltering == filtering, "\(rule)")
        }
        // An hourly rule's horizon is its budget in hours (times INTERVAL); a daily one's in days.
        let start = CivilDateTime(year: 2026, month: 1, day: 1)
        #expect(
            RecurrenceRule("FREQ=HOURLY;INTERVAL=2").expansionHorizon(start: start, budget: 12)
                == CivilDateTime(year: 2026, month: 1, day: 2))
        #expect(
            RecurrenceRule("FREQ=DAILY").expansionHorizon(start: start, budget: 31)
                == CivilDateTime(year: 2026, month: 2, day: 1))
    }

    @Test("an expansion stops at its horizon and says so; a rule with its own earlier end is not cut")
    func horizonStopsTheStepping() {
        let start = CivilDateTime(year: 1997, month: 7, day: 1, hour: 20)
        let horizon = CivilDateTime(year: 1999, month: 1, day: 1)
        // 29 February on a Sunday: 2004 is the next; stepping hour by hour there took libical seconds.
        let rare = RecurrenceMapping.expansion(
            rrule: "FREQ=HOURLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=SU", start: start, count: 10, horizon: horizon)
        #expect(rare.occurrences.isEmpty)  // DTSTART itself does not match the filters
        #expect(rare.cutAtHorizon)
        let daily = RecurrenceMapping.expansion(
            rrule: "FREQ=DAILY;COUNT=3", start: start, count: 10, horizon: horizon)
        #expect(daily.occurrences.count == 3)
        #expect(!daily.cutAtHorizon)
        let until = RecurrenceMapping.expansion(
            rrule: "FREQ=DAILY;UNTIL=19970703T235959Z", start: start, count: 10, horizon: horizon)
        #expect(until.occurrences.count == 3)
        #expect(!until.cutAtHorizon)
        let beyond = RecurrenceMapping.expansion(
            rrule: "FREQ=WEEKLY;UNTIL=20301231T000000Z", start: start, count: 1_000, horizon: horizon)
        #expect(beyond.occurrences.last.map { $0 < horizon } == true)
        #expect(beyond.cutAtHorizon)
    }

    @Test("rules in other calendars (RFC 7529) are not expanded: their first occurrence, with a warning")
    func nonGregorianRulesAreNotExpanded() throws {
        let plan = try ICSToGraph.plan(
            try Fixtures.data("fuzz/non-gregorian-rules.ics"), options: ImportOptions(file: "scales.ics"))
        #expect(
            plan.events.map(\.sourceUID) == [
                "chinese@graph-ics.test", "ethiopic@graph-ics.test", "hebrew@graph-ics.test",
            ])
        let messages = plan.diagnostics.map(\.message)
        for scale in ["CHINESE", "ETHIOPIC", "HEBREW"] {
            #expect(messages.contains { $0.contains("repeats in the \(scale) calendar") }, "\(scale)")
        }
        #expect(RecurrenceRule("RSCALE=GREGORIAN;FREQ=YEARLY").nonGregorianScale == nil)
        #expect(RecurrenceRule("FREQ=YEARLY").nonGregorianScale == nil)
    }

    @Test("a file of rules whose filters seldom or never match is planned at once, with a warning for each")
    func seldomMatchingRulesArePlannedQuickly() throws {
        let data = try Fixtures.data("fuzz/rules-that-seldom-match.ics")
        let started = ContinuousClock.now
        let plan = try ICSToGraph.plan(data, options: ImportOptions(file: "rules.ics"))
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(
            plan.events.map(\.sourceUID).sorted() == [
                "hourly-on-sunday-29-february@graph-ics.test", "never@graph-ics.test",
            ])
        let messages = plan.diagnostics.map(\.message)
        // An all-day event's hourly rule only repeats its own day.
        let allDay = try ICSToGraph.plan(
            Data(
                ("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:d\r\nDTSTART;VALUE=DATE:20220107\r\n"
                    + "RRULE:FREQ=SECONDLY;BYMONTH=12;BYHOUR=23\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n").utf8),
            options: ImportOptions(file: "all-day.ics"))
        #expect(allDay.events.count == 1)
        #expect(allDay.diagnostics.contains { $0.message.contains("the event is all-day; it adds no days") })
        #expect(messages.filter { $0.contains("is expanded only up to") }.count == 4)
        #expect(messages.filter { $0.contains("never occurs") }.count == 4)
    }
}
