import Foundation
import Testing

@testable import ICalBridge

/// The recurrence set of a series graph-ics expands or patches: RDATEs in their own zones and as periods,
/// EXDATEs and RECURRENCE-IDs matched to occurrences by instant, overrides of no occurrence.
@Suite struct RecurrenceSetTests {
    let importTests = ImportTests()

    func plan(_ body: String) throws -> ImportPlan { try importTests.plan(body) }

    func event(_ lines: String) -> String { importTests.event(lines) }

    /// `2026-01-10T16:30:00Z` for an instant.
    func utc(_ instant: Int64) -> String { CivilDateTime(secondsSinceEpoch: instant).description + "Z" }

    /// The start instants of the planned events (one per occurrence of an expanded series), in order.
    func starts(_ plan: ImportPlan) throws -> [String] {
        try plan.events.map { try utc(importTests.instant($0.payload.start)) }.sorted()
    }

    @Test("an RDATE with a TZID of its own is read in that zone, not in DTSTART's")
    func rdateInItsOwnZone() throws {
        let plan = try plan(
            event(
                """
                UID:rdate-zone
                SUMMARY:An Event
                DTSTART;TZID=Europe/Berlin:20260105T090000
                DTEND;TZID=Europe/Berlin:20260105T100000
                RRULE:FREQ=DAILY;COUNT=2
                RDATE;TZID=America/Bogota:20260110T113000,20260112T113000
                RDATE;TZID=Indian/Reunion:20260114T113000
                """))
        #expect(
            try starts(plan) == [
                "2026-01-05T08:00:00Z", "2026-01-06T08:00:00Z", "2026-01-10T16:30:00Z", "2026-01-12T16:30:00Z",
                "2026-01-14T07:30:00Z",
            ])
        for planned in plan.events {
            #expect(try importTests.instant(planned.payload.end) - importTests.instant(planned.payload.start) == 3_600)
        }
    }

    @Test("an RDATE given as a PERIOD is an occurrence with the period's own length")
    func rdatePeriod() throws {
        let plan = try plan(
            event(
                """
                UID:rdate-period
                SUMMARY:Test RDATE
                DTSTART;TZID=Europe/Berlin:20260105T090000
                DTEND;TZID=Europe/Berlin:20260105T100000
                RDATE;VALUE=PERIOD;TZID=America/Vancouver:20260112T120000/20260112T150000
                RDATE;VALUE=PERIOD:20260114T090000Z/PT2H30M
                """))
        #expect(try starts(plan) == ["2026-01-05T08:00:00Z", "2026-01-12T20:00:00Z", "2026-01-14T09:00:00Z"])
        let lengths = try plan.events.map {
            try importTests.instant($0.payload.end) - importTests.instant($0.payload.start)
        }
        #expect(lengths.sorted() == [3_600, 9_000, 10_800])
        let period = try #require(plan.events.first { $0.payload.start?.dateTime?.hasPrefix("2026-01-12") == true })
        #expect(try utc(importTests.instant(period.payload.end)) == "2026-01-12T23:00:00Z")
    }

    @Test("EXDATEs in UTC remove the occurrences of an expanded series they name as instants")
    func utcExdatesOfAnExpandedSeries() throws {
        let plan = try plan(
            event(
                """
                UID:exdate-utc
                SUMMARY:Test
                DTSTART;TZID=Europe/Berlin:20260105T161500
                DURATION:PT1H30M
                RRULE:FREQ=WEEKLY;COUNT=4
                RDATE;TZID=Europe/Berlin:20260202T161500
                EXDATE:20260112T151500Z,20260119T151500Z
                EXDATE:20260126T161500Z
                """))
        #expect(try starts(plan) == ["2026-01-05T15:15:00Z", "2026-01-26T15:15:00Z", "2026-02-02T15:15:00Z"])
    }

    @Test("a RECURRENCE-ID in UTC moves the RDATE occurrence it names")
    func utcRecurrenceIDOfAnRDate() throws {
        let plan = try plan(
            event(
                """
                UID:rid-utc
                SUMMARY:Crazy Event Thingy!
                DTSTART;TZID=America/Los_Angeles:20121002T100000
                DTEND;TZID=America/Los_Angeles:20121002T103000
                RRULE:FREQ=WEEKLY;COUNT=2
                RDATE;TZID=America/Los_Angeles:20121105T100000
                """)
                + event(
                    """
                    UID:rid-utc
                    SUMMARY:Crazy Event Thingy (moved)
                    DTSTART;TZID=America/Los_Angeles:20121106T200000
                    DTEND;TZID=America/Los_Angeles:20121106T203000
                    RECURRENCE-ID:20121105T180000Z
                    """))
        #expect(try starts(plan) == ["2012-10-02T17:00:00Z", "2012-10-09T17:00:00Z", "2012-11-07T04:00:00Z"])
        let moved = try #require(plan.events.first { $0.payload.subject == "Crazy Event Thingy (moved)" })
        #expect(moved.recurrenceID == "20121105T100000")
    }

    @Test("an override of no occurrence of a series Graph holds is an event of its own, with a warning")
    func overrideOfNoOccurrenceOfAHeldSeries() throws {
        let plan = try plan(
            event(
                """
                UID:111
                SUMMARY:test123
                DTSTART;VALUE=DATE:20240701
                DTEND;VALUE=DATE:20240708
                RRULE:FREQ=WEEKLY;UNTIL=20240720;INTERVAL=2;BYDAY=MO
                """)
                + event(
                    """
                    UID:111
                    SUMMARY:test123 (extra)
                    DTSTART;VALUE=DATE:20240729
                    DTEND;VALUE=DATE:20240804
                    RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=MO
                    RECURRENCE-ID;VALUE=DATE:20240729
                    """)
                + event(
                    """
                    UID:111
                    SUMMARY:test123 (moved)
                    DTSTART;VALUE=DATE:20240716
                    DTEND;VALUE=DATE:20240717
                    RECURRENCE-ID;VALUE=DATE:20240715
                    """))
        #expect(plan.events.count == 2)
        let master = try #require(plan.events.first)
        #expect(master.payload.recurrence != nil)
        #expect(master.followUps.count == 1)
        guard case .patchOccurrence(let original, let changes) = master.followUps.first else {
            Issue.record("no patch step for the override of 2024-07-15")
            return
        }
        #expect(original == "2024-07-15")
        #expect(changes.start?.dateTime == "2024-07-16T00:00:00")
        let extra = try #require(plan.events.last)
        #expect(extra.payload.recurrence == nil)
        #expect(extra.recurrenceID == "20240729")
        #expect(extra.payload.start?.dateTime == "2024-07-29T00:00:00")
        #expect(extra.payload.end?.dateTime == "2024-08-04T00:00:00")
        #expect(
            plan.diagnostics.contains {
                $0.severity == .warning && $0.file == "test.ics" && $0.eventID == "111"
                    && $0.message.contains("RECURRENCE-ID 20240729")
            })
    }

    @Test("a RECURRENCE-ID in UTC of a series' last occurrence (at its UTC UNTIL) is still a patch")
    func utcRecurrenceIDOfAHeldSeries() throws {
        let plan = try plan(
            event(
                """
                UID:weekly
                DTSTART;TZID=Europe/Berlin:20261130T093000
                DTEND;TZID=Europe/Berlin:20261130T094500
                RRULE:FREQ=WEEKLY;BYDAY=MO,WE;UNTIL=20261207T083000Z
                """)
                + event(
                    """
                    UID:weekly
                    RECURRENCE-ID:20261207T083000Z
                    DTSTART;TZID=Europe/Berlin:20261207T110000
                    DTEND;TZID=Europe/Berlin:20261207T111500
                    """))
        #expect(plan.events.count == 1)
        guard case .patchOccurrence(let original, _) = plan.events.first?.followUps.first else {
            Issue.record("no patch step")
            return
        }
        #expect(original == "2026-12-07T08:30:00Z")
        #expect(!plan.diagnostics.contains { $0.message.contains("RECURRENCE-ID") })
    }

    @Test("an override of no occurrence of an expanded series is an event of its own, with a warning")
    func overrideOfNoOccurrenceOfAnExpandedSeries() throws {
        let plan = try plan(
            event(
                """
                UID:expanded
                DTSTART:20260105T090000Z
                DTEND:20260105T100000Z
                RDATE:20260107T090000Z
                """)
                + event(
                    """
                    UID:expanded
                    SUMMARY:Extra
                    RECURRENCE-ID:20260109T090000Z
                    DTSTART:20260109T120000Z
                    DTEND:20260109T130000Z
                    """))
        #expect(try starts(plan) == ["2026-01-05T09:00:00Z", "2026-01-07T09:00:00Z", "2026-01-09T12:00:00Z"])
        #expect(plan.events.last?.recurrenceID == "20260109T090000Z")
        #expect(
            plan.diagnostics.contains {
                $0.severity == .warning && $0.eventID == "expanded"
                    && $0.message.contains("RECURRENCE-ID 20260109T090000Z")
            })
    }
}
