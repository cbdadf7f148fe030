import Foundation
import GraphStandIn
import TestSupport
import Testing

/// `graph-ics export --recurrence series` against the stand-in, for series whose clocks need care (issue 28):
/// an occurrence in a spring-forward gap is an override with exact UTC times (item 5), and a series created in
/// UTC whose pattern runs in Berlin is one master in Berlin's clocks (item 6). Series are seeded as Graph
/// returns them (master and occurrences); instants come from the system's zone rules.
@Suite struct SeriesZonesExportCommandTests {
    static let berlin = "Europe/Berlin"
    static let windows = "W. Europe Standard Time"

    static func when(_ instant: Int64) -> [String: Any] {
        ["dateTime": SystemZoneRules.utcText(instant) + ".0000000", "timeZone": "UTC"]
    }

    /// A daily series of five at `time` Berlin from `days[0]`, created with `startZone`, its pattern in Berlin.
    static func seed(
        _ standIn: GraphStandIn, id: String, subject: String, days: [String], time: String, startZone: String
    ) throws {
        let starts = try days.map { try #require(SystemZoneRules.rfcInstant($0 + "T" + time, in: berlin)) }
        try standIn.addEvent([
            "id": id, "iCalUId": "UID-\(id)", "type": "seriesMaster", "subject": subject, "start": when(starts[0]),
            "end": when(starts[0] + 1800), "originalStartTimeZone": startZone, "originalEndTimeZone": startZone,
            "recurrence": [
                "pattern": ["type": "daily", "interval": 1],
                "range": [
                    "type": "numbered", "startDate": days[0], "numberOfOccurrences": days.count,
                    "recurrenceTimeZone": windows,
                ],
            ] as [String: Any],
        ])
        for (day, start) in zip(days, starts) {
            try standIn.addEvent([
                "id": "\(id)-\(day)", "iCalUId": "UID-\(id)", "type": "occurrence", "seriesMasterId": id,
                "subject": subject, "originalStart": SystemZoneRules.utcText(start) + "Z", "start": when(start),
                "end": when(start + 1800), "originalStartTimeZone": startZone, "originalEndTimeZone": startZone,
            ])
        }
    }

    @Test("the gap's occurrence is an override in UTC; a series created in UTC is written in its pattern's zone")
    func seriesAroundTheSpringChange() throws {
        let (account, environment) = try StandInAccount.inBerlin()
        let days = ["2026-03-27", "2026-03-28", "2026-03-29", "2026-03-30", "2026-03-31"]
        try Self.seed(
            account.standIn, id: "nightly", subject: "Nightly", days: days, time: "02:30", startZone: Self.windows)
        try Self.seed(account.standIn, id: "morning", subject: "Morning", days: days, time: "09:00", startZone: "UTC")
        let result = try account.run(
            [
                "export", "--from", "2026-03-26", "--to", "2026-04-02", "--recurrence", "series", "--tz", Self.berlin,
                "-o", "-",
            ],
            environment: environment)
        #expect(result.status == 0, "\(result.err)")
        #expect(result.err.isEmpty, "no fallback warning: \(result.err)")
        let events = ICalendarText.events(result.out)
        #expect(events.count == 3, "two masters and one override:\n\(result.out)")

        let nightly = try #require(events.first { $0.value("UID") == "UID-nightly" && $0.line("RRULE") != nil })
        #expect(nightly.line("DTSTART") == "DTSTART;TZID=Europe/Berlin:20260327T023000")
        #expect(nightly.value("RRULE") == "FREQ=DAILY;COUNT=5")
        let gap = try #require(SystemZoneRules.rfcInstant("2026-03-29T02:30", in: Self.berlin))
        let compact = SystemZoneRules.utcText(gap).filter { $0 != "-" && $0 != ":" } + "Z"
        let override = try #require(events.first { $0.line("RECURRENCE-ID") != nil })
        #expect(override.value("UID") == "UID-nightly")
        #expect(override.line("RECURRENCE-ID") == "RECURRENCE-ID:" + compact)
        #expect(override.line("DTSTART") == "DTSTART:" + compact)

        let morning = try #require(events.first { $0.value("UID") == "UID-morning" })
        #expect(morning.line("DTSTART") == "DTSTART;TZID=Europe/Berlin:20260327T090000")
        #expect(morning.value("RRULE") == "FREQ=DAILY;COUNT=5")
    }
}
