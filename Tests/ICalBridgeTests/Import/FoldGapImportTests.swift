import Foundation
import TestSupport
import Testing

@testable import ICalBridge

/// A local time in the repeated hour of a fold (clocks go back) or in a spring-forward gap names two
/// instants or none, and how Graph reads one is on no page: a single event goes to Graph as the exact
/// instant in UTC (RFC 5545 §3.3.5: the first of a fold, a gap's time moved forward by the gap); a series
/// keeps its local pattern and its occurrence there gets an override in UTC (issue 28, item 4). Expected
/// instants come from the system's zone rules (Foundation's `TimeZone`), not from graph-ics's own.
@Suite(.tags(.zoneRules)) struct FoldGapImportTests {
    static let berlin = "Europe/Berlin"

    func plan(_ body: String, zone: String? = nil) throws -> ImportPlan {
        let text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n" + body + "END:VCALENDAR\r\n"
        var options = ImportOptions(file: "fold.ics")
        if let zone, case .resolved(let resolved, _) = ZoneResolver.resolve(zone) { options.userZone = resolved }
        return try ICSToGraph.plan(Data(text.utf8), options: options)
    }

    func event(_ lines: String) -> String {
        "BEGIN:VEVENT\r\n" + lines.replacing("\n", with: "\r\n") + "\r\nEND:VEVENT\r\n"
    }

    static func systemInstants(_ local: String, in zone: String) -> [Int64] {
        SystemZoneRules.instants(local, in: zone)
    }

    static func rfcInstant(_ local: String, in zone: String) throws -> Int64 {
        try #require(SystemZoneRules.rfcInstant(local, in: zone))
    }

    /// The instant a Graph value in UTC names; nil when it is not in UTC.
    static func utcInstant(_ value: GraphDateTimeTimeZone?) -> Int64? {
        guard value?.timeZone == "UTC", let text = value?.dateTime, let parsed = GraphTimestamp.parse(text) else {
            return nil
        }
        return parsed.civil.secondsSinceEpoch
    }

    /// The fold's repeated hour (two instants) and the gap's skipped hour (none), each with an end after it.
    static let singles = [
        (day: "20261025", start: "2026-10-25T02:30:00", instants: 2),
        (day: "20260329", start: "2026-03-29T02:30:00", instants: 0),
    ]

    @Test(
        "a single event starting in the repeated hour or in the gap is sent as its RFC 5545 instant in UTC",
        arguments: singles.indices)
    func singleInFoldOrGap(_ index: Int) throws {
        let single = Self.singles[index]
        try #require(Self.systemInstants(single.start, in: Self.berlin).count == single.instants)
        let plan = try plan(
            event(
                """
                UID:single-\(single.day)
                SUMMARY:Early
                DTSTART;TZID=Europe/Berlin:\(single.day)T023000
                DTEND;TZID=Europe/Berlin:\(single.day)T050000
                """))
        let payload = try #require(plan.events.first?.payload)
        #expect(payload.start?.timeZone == "UTC")
        #expect(Self.utcInstant(payload.start) == (try Self.rfcInstant(single.start, in: Self.berlin)))
        // 05:00 occurs once: it stays local time.
        #expect(payload.end?.timeZone == "W. Europe Standard Time")
        #expect(payload.end?.dateTime == String(single.start.prefix(11)) + "05:00:00")
    }

    @Test("floating times read with --tz follow the same rule; an ordinary hour stays local")
    func floatingWithZone() throws {
        let plan = try plan(
            event(
                """
                UID:floating-fold
                SUMMARY:Floating
                DTSTART:20261025T023000
                DTEND:20261025T033000
                """)
                + event(
                    """
                    UID:floating-plain
                    SUMMARY:Plain
                    DTSTART:20261026T023000
                    DTEND:20261026T033000
                    """), zone: Self.berlin)
        let fold = try #require(plan.events.first { $0.sourceUID == "floating-fold" }?.payload)
        #expect(fold.start?.timeZone == "UTC")
        #expect(Self.utcInstant(fold.start) == (Self.systemInstants("2026-10-25T02:30:00", in: Self.berlin)[0]))
        // 03:30 follows the fold: it occurs once.
        #expect(fold.end?.timeZone == "W. Europe Standard Time")
        let plain = try #require(plan.events.first { $0.sourceUID == "floating-plain" }?.payload)
        #expect(plain.start?.timeZone == "W. Europe Standard Time")
        #expect(plain.start?.dateTime == "2026-10-26T02:30:00")
    }

    @Test("a daily 02:30 series keeps its local pattern; its occurrences in the fold and the gap get UTC overrides")
    func seriesOverrides() throws {
        let plan = try plan(
            event(
                """
                UID:daily-fold
                SUMMARY:Nightly
                DTSTART;TZID=Europe/Berlin:20261022T023000
                DTEND;TZID=Europe/Berlin:20261022T031500
                RRULE:FREQ=DAILY;COUNT=7
                """)
                + event(
                    """
                    UID:daily-gap
                    SUMMARY:Nightly
                    DTSTART;TZID=Europe/Berlin:20260326T023000
                    DTEND;TZID=Europe/Berlin:20260326T031500
                    RRULE:FREQ=DAILY;COUNT=7
                    """))
        for (uid, day) in [("daily-fold", "2026-10-25"), ("daily-gap", "2026-03-29")] {
            let series = try #require(plan.events.first { $0.sourceUID == uid })
            #expect(series.payload.start?.timeZone == "W. Europe Standard Time", "\(uid)")
            #expect(series.payload.start?.dateTime?.hasSuffix("T02:30:00") == true, "\(uid)")
            #expect(series.payload.recurrence?.pattern?.type == "daily", "\(uid)")
            let zone = series.payload.recurrence?.range?.recurrenceTimeZone
            #expect(zone == nil || zone == "W. Europe Standard Time", "\(uid): never a local pattern in UTC")
            let exact = try Self.rfcInstant(day + "T02:30:00", in: Self.berlin)
            let expected = CivilDateTime(secondsSinceEpoch: exact).description + "Z"
            #expect(series.followUps.count == 1, "\(uid): \(series.followUps)")
            guard case .patchOccurrence(let originalStart, let changes)? = series.followUps.first else {
                Issue.record("\(uid): no override: \(series.followUps)")
                continue
            }
            #expect(originalStart == expected, "\(uid)")
            #expect(Self.utcInstant(changes.start) == exact, "\(uid)")
            #expect(Self.utcInstant(changes.end) == exact + 45 * 60, "\(uid): the exact length")
        }
    }

    @Test("a series whose occurrences avoid the fold and the gap gets no override")
    func seriesWithoutAmbiguity() throws {
        let plan = try plan(
            event(
                """
                UID:daily-noon
                SUMMARY:Lunch
                DTSTART;TZID=Europe/Berlin:20261022T123000
                DTEND;TZID=Europe/Berlin:20261022T131500
                RRULE:FREQ=DAILY;COUNT=7
                """))
        #expect(plan.events.first?.followUps.isEmpty == true)
    }
}
