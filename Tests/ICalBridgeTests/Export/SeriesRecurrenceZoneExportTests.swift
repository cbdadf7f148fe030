import Foundation
import TestSupport
import Testing

@testable import ICalBridge

/// A series whose `range.recurrenceTimeZone` is not its `originalStartTimeZone` (created in UTC, its pattern
/// kept in Berlin): Graph repeats it at 09:00 Berlin across the change to summer time, and the export writes
/// one master in the recurrence's zone, not single occurrences with a warning (issue 28, item 6). Instants
/// come from the system's zone rules.
@Suite struct SeriesRecurrenceZoneExportTests {
    static let uid = "040000008200E00074C5B7101A82E00800000000MORNING"
    static let days = ["2026-03-26", "2026-03-27", "2026-03-28", "2026-03-29", "2026-03-30"]

    static func instant(_ day: String) throws -> Int64 {
        try #require(SystemZoneRules.rfcInstant(day + "T09:00", in: "Europe/Berlin"))
    }

    static func when(_ instant: Int64) -> [String: Any] {
        ["dateTime": SystemZoneRules.utcText(instant) + ".0000000", "timeZone": "UTC"]
    }

    static func page(_ day: String) throws -> [String: Any] {
        let start = try instant(day)
        return [
            "id": "occ-\(day)", "iCalUId": uid, "type": "occurrence", "seriesMasterId": "master-morning",
            "subject": "Morning call", "originalStart": SystemZoneRules.utcText(start) + "Z", "start": when(start),
            "end": when(start + 1800), "originalStartTimeZone": "UTC", "originalEndTimeZone": "UTC",
        ]
    }

    @Test("a series created in UTC whose pattern runs in Berlin is one master in Berlin's clocks, no fallback")
    func masterInRecurrenceZone() throws {
        let first = try Self.instant(Self.days[0])
        // The occurrences keep 09:00 Berlin: their UTC times change with summer time.
        try #require(Set(try Self.days.map { try Self.instant($0) % 86_400 }).count == 2)
        let master: [String: Any] = [
            "id": "master-morning", "iCalUId": Self.uid, "type": "seriesMaster", "subject": "Morning call",
            "start": Self.when(first), "end": Self.when(first + 1800), "originalStartTimeZone": "UTC",
            "originalEndTimeZone": "UTC",
            "recurrence": [
                "pattern": ["type": "daily", "interval": 1],
                "range": [
                    "type": "numbered", "startDate": Self.days[0], "numberOfOccurrences": 5,
                    "recurrenceTimeZone": "W. Europe Standard Time",
                ],
            ] as [String: Any],
        ]
        let options = ExportOptions(
            fallbackZone: ResolvedZone.iana("Europe/Berlin"), timestamp: 1_796_083_200, file: "morning.json")
        let from = CivilDateTime(year: 2026, month: 3, day: 25).secondsSinceEpoch
        let to = CivilDateTime(year: 2026, month: 4, day: 1).secondsSinceEpoch
        let stream = try GraphToICS.PageStream(options: options, recurrence: .series, range: from..<to)
        try stream.add(page: JSONSerialization.data(withJSONObject: ["value": try Self.days.map(Self.page)]))
        try stream.addSeries(id: "master-morning", master: JSONSerialization.data(withJSONObject: master)) {
            _, _, onPage in try onPage(JSONSerialization.data(withJSONObject: ["value": [Any]()]))
        }
        var buffer = ByteBuffer()
        let summary = try stream.finish(into: &buffer)
        let text = String(decoding: buffer.bytes, as: UTF8.self)
        #expect(summary.diagnostics.isEmpty, "\(summary.diagnostics)")
        let events = Fixtures.events(text)
        #expect(events.count == 1, "one master, no single occurrences:\n\(text)")
        let written = try #require(events.first)
        #expect(Fixtures.value("UID", in: written) == Self.uid)
        #expect(Fixtures.line("DTSTART", in: written) == "DTSTART;TZID=Europe/Berlin:20260326T090000")
        #expect(Fixtures.line("DTEND", in: written) == "DTEND;TZID=Europe/Berlin:20260326T093000")
        #expect(Fixtures.value("RRULE", in: written) == "FREQ=DAILY;COUNT=5")

        // Read back, the series repeats at the instants Graph holds.
        let plan = try ICSToGraph.plan(Data(text.utf8), options: ImportOptions(file: "morning.ics"))
        let series = try #require(plan.events.first)
        #expect(series.payload.recurrence?.range?.recurrenceTimeZone == "W. Europe Standard Time")
        #expect(series.followUps.isEmpty)
    }
}
