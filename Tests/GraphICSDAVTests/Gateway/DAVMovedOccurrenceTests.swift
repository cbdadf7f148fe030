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

    /// A PUT of a series whose override moves its occurrence onto the day of the following one: the
    /// occurrence is cancelled in the series and the moved one created as an event of its own; a later PUT
    /// changing that override changes that event, creating nothing.
    @Test func aPutChangingTheMovedOccurrencePatchesTheEventHoldingIt() throws {
        let fixture = try DAVGatewayFixture()
        func body(_ summary: String) -> String {
            [
                "BEGIN:VCALENDAR", "VERSION:2.0", "BEGIN:VEVENT", "UID:moved-put", "DTSTAMP:20261120T100000Z",
                "DTSTART:\(fixture.stamp(2, 9))", "DTEND:\(fixture.stamp(2, 10))", "RRULE:FREQ=WEEKLY;COUNT=4",
                "SUMMARY:Weekly", "END:VEVENT", "BEGIN:VEVENT", "UID:moved-put", "DTSTAMP:20261120T100000Z",
                "RECURRENCE-ID:\(fixture.stamp(9, 9))", "DTSTART:\(fixture.stamp(16, 7))",
                "DTEND:\(fixture.stamp(16, 8))", "SUMMARY:\(summary)", "END:VEVENT", "END:VCALENDAR", "",
            ].joined(separator: "\r\n")
        }
        let path = fixture.calendarPath + "moved-put.ics"
        let created = fixture.request("PUT", path, body: body("Weekly (moved)"), headers: [("If-None-Match", "*")])
        #expect(created.status == 201, "\(DAVGatewayFixture.text(created))")
        let moved = try #require(fixture.standIn.events().first { $0["type"] as? String == "singleInstance" })
        let movedID = try #require(moved["id"] as? String)
        #expect(moved["subject"] as? String == "Weekly (moved)")
        let count = fixture.standIn.events().count
        // A PUT answers without an ETag (the client reads it back).
        let etag = try #require(fixture.request("GET", path).headers.first { $0.name == "ETag" }?.value)

        let changed = fixture.request(
            "PUT", path, body: body("Weekly (moved to room 2)"), headers: [("If-Match", etag)])
        #expect(changed.status == 204 || changed.status == 200, "\(DAVGatewayFixture.text(changed))")
        #expect(fixture.standIn.event(id: movedID)?["subject"] as? String == "Weekly (moved to room 2)")
        #expect(fixture.standIn.operations.filter { $0.method == "PATCH" && $0.path.hasSuffix(movedID) }.count == 1)
        #expect(fixture.standIn.events().count == count, "nothing created, nothing deleted")
    }
}
