import Foundation
import Testing

@testable import ICalBridge

/// The tables of ``RecurrenceMappingTests``: every shape both ways, every refusal.
extension RecurrenceMappingTests {
    static let weekdays = ["monday", "tuesday", "wednesday", "thursday", "friday"]

    static let imports: [ImportCase] = [
        ImportCase(
            rrule: "FREQ=DAILY", start: at(2026, 3, 2), pattern: pattern("daily"), range: range("2026-03-02")),
        ImportCase(
            rrule: "FREQ=DAILY;INTERVAL=3;COUNT=5", start: at(2026, 3, 2), pattern: pattern("daily", interval: 3),
            range: range("2026-03-02", count: 5)),
        ImportCase(
            rrule: "FREQ=DAILY;WKST=SU", start: at(2026, 3, 2), pattern: pattern("daily", firstDay: "sunday"),
            range: range("2026-03-02")),
        ImportCase(
            rrule: "FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR", start: at(2026, 3, 2),
            pattern: pattern("weekly", days: weekdays, firstDay: "monday"), range: range("2026-03-02")),
        ImportCase(
            rrule: "FREQ=WEEKLY", start: at(2026, 3, 3),
            pattern: pattern("weekly", days: ["tuesday"], firstDay: "monday"), range: range("2026-03-03")),
        ImportCase(
            rrule: "FREQ=WEEKLY;BYDAY=FR,MO,WE;WKST=SU", start: at(2026, 3, 2),
            pattern: pattern("weekly", days: ["monday", "wednesday", "friday"], firstDay: "sunday"),
            range: range("2026-03-02")),
        ImportCase(
            rrule: "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH;UNTIL=20260630T235959Z", start: at(2026, 3, 3),
            pattern: pattern("weekly", interval: 2, days: ["tuesday", "thursday"], firstDay: "monday"),
            range: range("2026-03-03", until: "2026-06-30")),
        ImportCase(
            rrule: "FREQ=WEEKLY;INTERVAL=2;BYDAY=SU,SA;WKST=SU", start: at(2026, 3, 1),
            pattern: pattern("weekly", interval: 2, days: ["sunday", "saturday"], firstDay: "sunday"),
            range: range("2026-03-01")),
        ImportCase(
            rrule: "RRULE:freq=weekly;byday=mo;wkst=su", start: at(2026, 3, 2),
            pattern: pattern("weekly", days: ["monday"], firstDay: "sunday"), range: range("2026-03-02")),
        ImportCase(
            rrule: "FREQ=WEEKLY;BYDAY=SA;UNTIL=20260627", start: day(2026, 6, 6), isAllDay: true,
            pattern: pattern("weekly", days: ["saturday"], firstDay: "monday"),
            range: range("2026-06-06", until: "2026-06-27")),
        ImportCase(
            rrule: "FREQ=MONTHLY;BYMONTHDAY=15", start: at(2026, 1, 15),
            pattern: pattern("absoluteMonthly", dayOfMonth: 15), range: range("2026-01-15")),
        ImportCase(
            rrule: "FREQ=MONTHLY;COUNT=6", start: at(2026, 1, 20),
            pattern: pattern("absoluteMonthly", dayOfMonth: 20), range: range("2026-01-20", count: 6)),
        ImportCase(
            rrule: "FREQ=MONTHLY;BYMONTHDAY=-1", start: at(2026, 1, 31),
            pattern: pattern("absoluteMonthly", dayOfMonth: 31), range: range("2026-01-31")),
        ImportCase(
            rrule: "FREQ=MONTHLY;BYMONTHDAY=28,29,30;BYSETPOS=-1", start: at(2026, 1, 30),
            pattern: pattern("absoluteMonthly", dayOfMonth: 30), range: range("2026-01-30")),
        ImportCase(
            rrule: "FREQ=MONTHLY;BYMONTHDAY=29,28;BYSETPOS=-1", start: at(2026, 2, 28),
            pattern: pattern("absoluteMonthly", dayOfMonth: 29), range: range("2026-02-28")),
        ImportCase(
            rrule: "FREQ=MONTHLY;INTERVAL=6;BYMONTHDAY=31", start: at(2026, 1, 31),
            pattern: pattern("absoluteMonthly", interval: 6, dayOfMonth: 31), range: range("2026-01-31")),
        ImportCase(
            rrule: "FREQ=MONTHLY;BYMONTHDAY=31;COUNT=1", start: at(2026, 1, 31),
            pattern: pattern("absoluteMonthly", dayOfMonth: 31), range: range("2026-01-31", count: 1)),
        ImportCase(
            rrule: "FREQ=MONTHLY;BYMONTHDAY=30;UNTIL=20260430T235959Z", start: at(2026, 3, 30),
            pattern: pattern("absoluteMonthly", dayOfMonth: 30), range: range("2026-03-30", until: "2026-04-30")),
        ImportCase(
            rrule: "FREQ=MONTHLY;BYDAY=2TU", start: at(2026, 3, 10),
            pattern: pattern("relativeMonthly", days: ["tuesday"], index: "second"), range: range("2026-03-10")),
        ImportCase(
            rrule: "FREQ=MONTHLY;BYDAY=TU;BYSETPOS=2", start: at(2026, 3, 10),
            pattern: pattern("relativeMonthly", days: ["tuesday"], index: "second"), range: range("2026-03-10")),
        ImportCase(
            rrule: "FREQ=MONTHLY;BYDAY=-1FR;COUNT=12", start: at(2026, 3, 27),
            pattern: pattern("relativeMonthly", days: ["friday"], index: "last"),
            range: range("2026-03-27", count: 12)),
        ImportCase(
            rrule: "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1", start: at(2026, 3, 31),
            pattern: pattern("relativeMonthly", days: weekdays, index: "last"), range: range("2026-03-31")),
        ImportCase(
            rrule: "FREQ=MONTHLY;INTERVAL=3;BYDAY=SA,SU;BYSETPOS=1", start: at(2026, 3, 1),
            pattern: pattern("relativeMonthly", interval: 3, days: ["sunday", "saturday"], index: "first"),
            range: range("2026-03-01")),
        ImportCase(
            rrule: "FREQ=YEARLY;BYMONTH=7;BYMONTHDAY=4", start: at(2026, 7, 4),
            pattern: pattern("absoluteYearly", month: 7, dayOfMonth: 4), range: range("2026-07-04")),
        ImportCase(
            rrule: "FREQ=YEARLY", start: day(2026, 12, 25), isAllDay: true,
            pattern: pattern("absoluteYearly", month: 12, dayOfMonth: 25), range: range("2026-12-25")),
        ImportCase(
            rrule: "FREQ=YEARLY;BYMONTH=3", start: at(2026, 3, 15),
            pattern: pattern("absoluteYearly", month: 3, dayOfMonth: 15), range: range("2026-03-15")),
        ImportCase(
            rrule: "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=-1", start: at(2028, 2, 29),
            pattern: pattern("absoluteYearly", month: 2, dayOfMonth: 29), range: range("2028-02-29")),
        ImportCase(
            rrule: "FREQ=YEARLY;INTERVAL=4;BYMONTH=2;BYMONTHDAY=29;COUNT=3", start: at(2024, 2, 29),
            pattern: pattern("absoluteYearly", interval: 4, month: 2, dayOfMonth: 29),
            range: range("2024-02-29", count: 3)),
        ImportCase(
            rrule: "FREQ=YEARLY;BYMONTH=11;BYDAY=4TH", start: at(2026, 11, 26),
            pattern: pattern("relativeYearly", days: ["thursday"], index: "fourth", month: 11),
            range: range("2026-11-26")),
        ImportCase(
            rrule: "FREQ=YEARLY;BYMONTH=5;BYDAY=MO;BYSETPOS=-1;UNTIL=20300601T000000Z", start: at(2026, 5, 25),
            pattern: pattern("relativeYearly", days: ["monday"], index: "last", month: 5),
            range: range("2026-05-25", until: "2030-05-31")),
        ImportCase(
            rrule: "FREQ=DAILY;UNTIL=20260610T090000", start: at(2026, 6, 1), pattern: pattern("daily"),
            range: range("2026-06-01", until: "2026-06-10")),
        ImportCase(
            rrule: "FREQ=DAILY;UNTIL=20260610T085959", start: at(2026, 6, 1), pattern: pattern("daily"),
            range: range("2026-06-01", until: "2026-06-09")),
        ImportCase(
            rrule: "FREQ=DAILY;UNTIL=20260610", start: at(2026, 6, 1), pattern: pattern("daily"),
            range: range("2026-06-01", until: "2026-06-09")),
        ImportCase(
            rrule: "FREQ=DAILY;UNTIL=20260610T000000Z", start: day(2026, 6, 1), isAllDay: true,
            pattern: pattern("daily"), range: range("2026-06-01", until: "2026-06-10")),
    ]

    static let refusedRules: [RefusedRule] = [
        RefusedRule("FREQ=HOURLY", "FREQ=HOURLY"),
        RefusedRule("FREQ=MINUTELY;INTERVAL=15", "FREQ=MINUTELY"),
        RefusedRule("FREQ=SECONDLY", "FREQ=SECONDLY"),
        RefusedRule("FREQ=DAILY;BYHOUR=9,17", "BYHOUR=9,17"),
        RefusedRule("FREQ=DAILY;BYMINUTE=0,30", "BYMINUTE=0,30"),
        RefusedRule("FREQ=DAILY;BYSECOND=10", "BYSECOND=10"),
        RefusedRule("FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO", "BYWEEKNO=20"),
        RefusedRule("FREQ=YEARLY;BYYEARDAY=100", "BYYEARDAY=100"),
        RefusedRule("FREQ=MONTHLY;BYMONTHDAY=1,15", "BYMONTHDAY=1,15", start: at(2026, 3, 1)),
        RefusedRule("FREQ=MONTHLY;BYMONTHDAY=-2", "BYMONTHDAY=-2", start: at(2026, 3, 30)),
        RefusedRule("FREQ=YEARLY;BYMONTH=1,7;BYMONTHDAY=1", "BYMONTH=1,7", start: at(2026, 1, 1)),
        RefusedRule("FREQ=MONTHLY;BYDAY=MO;BYSETPOS=1,3", "BYSETPOS=1,3"),
        RefusedRule("FREQ=MONTHLY;BYDAY=MO;BYSETPOS=5", "BYSETPOS=5"),
        RefusedRule("FREQ=MONTHLY;BYDAY=MO;BYSETPOS=-2", "BYSETPOS=-2"),
        RefusedRule("FREQ=MONTHLY;BYDAY=5FR", "BYDAY=5FR"),
        RefusedRule("FREQ=MONTHLY;BYDAY=-2FR", "BYDAY=-2FR"),
        RefusedRule("FREQ=WEEKLY;BYDAY=2MO", "BYDAY=2MO"),
        RefusedRule("FREQ=DAILY;COUNT=5;UNTIL=20260601T000000Z", "COUNT", "UNTIL"),
        RefusedRule("RSCALE=HEBREW;FREQ=YEARLY", "RSCALE=HEBREW"),
        RefusedRule("FREQ=YEARLY;SKIP=FORWARD", "SKIP=FORWARD"),
        RefusedRule("FREQ=FORTNIGHTLY", "FREQ=FORTNIGHTLY"),
        RefusedRule("FREQ=WEEKLY;BYDAY=XX", "BYDAY=XX"),
        RefusedRule("FREQ=DAILY;X-FOO=1", "X-FOO=1"),
        RefusedRule("COUNT=3", "FREQ"),
        RefusedRule("", "FREQ"),
        RefusedRule("FREQ=DAILY;FREQ=WEEKLY", "FREQ"),
        RefusedRule("FREQ=DAILY;INTERVAL=70000", "INTERVAL=70000"),
        RefusedRule("FREQ=DAILY;COUNT=3x", "COUNT=3x"),
        RefusedRule("FREQ=MONTHLY;BYDAY=MO", "BYDAY=MO"),
        RefusedRule("FREQ=MONTHLY;BYDAY=1MO,3MO", "BYDAY=1MO,3MO"),
        RefusedRule("FREQ=MONTHLY;BYDAY=1MO,1TU", "BYDAY=1MO,1TU"),
        RefusedRule("FREQ=MONTHLY;BYDAY=1MO;BYSETPOS=1", "BYDAY=1MO"),
        RefusedRule("FREQ=MONTHLY;BYMONTH=3", "BYMONTH=3"),
        RefusedRule("FREQ=MONTHLY;BYMONTHDAY=13;BYDAY=FR", "BYMONTHDAY=13", "BYDAY=FR"),
        RefusedRule("FREQ=MONTHLY;BYSETPOS=2", "BYSETPOS=2"),
        RefusedRule("FREQ=MONTHLY;BYMONTHDAY=2;BYSETPOS=1", "BYSETPOS=1", start: at(2026, 3, 2)),
        RefusedRule("FREQ=YEARLY;BYMONTHDAY=2", "BYMONTHDAY=2"),
        RefusedRule("FREQ=YEARLY;BYDAY=1MO", "BYDAY=1MO"),
        RefusedRule("FREQ=YEARLY;BYDAY=20MO", "BYDAY=20MO"),
        RefusedRule("FREQ=YEARLY;BYMONTH=3;BYDAY=MO", "BYDAY=MO"),
        RefusedRule("FREQ=YEARLY;BYMONTH=3L;BYMONTHDAY=2", "BYMONTH=3L"),
        RefusedRule("FREQ=DAILY;BYDAY=MO;INTERVAL=2", "INTERVAL=2"),
        RefusedRule("FREQ=DAILY;BYDAY=1MO", "BYDAY=1MO"),
        RefusedRule("FREQ=DAILY;BYMONTH=3", "BYMONTH=3"),
        RefusedRule("FREQ=WEEKLY;BYDAY=MO;BYSETPOS=1", "BYSETPOS=1"),
        RefusedRule("FREQ=WEEKLY;BYMONTHDAY=2", "BYMONTHDAY=2"),
        // Graph moves day 29–31 to a shorter month's last day; iCalendar skips that month.
        RefusedRule("FREQ=MONTHLY;BYMONTHDAY=31", "BYMONTHDAY=31", start: at(2026, 1, 31)),
        RefusedRule("FREQ=MONTHLY;INTERVAL=2;BYMONTHDAY=31", "BYMONTHDAY=31", start: at(2026, 1, 31)),
        RefusedRule("FREQ=MONTHLY", "day 30", start: at(2026, 1, 30)),
        RefusedRule("FREQ=MONTHLY;BYMONTHDAY=31;UNTIL=20260331T235959Z", "BYMONTHDAY=31", start: at(2026, 1, 31)),
        RefusedRule("FREQ=MONTHLY;BYMONTHDAY=29;COUNT=2", "BYMONTHDAY=29", start: at(2026, 1, 29)),
        RefusedRule("FREQ=MONTHLY;BYMONTHDAY=31", "BYMONTHDAY=31", start: at(2026, 4, 30)),
        RefusedRule("FREQ=YEARLY", "day 29", start: at(2024, 2, 29)),
        RefusedRule("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29", "BYMONTHDAY=29", start: at(2024, 2, 29)),
        RefusedRule("FREQ=YEARLY;INTERVAL=4;BYMONTH=2;BYMONTHDAY=29", "BYMONTHDAY=29", start: at(2024, 2, 29)),
        // DTSTART always counts in iCalendar; Graph starts at the first date that fits.
        RefusedRule("FREQ=WEEKLY;BYDAY=TU", "DTSTART"),
        RefusedRule("FREQ=MONTHLY;BYDAY=2TU", "DTSTART", start: at(2026, 3, 3)),
        RefusedRule("FREQ=YEARLY;BYMONTH=7;BYMONTHDAY=4", "DTSTART"),
        RefusedRule("FREQ=DAILY;UNTIL=20250101T000000Z", "UNTIL=20250101T000000Z"),
    ]

    static let exports: [ExportCase] = [
        ExportCase(
            recurrence: .init(pattern: pattern("daily"), range: range("2026-03-02")), start: at(2026, 3, 2),
            rrule: "FREQ=DAILY"),
        ExportCase(
            recurrence: .init(
                pattern: pattern("daily", interval: 3, firstDay: "sunday"), range: range("2026-03-02", count: 10)),
            start: at(2026, 3, 2), rrule: "FREQ=DAILY;INTERVAL=3;WKST=SU;COUNT=10"),
        ExportCase(
            recurrence: .init(
                pattern: pattern("weekly", interval: 2, days: ["monday", "wednesday"], firstDay: "sunday"),
                range: range("2026-03-02", until: "2026-06-30")),
            start: at(2026, 3, 2), rrule: "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE;WKST=SU;UNTIL=20260630T235959Z"),
        ExportCase(
            recurrence: .init(
                pattern: pattern("weekly", days: ["sunday", "monday"], firstDay: "monday"), range: range("2026-03-01")),
            start: at(2026, 3, 1), rrule: "FREQ=WEEKLY;BYDAY=MO,SU;WKST=MO"),
        ExportCase(
            recurrence: .init(
                pattern: pattern("weekly", interval: 3, days: ["sunday", "saturday"], firstDay: "sunday"),
                range: range("2026-03-01", count: 9)),
            start: at(2026, 3, 1), rrule: "FREQ=WEEKLY;INTERVAL=3;BYDAY=SU,SA;WKST=SU;COUNT=9"),
        ExportCase(
            recurrence: .init(pattern: pattern("weekly", days: ["friday"]), range: range("2026-03-06")),
            start: at(2026, 3, 6), rrule: "FREQ=WEEKLY;BYDAY=FR;WKST=SU", isCanonical: false),
        ExportCase(
            recurrence: .init(pattern: pattern("absoluteMonthly", dayOfMonth: 15), range: range("2026-01-15")),
            start: at(2026, 1, 15), rrule: "FREQ=MONTHLY;BYMONTHDAY=15"),
        ExportCase(
            recurrence: .init(pattern: pattern("absoluteMonthly", dayOfMonth: 31), range: range("2026-01-31")),
            start: at(2026, 1, 31), rrule: "FREQ=MONTHLY;BYMONTHDAY=-1"),
        ExportCase(
            recurrence: .init(pattern: pattern("absoluteMonthly", dayOfMonth: 30), range: range("2026-01-30")),
            start: at(2026, 1, 30), rrule: "FREQ=MONTHLY;BYMONTHDAY=28,29,30;BYSETPOS=-1"),
        ExportCase(
            recurrence: .init(
                pattern: pattern("absoluteMonthly", dayOfMonth: 29), range: range("2026-01-29", count: 14)),
            start: at(2026, 1, 29), rrule: "FREQ=MONTHLY;BYMONTHDAY=28,29;BYSETPOS=-1;COUNT=14"),
        ExportCase(
            recurrence: .init(
                pattern: pattern("absoluteMonthly", interval: 6, dayOfMonth: 31), range: range("2026-01-31")),
            start: at(2026, 1, 31), rrule: "FREQ=MONTHLY;INTERVAL=6;BYMONTHDAY=31"),
        ExportCase(
            recurrence: .init(
                pattern: pattern("absoluteMonthly", interval: 2, dayOfMonth: 31), range: range("2026-01-31")),
            start: at(2026, 1, 31), rrule: "FREQ=MONTHLY;INTERVAL=2;BYMONTHDAY=-1"),
        ExportCase(
            recurrence: .init(
                pattern: pattern("absoluteMonthly", dayOfMonth: 31), range: range("2026-01-31", count: 1)),
            start: at(2026, 1, 31), rrule: "FREQ=MONTHLY;BYMONTHDAY=31;COUNT=1"),
        ExportCase(
            recurrence: .init(
                pattern: pattern("absoluteMonthly", dayOfMonth: 30), range: range("2026-03-30", until: "2026-04-30")),
            start: at(2026, 3, 30), rrule: "FREQ=MONTHLY;BYMONTHDAY=30;UNTIL=20260430T235959Z"),
        ExportCase(
            recurrence: .init(
                pattern: pattern("relativeMonthly", days: ["tuesday"], index: "second"), range: range("2026-03-10")),
            start: at(2026, 3, 10), rrule: "FREQ=MONTHLY;BYDAY=2TU"),
        ExportCase(
            recurrence: .init(
                pattern: pattern("relativeMonthly", days: ["friday"], index: "last"), range: range("2026-03-27")),
            start: at(2026, 3, 27), rrule: "FREQ=MONTHLY;BYDAY=-1FR"),
        ExportCase(
            recurrence: .init(
                pattern: pattern("relativeMonthly", days: weekdays, firstDay: "sunday", index: "last"),
                range: range("2026-03-31")),
            start: at(2026, 3, 31), rrule: "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;WKST=SU"),
        ExportCase(
            recurrence: .init(
                pattern: pattern("relativeMonthly", interval: 3, days: ["sunday", "saturday"], index: "first"),
                range: range("2026-03-01")),
            start: at(2026, 3, 1), rrule: "FREQ=MONTHLY;INTERVAL=3;BYDAY=SA,SU;BYSETPOS=1"),
        ExportCase(
            recurrence: .init(
                pattern: pattern(
                    "relativeMonthly",
                    days: ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"],
                    index: "last"),
                range: range("2026-03-31", count: 13)),
            start: at(2026, 3, 31), rrule: "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYSETPOS=-1;COUNT=13"),
        ExportCase(
            recurrence: .init(pattern: pattern("absoluteYearly", month: 7, dayOfMonth: 4), range: range("2026-07-04")),
            start: at(2026, 7, 4), rrule: "FREQ=YEARLY;BYMONTHDAY=4;BYMONTH=7"),
        ExportCase(
            recurrence: .init(
                pattern: pattern("absoluteYearly", month: 2, dayOfMonth: 29), range: range("2028-02-29")),
            start: at(2028, 2, 29), rrule: "FREQ=YEARLY;BYMONTHDAY=-1;BYMONTH=2"),
        ExportCase(
            recurrence: .init(
                pattern: pattern("absoluteYearly", interval: 4, month: 2, dayOfMonth: 29),
                range: range("2024-02-29", count: 3)),
            start: at(2024, 2, 29), rrule: "FREQ=YEARLY;INTERVAL=4;BYMONTHDAY=29;BYMONTH=2;COUNT=3"),
        ExportCase(
            recurrence: .init(
                pattern: pattern("absoluteYearly", interval: 4, month: 2, dayOfMonth: 29), range: range("2024-02-29")),
            start: at(2024, 2, 29), rrule: "FREQ=YEARLY;INTERVAL=4;BYMONTHDAY=-1;BYMONTH=2"),
        ExportCase(
            recurrence: .init(
                pattern: pattern("relativeYearly", days: ["thursday"], index: "fourth", month: 11),
                range: range("2026-11-26")),
            start: at(2026, 11, 26), rrule: "FREQ=YEARLY;BYDAY=4TH;BYMONTH=11"),
        ExportCase(
            recurrence: .init(
                pattern: pattern("relativeYearly", days: ["monday"], index: "last", month: 5),
                range: range("2026-05-25", until: "2030-05-31")),
            start: at(2026, 5, 25), rrule: "FREQ=YEARLY;BYDAY=-1MO;BYMONTH=5;UNTIL=20300531T235959Z"),
        ExportCase(
            recurrence: .init(
                pattern: pattern("relativeYearly", days: ["sunday", "saturday"], index: "third", month: 9),
                range: range("2026-09-12")),
            start: at(2026, 9, 12), rrule: "FREQ=YEARLY;BYDAY=SA,SU;BYMONTH=9;BYSETPOS=3"),
        ExportCase(
            recurrence: .init(
                pattern: pattern("weekly", days: ["saturday"], firstDay: "sunday"),
                range: range("2026-06-06", until: "2026-06-27")),
            start: day(2026, 6, 6), isAllDay: true, rrule: "FREQ=WEEKLY;BYDAY=SA;WKST=SU;UNTIL=20260627"),
        ExportCase(
            recurrence: .init(
                pattern: pattern("absoluteYearly", month: 12, dayOfMonth: 25), range: range("2026-12-25", count: 5)),
            start: day(2026, 12, 25), isAllDay: true, rrule: "FREQ=YEARLY;BYMONTHDAY=25;BYMONTH=12;COUNT=5"),
        // As Graph sends it: every property present, unused ones holding fillers.
        ExportCase(
            recurrence: {
                var recurrence = GraphPatternedRecurrence(
                    pattern: pattern(
                        "weekly", days: ["monday"], firstDay: "sunday", index: "first", month: 0, dayOfMonth: 0),
                    range: range("2026-03-02", count: 4))
                recurrence.range?.endDate = "0001-01-01"
                return recurrence
            }(),
            start: at(2026, 3, 2), rrule: "FREQ=WEEKLY;BYDAY=MO;WKST=SU;COUNT=4", isCanonical: false),
        ExportCase(
            recurrence: {
                var recurrence = GraphPatternedRecurrence(
                    pattern: pattern(
                        "absoluteMonthly", days: [], firstDay: "sunday", index: "first", month: 0, dayOfMonth: 15),
                    range: range("2026-01-15"))
                recurrence.range?.endDate = "0001-01-01"
                recurrence.range?.numberOfOccurrences = 0
                return recurrence
            }(),
            start: at(2026, 1, 15), rrule: "FREQ=MONTHLY;BYMONTHDAY=15;WKST=SU", isCanonical: false),
    ]

    static func refused(
        _ name: String, _ pattern: GraphRecurrencePattern?, _ range: GraphRecurrenceRange? = range("2026-03-02")
    ) -> RefusedRecurrence {
        RefusedRecurrence(recurrence: .init(pattern: pattern, range: range), start: at(2026, 3, 2), name: name)
    }

    static let refusedRecurrences: [RefusedRecurrence] = [
        refused("hourly", pattern("hourly")),
        refused("pattern", nil),
        refused("index \"second\"", pattern("weekly", days: ["monday"], index: "second")),
        refused("daysOfWeek monday", pattern("daily", days: ["monday"])),
        refused("daysOfWeek", pattern("weekly", days: [])),
        refused("funday", pattern("weekly", days: ["monday", "funday"])),
        refused("firstDayOfWeek \"someday\"", pattern("weekly", days: ["monday"], firstDay: "someday")),
        refused("dayOfMonth 0", pattern("absoluteMonthly", dayOfMonth: 0)),
        refused("dayOfMonth 32", pattern("absoluteMonthly", dayOfMonth: 32)),
        refused("dayOfMonth (none)", pattern("absoluteMonthly")),
        refused("month 3", pattern("absoluteMonthly", month: 3, dayOfMonth: 2)),
        refused("dayOfMonth 5", pattern("relativeMonthly", days: ["monday"], index: "first", dayOfMonth: 5)),
        refused("index \"fifth\"", pattern("relativeMonthly", days: ["monday"], index: "fifth")),
        refused("month 13", pattern("absoluteYearly", month: 13, dayOfMonth: 2)),
        refused("month (none)", pattern("relativeYearly", days: ["monday"], index: "first")),
        refused("interval 0", pattern("daily", interval: 0)),
        refused("range", pattern("daily"), nil),
        refused("forever", pattern("daily"), GraphRecurrenceRange(type: "forever", startDate: "2026-03-02")),
        refused("numberOfOccurrences 0", pattern("daily"), range("2026-03-02", count: 0)),
        refused("endDate \"soon\"", pattern("daily"), range("2026-03-02", until: "soon")),
        refused("endDate 2026-03-01", pattern("daily"), range("2026-03-02", until: "2026-03-01")),
        refused("startDate 2026-02-23", pattern("daily"), range("2026-02-23")),
        refused("series start 2026-03-02", pattern("weekly", days: ["tuesday"])),
        refused("series start 2026-03-02", pattern("absoluteMonthly", dayOfMonth: 15)),
        refused("series start 2026-03-02", pattern("relativeMonthly", days: ["monday"], index: "second")),
    ]
}
