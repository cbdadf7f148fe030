import Foundation
import TestSupport
import Testing

@testable import ICalBridge

/// `export --recurrence series` of a daily 02:30 Berlin series over the last Sunday of March: the occurrence
/// whose wall-clock start falls in the spring-forward gap is written as a RECURRENCE-ID override with its
/// exact times in UTC, as Graph holds it, not left implicit in the RRULE (issue 28, item 5). Instants come
/// from the system's zone rules.
@Suite struct SeriesGapExportTests {
    static let windows = "W. Europe Standard Time"
    static let uid = "040000008200E00074C5B7101A82E00800000000NIGHTLY"
    static let days = ["2026-03-27", "2026-03-28", "2026-03-29", "2026-03-30", "2026-03-31"]

    /// The instant of 02:30 on `day` in Berlin by the system's rules (in the gap, where RFC 5545 and Graph put
    /// it).
    static func instant(_ day: String) throws -> Int64 {
        try #require(SystemZoneRules.rfcInstant(day + "T02:30", in: "Europe/Berlin"))
    }

    static func utc(_ instant: Int64) -> String { CivilDateTime(secondsSinceEpoch: instant).description }

    static func compact(_ instant: Int64) -> String {
        utc(instant).filter { $0 != "-" && $0 != ":" } + "Z"
    }

    static func when(_ instant: Int64) -> [String: Any] { ["dateTime": utc(instant) + ".0000000", "timeZone": "UTC"] }

    static func master() throws -> [String: Any] {
        let start = try instant(days[0])
        return [
            "id": "master-nightly", "iCalUId": uid, "type": "seriesMaster", "subject": "Nightly backup check",
            "start": when(start), "end": when(start + 1800), "originalStartTimeZone": windows,
            "originalEndTimeZone": windows,
            "recurrence": [
                "pattern": ["type": "daily", "interval": 1],
                "range": [
                    "type": "numbered", "startDate": days[0], "numberOfOccurrences": 5, "recurrenceTimeZone": windows,
                ],
            ] as [String: Any],
        ]
    }

    static func occurrence(_ day: String) throws -> [String: Any] {
        let start = try instant(day)
        return [
            "id": "occ-\(day)", "iCalUId": uid, "type": "occurrence", "seriesMasterId": "master-nightly",
            "subject": "Nightly backup check", "originalStart": utc(start) + "Z", "start": when(start),
            "end": when(start + 1800), "originalStartTimeZone": windows, "originalEndTimeZone": windows,
        ]
    }

    static func export() throws -> (text: String, summary: GraphToICS.Summary) {
        let options = ExportOptions(
            fallbackZone: ResolvedZone.iana("Europe/Berlin"), timestamp: 1_796_083_200, file: "gap.json")
        let from = CivilDateTime(year: 2026, month: 3, day: 26).secondsSinceEpoch
        let to = CivilDateTime(year: 2026, month: 4, day: 2).secondsSinceEpoch
        let stream = try GraphToICS.PageStream(options: options, recurrence: .series, range: from..<to)
        let page = try JSONSerialization.data(withJSONObject: ["value": try days.map(occurrence)])
        try stream.add(page: page)
        try stream.addSeries(id: "master-nightly", master: JSONSerialization.data(withJSONObject: try master())) {
            _, _, onPage in try onPage(JSONSerialization.data(withJSONObject: ["value": [Any]()]))
        }
        var buffer = ByteBuffer()
        let summary = try stream.finish(into: &buffer)
        return (String(decoding: buffer.bytes, as: UTF8.self), summary)
    }

    @Test("the gap's occurrence is an override in UTC; the master keeps its local RRULE and no EXDATE")
    func gapOccurrenceIsOverride() throws {
        try #require(SystemZoneRules.instants("2026-03-29T02:30", in: "Europe/Berlin").isEmpty, "02:30 is a gap")
        let gap = try Self.instant("2026-03-29")
        let (text, summary) = try Self.export()
        #expect(summary.diagnostics.isEmpty, "\(summary.diagnostics)")
        let events = Fixtures.events(text)
        #expect(events.count == 2, "one master and one override, never single events:\n\(text)")
        let master = try #require(events.first { Fixtures.line("RRULE", in: $0) != nil })
        #expect(Fixtures.line("DTSTART", in: master) == "DTSTART;TZID=Europe/Berlin:20260327T023000")
        #expect(Fixtures.value("RRULE", in: master) == "FREQ=DAILY;COUNT=5")
        #expect(master.filter { $0.hasPrefix("EXDATE") }.isEmpty)
        let override = try #require(events.first { Fixtures.line("RECURRENCE-ID", in: $0) != nil })
        #expect(Fixtures.value("UID", in: override) == Self.uid)
        #expect(Fixtures.line("RECURRENCE-ID", in: override) == "RECURRENCE-ID:" + Self.compact(gap))
        #expect(Fixtures.line("DTSTART", in: override) == "DTSTART:" + Self.compact(gap))
        #expect(Fixtures.line("DTEND", in: override) == "DTEND:" + Self.compact(gap + 1800))
        #expect(Fixtures.value("SUMMARY", in: override) == "Nightly backup check")

        // graph-ics' own import reads it back as the same series with the occurrence at that instant.
        let plan = try ICSToGraph.plan(Data(text.utf8), options: ImportOptions(file: "gap.ics"))
        #expect(plan.events.count == 1)
        let series = try #require(plan.events.first)
        #expect(series.payload.recurrence?.pattern?.type == "daily")
        let overrides = series.followUps.compactMap { step -> (String, GraphEvent)? in
            if case .patchOccurrence(let original, let changes) = step { return (original, changes) }
            return nil
        }
        #expect(overrides.map(\.0) == [Self.utc(gap) + "Z"])
        #expect(overrides.first?.1.start?.timeZone == "UTC")
        #expect(overrides.first?.1.start?.dateTime == Self.utc(gap))
    }
}
