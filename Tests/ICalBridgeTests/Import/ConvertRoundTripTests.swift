import Foundation
import Testing

@testable import ICalBridge

/// `convert x.ics --to graph-json | convert -`, in process: the `.ics` that comes back keeps the source UID
/// and each end's own zone (issue 13, item 20).
@Suite struct ConvertRoundTripTests {
    func roundTrip(_ event: String) throws -> [String] {
        let text = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", event, "END:VCALENDAR", ""]
            .joined(separator: "\r\n")
        let plan = try ICSToGraph.plan(
            Data(text.utf8), options: ImportOptions(file: "x.ics"), settings: ImportSettings())
        let (back, summary) = try Fixtures.convert(try plan.jsonData(), file: "-")
        #expect(summary.diagnostics.filter { $0.severity == .error }.isEmpty)
        return Fixtures.lines(back)
    }

    @Test("a flight from Frankfurt to London keeps its UID and arrives in London time")
    func flightKeepsUIDAndBothZones() throws {
        let lines = try roundTrip(
            """
            BEGIN:VEVENT\r
            UID:flight-LH900@example.com\r
            SUMMARY:LH 900 Frankfurt - London\r
            DTSTART;TZID=Europe/Berlin:20261201T090000\r
            DTEND;TZID=Europe/London:20261201T093000\r
            END:VEVENT
            """)
        #expect(lines.contains("UID:flight-LH900@example.com"))
        #expect(lines.contains("DTSTART;TZID=Europe/Berlin:20261201T090000"))
        #expect(lines.contains("DTEND;TZID=Europe/London:20261201T093000"))
    }

    @Test("an event in one zone keeps that zone at both ends")
    func singleZoneStaysSingle() throws {
        let lines = try roundTrip(
            """
            BEGIN:VEVENT\r
            UID:concert-7\r
            SUMMARY:Concert\r
            DTSTART;TZID=America/Chicago:20261205T193000\r
            DTEND;TZID=America/Chicago:20261205T220000\r
            END:VEVENT
            """)
        #expect(lines.contains("UID:concert-7"))
        #expect(lines.contains("DTEND;TZID=America/Chicago:20261205T220000"))
    }

    @Test("expanded occurrences keep an identity of their own, which a second import reads back the same")
    func expandedOccurrencesKeepTheirIdentity() throws {
        let lines = try roundTrip(
            """
            BEGIN:VEVENT\r
            UID:hourly-1\r
            SUMMARY:Hourly\r
            DTSTART:20261201T090000Z\r
            DTEND:20261201T091500Z\r
            RRULE:FREQ=HOURLY;COUNT=2\r
            END:VEVENT
            """)
        let uids = lines.filter { $0.hasPrefix("UID:") }
        #expect(uids == ["UID:hourly-1|20261201T090000Z", "UID:hourly-1|20261201T100000Z"])
    }
}
