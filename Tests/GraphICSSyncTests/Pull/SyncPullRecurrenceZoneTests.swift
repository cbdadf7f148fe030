import Foundation
import GraphStandIn
import Testing

@testable import GraphICSSync

/// A series whose `range.recurrenceTimeZone` is not its `originalStartTimeZone` is pulled as one item in the
/// recurrence's clocks, not refused on every run (issue 28, item 6). Here it was created in UTC and its
/// pattern kept in Berlin: every Monday 00:30 Berlin, which is Sunday 23:30 UTC in December.
@Suite struct SyncPullRecurrenceZoneTests {
    @Test func aSeriesWhosePatternRunsInAnotherZoneIsPulledAsOneItem() throws {
        let fixture = try PullFixture()
        func when(_ day: Int) -> [String: Any] {
            ["dateTime": String(format: "2026-12-%02dT23:30:00", day), "timeZone": "UTC"]
        }
        func end(_ day: Int) -> [String: Any] {
            ["dateTime": String(format: "2026-12-%02dT23:45:00", day), "timeZone": "UTC"]
        }
        try fixture.standIn.addEvent([
            "id": "late", "type": "seriesMaster", "subject": "Late call", "iCalUId": "uid-late",
            "start": when(6), "end": end(6), "originalStartTimeZone": "UTC", "originalEndTimeZone": "UTC",
            "recurrence": [
                "pattern": ["type": "weekly", "interval": 1, "daysOfWeek": ["monday"], "firstDayOfWeek": "monday"],
                "range": [
                    "type": "numbered", "startDate": "2026-12-07", "numberOfOccurrences": 4,
                    "recurrenceTimeZone": "W. Europe Standard Time",
                ],
            ] as [String: Any],
        ])
        for day in [6, 13, 20, 27] {
            try fixture.standIn.addEvent([
                "id": "late-\(day)", "type": "occurrence", "seriesMasterId": "late", "subject": "Late call",
                "iCalUId": "uid-late", "originalStart": String(format: "2026-12-%02dT23:30:00Z", day),
                "start": when(day), "end": end(day), "originalStartTimeZone": "UTC", "originalEndTimeZone": "UTC",
            ])
        }
        let report = try fixture.run()
        #expect(report.diagnostics.filter { $0.severity == .error }.isEmpty, "\(report.diagnostics)")
        #expect(report.pulled.map(\.fileName) == ["uid-late.ics"])
        #expect(try fixture.parsedEvents("uid-late.ics").map(\.isOverride) == [false], "one VEVENT, no overrides")
        let text = try fixture.text("uid-late.ics")
        #expect(text.contains("DTSTART;TZID=Europe/Berlin:20261207T003000\r\n"), "\(text)")
        #expect(text.contains("RRULE:FREQ=WEEKLY;BYDAY=MO;WKST=MO;COUNT=4\r\n"), "\(text)")
        #expect(try fixture.state.items(of: fixture.pairing).map(\.graphID) == ["late"])
    }
}
