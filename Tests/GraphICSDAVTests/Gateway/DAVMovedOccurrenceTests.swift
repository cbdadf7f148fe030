import Foundation
import GraphICS
import GraphStandIn
import Testing

@testable import GraphICSDAV

/// An occurrence moved onto a neighbour's day is held by Graph as a single event of its own, whose
/// transactionId (set by the import or sync's push) names its series and original start. The gateway serves it
/// inside its series' resource as the RECURRENCE-ID override it came from, as sync's pull writes it: one
/// resource per UID (issue 28, item 3).
@Suite(.serialized) struct DAVMovedOccurrenceTests {
    @Test func theMovedOccurrenceIsServedAsAnOverrideOfItsSeries() throws {
        let fixture = try DAVGatewayFixture()
        // The fixture's series: its third occurrence (day 16, 09:00) is cancelled in the series; here it is
        // held as an event of its own on day 23 at 07:00, the day of the following occurrence.
        try fixture.addSeries(day: 2)
        try fixture.standIn.addEvent([
            "id": "moved-2", "type": "singleInstance", "subject": "Weekly (moved on)", "iCalUId": "uid-moved",
            "transactionId": "graph-ics-moved|" + fixture.localTime(16, 9) + "Z|weekly",
            "start": fixture.when(23, 7), "end": fixture.when(23, 7, 30),
        ])
        let listing = fixture.request(
            "PROPFIND", fixture.calendarPath,
            body: "<D:propfind xmlns:D=\"DAV:\"><D:prop><D:getetag/></D:prop></D:propfind>",
            headers: [("Depth", "1")])
        #expect(listing.status == 207)
        let names = DAVGatewayFixture.hrefs(listing).map { ($0 as NSString).lastPathComponent }
        #expect(names.filter { $0.hasSuffix(".ics") } == ["uid-weekly.ics"], "no resource of its own: \(names)")

        let get = fixture.request("GET", fixture.calendarPath + "uid-weekly.ics")
        #expect(get.status == 200)
        let text = DAVGatewayFixture.text(get)
        #expect(text.contains("RECURRENCE-ID:\(fixture.stamp(16, 9))\r\n"), "\(text)")
        #expect(text.contains("DTSTART:\(fixture.stamp(23, 7))\r\n"), "\(text)")
        #expect(text.contains("SUMMARY:Weekly (moved on)\r\n"), "\(text)")
        #expect(!text.contains("EXDATE"), "the occurrence is moved, not cancelled: \(text)")
        #expect(!text.contains("UID:uid-moved"), "\(text)")
    }
}
