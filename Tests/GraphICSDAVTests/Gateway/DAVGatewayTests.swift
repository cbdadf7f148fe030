import Foundation
import GraphICS
import GraphICSServe
import GraphStandIn
import Testing

@testable import GraphICSDAV

/// The CalDAV gateway in process against the stand-in: discovery, reads, sync tokens and writes.
@Suite(.serialized) struct DAVGatewayTests {
    /// `(href, status, properties by local name)` of each response of a multistatus.
    static func responses(_ response: HTTPServerResponse) throws -> [(
        href: String, status: Int?, props: [String: DAVElement]
    )] {
        let root = try DAVXML.parse(response.body.data)
        return root.all(.dav("response")).map { element in
            var props: [String: DAVElement] = [:]
            var status: Int?
            if let line = element.first(.dav("status"))?.text { status = Int(line.split(separator: " ")[1]) }
            for propstat in element.all(.dav("propstat")) {
                let code = propstat.first(.dav("status")).flatMap { Int($0.text.split(separator: " ")[1]) }
                for prop in propstat.first(.dav("prop"))?.children ?? [] where code == 200 {
                    props[prop.name.local] = prop
                }
            }
            return (element.first(.dav("href"))?.text ?? "", status, props)
        }
    }

    static let propfindAll = """
        <?xml version="1.0" encoding="utf-8"?>
        <D:propfind xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:CS="http://calendarserver.org/ns/">
          <D:prop><D:resourcetype/><D:displayname/><CS:getctag/><D:sync-token/><D:getetag/>
            <C:supported-calendar-component-set/><D:current-user-privilege-set/><D:no-such-property/></D:prop>
        </D:propfind>
        """

    @Test("Discovery: 401 without credentials, OPTIONS's DAV header, the principal and home, the calendar listed")
    func discovery() throws {
        let fixture = try DAVGatewayFixture()
        let anonymous = fixture.request("PROPFIND", "/dav/", authorized: false)
        #expect(anonymous.status == 401)
        #expect(anonymous.headers.contains { $0.name == "WWW-Authenticate" && $0.value.hasPrefix("Basic realm=") })
        let options = fixture.request("OPTIONS", "/dav/", authorized: false)
        #expect(options.headers.first { $0.name == "DAV" }?.value.contains("calendar-auto-schedule") == true)
        let wellKnown = fixture.request("GET", "/.well-known/caldav", authorized: false)
        #expect(wellKnown.status == 301 && wellKnown.headers.contains { $0 == ("Location", "/dav/") })

        let principal = fixture.request(
            "PROPFIND", "/dav/",
            body: #"<propfind xmlns="DAV:"><prop><current-user-principal/></prop></propfind>"#,
            headers: [("Depth", "0")])
        #expect(principal.status == 207)
        let root = try Self.responses(principal)
        #expect(root.first?.props["current-user-principal"]?.first(.dav("href"))?.text == "/dav/ada/")

        let home = fixture.request("PROPFIND", "/dav/ada/", body: Self.propfindAll, headers: [("Depth", "1")])
        let listed = try Self.responses(home)
        #expect(listed.count == 2)
        let calendar = try #require(listed.first { $0.href == fixture.calendarPath })
        #expect(calendar.props["resourcetype"]?.first(.caldav("calendar")) != nil)
        #expect(calendar.props["sync-token"]?.text.hasPrefix("http") == true)
        #expect(calendar.props["supported-calendar-component-set"]?.children.first?.attributes["name"] == "VEVENT")
        #expect(Self.text(home).contains("no-such-property"))
        #expect(calendar.props["no-such-property"] == nil)

        let infinite = fixture.request("PROPFIND", fixture.calendarPath, headers: [("Depth", "infinity")])
        #expect(infinite.status == 403 && Self.text(infinite).contains("propfind-finite-depth"))
        let other = fixture.request("PROPFIND", "/dav/bob/", headers: [("Depth", "0")])
        #expect(other.status == 404)
    }

    @Test("A time range matches a series on exactly the days of its occurrences (moved and cancelled ones too)")
    func timeRanges() throws {
        let fixture = try DAVGatewayFixture()
        try fixture.addSeries(day: 2)
        try fixture.addSingle("Dentist", day: 3, id: "dentist")
        func query(_ day: Int) throws -> [String] {
            let body = """
                <C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
                  <D:prop><D:getetag/></D:prop>
                  <C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT">
                    <C:time-range start="\(fixture.stamp(day))" end="\(fixture.stamp(day + 1))"/>
                  </C:comp-filter></C:comp-filter></C:filter>
                </C:calendar-query>
                """
            let answer = fixture.request("REPORT", fixture.calendarPath, body: body, headers: [("Depth", "1")])
            #expect(answer.status == 207)
            return try Self.responses(answer).map { ($0.href as NSString).lastPathComponent }.sorted()
        }
        #expect(try query(2) == ["uid-weekly.ics"])
        #expect(try query(3) == ["uid-dentist.ics"])
        #expect(try query(9) == [])  // moved to the 10th
        #expect(try query(10) == ["uid-weekly.ics"])
        #expect(try query(16) == [])  // cancelled
        #expect(try query(23) == ["uid-weekly.ics"])
        #expect(try query(24) == [])

        let get = fixture.request("GET", fixture.calendarPath + "uid-weekly.ics")
        let text = Self.text(get)
        #expect(get.status == 200)
        #expect(text.contains("RRULE:FREQ=WEEKLY") && text.contains("RECURRENCE-ID") && text.contains("EXDATE"))
        #expect(!text.contains("METHOD:"))
        #expect(get.headers.contains { $0.name == "ETag" })
    }

    @Test("sync-collection: everything first, then one change and one deletion as a 404; a bad token gets 403")
    func syncTokens() throws {
        let fixture = try DAVGatewayFixture()
        try fixture.addSingle("Dentist", day: 3, id: "dentist")
        try fixture.addSingle("Lunch", day: 4, id: "lunch")
        func sync(_ token: String) -> HTTPServerResponse {
            fixture.request(
                "REPORT", fixture.calendarPath,
                body: """
                    <D:sync-collection xmlns:D="DAV:"><D:sync-token>\(token)</D:sync-token><D:sync-level>1</D:sync-level>
                    <D:prop><D:getetag/></D:prop></D:sync-collection>
                    """)
        }
        let first = sync("")
        let all = try Self.responses(first)
        #expect(Set(all.map { ($0.href as NSString).lastPathComponent }) == ["uid-dentist.ics", "uid-lunch.ics"])
        let token = try #require(try DAVXML.parse(first.body.data).first(.dav("sync-token"))?.text)
        #expect(try Self.responses(sync(token)).isEmpty)

        try fixture.standIn.changeEvent(id: "dentist", ["subject": "Dentist (moved)"])
        try fixture.standIn.removeEvent(id: "lunch")
        let second = sync(token)
        let changes = try Self.responses(second)
        #expect(changes.count == 2)
        #expect(changes.contains { $0.href.hasSuffix("uid-dentist.ics") && $0.props["getetag"] != nil })
        #expect(changes.contains { $0.href.hasSuffix("uid-lunch.ics") && $0.status == 404 })

        let bad = sync("http://graph-ics.invalid/sync/ffff/1")
        #expect(bad.status == 403 && Self.text(bad).contains("valid-sync-token"))
    }

    static func event(uid: String, start: String, summary: String, extra: String = "") -> String {
        """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//test//EN\r
        BEGIN:VEVENT\r
        UID:\(uid)\r
        DTSTAMP:20261201T000000Z\r
        DTSTART:\(start)\r
        DURATION:PT1H\r
        SUMMARY:\(summary)\r
        \(extra)END:VEVENT\r
        END:VCALENDAR\r

        """
    }

    @Test("PUT keeps the client's href and UID, sends no ETag; a stale If-Match gets 412; X- alone sends nothing")
    func writes() throws {
        let fixture = try DAVGatewayFixture()
        let path = fixture.calendarPath + "client-name.ics"
        let body = Self.event(uid: "client-uid-1", start: fixture.stamp(5, 14), summary: "Planning")
        let created = fixture.request("PUT", path, body: body, headers: [("If-None-Match", "*")])
        #expect(created.status == 201)
        #expect(!created.headers.contains { $0.name == "ETag" })
        let again = fixture.request("PUT", path, body: body, headers: [("If-None-Match", "*")])
        #expect(again.status == 412)

        let read = fixture.request("GET", path)
        #expect(read.status == 200)
        #expect(Self.text(read).contains("UID:client-uid-1"))
        let etag = try #require(read.headers.first { $0.name == "ETag" }?.value)
        // The client reads back what it wrote, and keeps reading it while Outlook does not change the event:
        // a round that reads Graph whole (its delta state gone) renders it as the PUT's round did.
        #expect(Self.text(read) == body)
        fixture.standIn.injectFault(.respond(DAVGatewayFixture.gone), forPathContaining: "delta", times: 1)
        _ = fixture.request("PROPFIND", fixture.calendarPath, headers: [("Depth", "1")])
        #expect(fixture.request("GET", path).headers.first { $0.name == "ETag" }?.value == etag)
        let stale = fixture.request(
            "PUT", path, body: Self.event(uid: "client-uid-1", start: fixture.stamp(5, 14), summary: "x"),
            headers: [("If-Match", "\"0000000000000000\"")])
        #expect(stale.status == 412)

        // Only a property Outlook does not hold: nothing sent, and it is served back.
        let before = fixture.standIn.operations.count
        let acknowledged = Self.event(
            uid: "client-uid-1", start: fixture.stamp(5, 14), summary: "Planning",
            extra: "X-MOZ-LASTACK:20261201T100000Z\r\n")
        let quiet = fixture.request("PUT", path, body: acknowledged, headers: [("If-Match", etag)])
        #expect(quiet.status == 204)
        #expect(fixture.writes(after: before).isEmpty)
        let served = fixture.request("GET", path)
        #expect(Self.text(served).contains("X-MOZ-LASTACK:20261201T100000Z"))
        let newTag = try #require(served.headers.first { $0.name == "ETag" }?.value)
        #expect(newTag != etag)

        // A SUMMARY edit: one PATCH of the subject alone.
        let renamed = Self.event(
            uid: "client-uid-1", start: fixture.stamp(5, 14), summary: "Planning (room 2)",
            extra: "X-MOZ-LASTACK:20261201T100000Z\r\n")
        let count = fixture.standIn.operations.count
        #expect(fixture.request("PUT", path, body: renamed, headers: [("If-Match", newTag)]).status == 204)
        let patches = fixture.writes(after: count)
        #expect(patches.count == 1 && patches.first?.method == "PATCH")
        let fields = (patches.first?.jsonBody as? [String: Any]).map { Set($0.keys) } ?? []
        #expect(fields == ["subject"])
        // A second edit right after: the baseline is the event as the first edit left it.
        let third = try #require(fixture.request("GET", path).headers.first { $0.name == "ETag" }?.value)
        let room3 = Self.event(
            uid: "client-uid-1", start: fixture.stamp(5, 14), summary: "Planning (room 3)",
            extra: "X-MOZ-LASTACK:20261201T100000Z\r\n")
        let secondEdit = fixture.request("PUT", path, body: room3, headers: [("If-Match", third)])
        #expect(secondEdit.status == 204, "\(Self.text(secondEdit))")

        // Listed under the client's name, with the client's UID, and deleted from Outlook with DELETE.
        let listing = fixture.request("PROPFIND", fixture.calendarPath, body: "", headers: [("Depth", "1")])
        #expect(try Self.responses(listing).contains { $0.href == path })
        let deleted = fixture.request("DELETE", path)
        #expect(deleted.status == 204)
        #expect(fixture.request("GET", path).status == 404)
    }

    @Test("Under --invitations refuse a meeting you organise is neither created, changed nor deleted; nothing is sent")
    func invitationsRefused() throws {
        let fixture = try DAVGatewayFixture()
        try fixture.addSingle(
            "Review", day: 6, id: "review",
            extra: [
                "isOrganizer": true,
                "attendees": [
                    ["emailAddress": ["address": "bob@contoso.example", "name": "Bob"], "type": "required"]
                ],
            ])
        let path = fixture.calendarPath + "uid-review.ics"
        let read = fixture.request("GET", path)
        let etag = try #require(read.headers.first { $0.name == "ETag" }?.value)
        let before = fixture.standIn.operations.count
        let changed = Self.text(read).replacingOccurrences(of: "SUMMARY:Review", with: "SUMMARY:Review 2")
        let put = fixture.request("PUT", path, body: changed, headers: [("If-Match", etag)])
        #expect(put.status == 403)
        #expect(Self.text(put).contains("--invitations send"))
        let delete = fixture.request("DELETE", path, headers: [("If-Match", etag)])
        #expect(delete.status == 403)
        let invite = Self.event(
            uid: "new-meeting", start: fixture.stamp(7, 9), summary: "Kick-off",
            extra:
                "ORGANIZER:mailto:ada@contoso.example\r\nATTENDEE;PARTSTAT=NEEDS-ACTION:mailto:carol@contoso.example\r\n"
        )
        #expect(fixture.request("PUT", fixture.calendarPath + "new.ics", body: invite).status == 403)
        #expect(fixture.writes(after: before).isEmpty)
        #expect(fixture.standIn.sentInvitations.isEmpty && fixture.standIn.sentCancellations.isEmpty)
    }

    @Test("A read-only login, MKCALENDAR and a to-do are refused with 403; a body with a DOCTYPE gets 400")
    func refusals() throws {
        let readOnly = try DAVGatewayFixture(readOnly: true)
        let put = readOnly.request(
            "PUT", readOnly.calendarPath + "a.ics",
            body: Self.event(uid: "a", start: readOnly.stamp(2, 9), summary: "a"))
        #expect(put.status == 403)
        let fixture = try DAVGatewayFixture()
        #expect(fixture.request("MKCALENDAR", "/dav/ada/new/").status == 403)
        let todo =
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VTODO\r\nUID:t\r\nSUMMARY:t\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
        let refused = fixture.request("PUT", fixture.calendarPath + "t.ics", body: todo)
        #expect(refused.status == 403 && Self.text(refused).contains("supported-calendar-component"))
        let hostile = fixture.request(
            "PROPFIND", "/dav/ada/",
            body: "<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]><x>&e;</x>",
            headers: [("Depth", "0")])
        #expect(hostile.status == 400)
        #expect(!Self.text(hostile).contains("root:"))
    }

    @Test("Graph failing: reads answer from what was served, writes get 503 with Retry-After, /healthz is degraded")
    func graphDown() throws {
        let fixture = try DAVGatewayFixture()
        try fixture.addSingle("Dentist", day: 3, id: "dentist")
        let healthz = HTTPServerResponse(
            status: 200, headers: [("Content-Type", "application/json")],
            body: HTTPBody(Data(#"{"feeds":[],"status":"ok"}"#.utf8)))
        let listing = fixture.request("PROPFIND", fixture.calendarPath, headers: [("Depth", "1")])
        #expect(try Self.responses(listing).count == 2)
        let healthy = try JSONSerialization.jsonObject(with: fixture.gateway.addingHealth(to: healthz).body.data)
        #expect((healthy as? [String: Any])?["status"] as? String == "ok")
        #expect(((healthy as? [String: Any])?["caldav"] as? [Any])?.count == 1)

        let unavailable = LoopbackHTTPServer.Response(
            status: 503, headers: [("Content-Type", "application/json"), ("Retry-After", "0")],
            body: Data(#"{"error":{"code":"ServiceUnavailable","message":"down"}}"#.utf8))
        fixture.standIn.injectFault(.respond(unavailable), forPathContaining: "/", times: 1000)
        let stale = fixture.request("PROPFIND", fixture.calendarPath, headers: [("Depth", "1")])
        #expect(stale.status == 207)
        #expect(try Self.responses(stale).count == 2)
        let put = fixture.request(
            "PUT", fixture.calendarPath + "new.ics",
            body: Self.event(uid: "new", start: fixture.stamp(4, 9), summary: "New"))
        #expect(put.status == 503)
        #expect(put.headers.contains { $0.name == "Retry-After" })
        let degraded = try JSONSerialization.jsonObject(with: fixture.gateway.addingHealth(to: healthz).body.data)
        #expect((degraded as? [String: Any])?["status"] as? String == "degraded")
        fixture.standIn.clearFaults()
    }

    @Test("A series PUT years before the window, with an override, is created, listed and served back")
    func seriesOutsideTheWindow() throws {
        let fixture = try DAVGatewayFixture()
        let body = """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            BEGIN:VEVENT\r
            DTSTART:20140325T084000Z\r
            DTEND:20140325T101000Z\r
            DTSTAMP:20140327T060506Z\r
            UID:old-series\r
            RECURRENCE-ID:20140325T083000Z\r
            SUMMARY:test Event\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            DTSTART:20140128T083000Z\r
            DTEND:20140128T100000Z\r
            RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20141208T213000Z\r
            DTSTAMP:20140327T060506Z\r
            UID:old-series\r
            SUMMARY:Test event\r
            END:VEVENT\r
            END:VCALENDAR\r

            """
        let path = fixture.calendarPath + "old-series.ics"
        let put = fixture.request("PUT", path, body: body, headers: [("If-None-Match", "*")])
        #expect(put.status == 201, "\(Self.text(put))")
        let read = fixture.request("GET", path)
        #expect(read.status == 200)
        #expect(Self.text(read) == body)
        let listing = fixture.request("PROPFIND", fixture.calendarPath, headers: [("Depth", "1")])
        #expect(try Self.responses(listing).contains { $0.href == path })
    }

    @Test("A sign-in Graph refuses rests 5 minutes: reads answer from what was served without asking Graph again")
    func signInRefused() throws {
        let fixture = try DAVGatewayFixture()
        try fixture.addSingle("Dentist", day: 3, id: "dentist")
        #expect(fixture.request("PROPFIND", fixture.calendarPath, headers: [("Depth", "1")]).status == 207)
        let refused = LoopbackHTTPServer.Response(
            status: 401, headers: [("Content-Type", "application/json")],
            body: Data(#"{"error":{"code":"InvalidAuthenticationToken","message":"expired"}}"#.utf8))
        fixture.standIn.injectFault(.respond(refused), forPathContaining: "/", times: 1000)
        let first = fixture.request("PROPFIND", fixture.calendarPath, headers: [("Depth", "1")])
        #expect(try Self.responses(first).count == 2)
        let asked = fixture.standIn.requests.count
        for _ in 0..<3 {
            let again = fixture.request("PROPFIND", fixture.calendarPath, headers: [("Depth", "1")])
            #expect(try Self.responses(again).count == 2)
        }
        #expect(fixture.standIn.requests.count == asked)
        let healthz = HTTPServerResponse(status: 200, body: HTTPBody(Data(#"{"feeds":[],"status":"ok"}"#.utf8)))
        let health = try JSONSerialization.jsonObject(with: fixture.gateway.addingHealth(to: healthz).body.data)
        let entries = (health as? [String: Any])?["caldav"] as? [[String: Any]]
        #expect(entries?.first?["signIn"] as? String == "refused")
        fixture.standIn.clearFaults()
    }

    static func text(_ response: HTTPServerResponse) -> String { DAVGatewayFixture.text(response) }
}
