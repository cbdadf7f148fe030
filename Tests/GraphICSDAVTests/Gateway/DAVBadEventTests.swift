import Foundation
import GraphICS
import GraphICSServe
import GraphStandIn
import Testing

@testable import GraphICSDAV

/// An Outlook event that cannot be served as iCalendar (here: it ends before it starts) never fails a whole
/// answer: it is listed with an error propstat of its own, saying why, and every other event is served.
@Suite(.serialized) struct DAVBadEventTests {
    /// `(href, status of each propstat by property local name, response description)` of each response.
    static func responses(_ response: HTTPServerResponse) throws -> [(
        href: String, statuses: [String: Int], description: String?
    )] {
        let root = try DAVXML.parse(response.body.data)
        return root.all(.dav("response")).map { element in
            var statuses: [String: Int] = [:]
            for propstat in element.all(.dav("propstat")) {
                let code = propstat.first(.dav("status")).flatMap { Int($0.text.split(separator: " ")[1]) } ?? 0
                for prop in propstat.first(.dav("prop"))?.children ?? [] { statuses[prop.name.local] = code }
            }
            return (
                element.first(.dav("href"))?.text ?? "", statuses, element.first(.dav("responsedescription"))?.text
            )
        }
    }

    static func addBroken(_ fixture: DAVGatewayFixture) throws {
        try fixture.standIn.addEvent([
            "id": "broken", "subject": "Backwards", "iCalUId": "uid-broken", "start": fixture.when(3, 10),
            "end": fixture.when(3, 9),
        ])
    }

    /// Checks that `answer` serves the good event and gives the broken one its own 500 propstat and reason.
    static func expectOneBad(
        _ answer: HTTPServerResponse, content: String, sourceLocation: SourceLocation = #_sourceLocation
    )
        throws
    {
        #expect(answer.status == 207, sourceLocation: sourceLocation)
        let listed = try responses(answer)
        let good = try #require(listed.first { $0.href.hasSuffix("/uid-good.ics") }, sourceLocation: sourceLocation)
        #expect(good.statuses[content] == 200 && good.description == nil, sourceLocation: sourceLocation)
        let bad = try #require(listed.first { $0.href.hasSuffix("/uid-broken.ics") }, sourceLocation: sourceLocation)
        #expect(bad.statuses[content] == 500, "\(bad.statuses)", sourceLocation: sourceLocation)
        #expect(bad.description?.contains("ends") == true, "\(bad.description ?? "")", sourceLocation: sourceLocation)
        #expect(bad.description?.contains("broken") == true, sourceLocation: sourceLocation)
    }

    @Test("calendar-query, calendar-multiget, sync-collection and PROPFIND list a bad event with its own error")
    func reports() throws {
        let fixture = try DAVGatewayFixture()
        try fixture.addSingle("Good", day: 2, id: "good")
        try Self.addBroken(fixture)
        let path = fixture.calendarPath

        let query = fixture.request(
            "REPORT", path,
            body: """
                <C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
                <D:prop><D:getetag/><C:calendar-data/></D:prop>
                <C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT">
                <C:time-range start="\(fixture.stamp(1))" end="\(fixture.stamp(5))"/>
                </C:comp-filter></C:comp-filter></C:filter></C:calendar-query>
                """)
        try Self.expectOneBad(query, content: "calendar-data")
        #expect(DAVGatewayFixture.text(query).contains("SUMMARY:Good"))

        let multiget = fixture.request(
            "REPORT", path,
            body: """
                <C:calendar-multiget xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
                <D:prop><D:getetag/><C:calendar-data/></D:prop>
                <D:href>\(path)uid-good.ics</D:href><D:href>\(path)uid-broken.ics</D:href></C:calendar-multiget>
                """)
        try Self.expectOneBad(multiget, content: "calendar-data")

        let sync = fixture.request(
            "REPORT", path,
            body: """
                <D:sync-collection xmlns:D="DAV:"><D:sync-token/><D:sync-level>1</D:sync-level>
                <D:prop><D:getetag/></D:prop></D:sync-collection>
                """)
        try Self.expectOneBad(sync, content: "getetag")

        let listing = fixture.request(
            "PROPFIND", path, body: #"<propfind xmlns="DAV:"><prop><getetag/><resourcetype/></prop></propfind>"#,
            headers: [("Depth", "1")])
        try Self.expectOneBad(listing, content: "getetag")
        let bad = try #require(try Self.responses(listing).first { $0.href.hasSuffix("/uid-broken.ics") })
        #expect(bad.statuses["resourcetype"] == 200)
    }

    @Test(
        "GET of a bad event is 500 with the reason; a PUT over it is refused and sends nothing; once fixed it is served"
    )
    func getPutAndFix() throws {
        let fixture = try DAVGatewayFixture()
        try Self.addBroken(fixture)
        let href = fixture.calendarPath + "uid-broken.ics"
        let get = fixture.request("GET", href)
        #expect(get.status == 500 && DAVGatewayFixture.text(get).contains("ends"))

        let before = fixture.standIn.operations.count
        let put = fixture.request(
            "PUT", href,
            body: DAVGatewayTests.event(uid: "uid-broken", start: fixture.stamp(3, 10), summary: "Forwards"))
        #expect(put.status == 409, "\(DAVGatewayFixture.text(put))")
        #expect(fixture.writes(after: before).isEmpty)

        try fixture.standIn.changeEvent(id: "broken", ["end": fixture.when(3, 11)])
        let fixed = fixture.request("GET", href)
        #expect(fixed.status == 200 && DAVGatewayFixture.text(fixed).contains("SUMMARY:Backwards"))
    }
}
