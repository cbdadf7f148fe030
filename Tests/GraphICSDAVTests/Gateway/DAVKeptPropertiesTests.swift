import Foundation
import ICalBridge
import TestSupport
import Testing

@testable import GraphICSDAV

/// What a client PUT that Graph cannot hold is kept and served back in the same VEVENT.
@Suite struct DAVKeptPropertiesTests {
    static let put = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//Mozilla.org/NONSGML Mozilla Calendar V1.1//EN\r
        BEGIN:VEVENT\r
        UID:abc\r
        DTSTART:20261207T090000Z\r
        X-MOZ-LASTACK:20261207T085500Z\r
        X-MICROSOFT-CDO-BUSYSTATUS:BUSY\r
        X-APPLE-TRAVEL-ADVISORY-BEHAVIOR:AUTOMATIC\r
        X-MOZ-SNOOZE-TIME:20261207T091000Z\r
        RELATED-TO;RELTYPE=PARENT:parent-uid\r
        SUMMARY:kept by Graph\r
        BEGIN:VALARM\r
        ACTION:DISPLAY\r
        TRIGGER:-PT15M\r
        END:VALARM\r
        BEGIN:VALARM\r
        ACTION:DISPLAY\r
        TRIGGER:-PT5M\r
        X-MOZ-X:1\r
        END:VALARM\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:abc\r
        RECURRENCE-ID:20261214T090000Z\r
        X-MOZ-LASTACK:20261214T085500Z\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    @Test("X- properties other than the export's own, RELATED-TO, and VALARMs after the first are kept per VEVENT")
    func kept() {
        let kept = DAVKeptProperties(from: Data(Self.put.utf8))
        #expect(
            kept.lines[""] == [
                "X-MOZ-LASTACK:20261207T085500Z", "X-APPLE-TRAVEL-ADVISORY-BEHAVIOR:AUTOMATIC",
                "X-MOZ-SNOOZE-TIME:20261207T091000Z", "RELATED-TO;RELTYPE=PARENT:parent-uid", "BEGIN:VALARM",
                "ACTION:DISPLAY", "TRIGGER:-PT5M", "X-MOZ-X:1",
                "END:VALARM",
            ])
        #expect(kept.lines["20261214T090000Z"] == ["X-MOZ-LASTACK:20261214T085500Z"])
    }

    @Test("Kept lines go back at the end of their VEVENT, folded; a body without kept lines is unchanged")
    func applied() {
        let kept = DAVKeptProperties(from: Data(Self.put.utf8))
        let served = Data(
            ("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:abc\r\nSUMMARY:x\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:abc\r\n"
                + "RECURRENCE-ID:20261214T090000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n").utf8)
        let text = String(decoding: kept.applied(to: served), as: UTF8.self)
        #expect(text.contains("SUMMARY:x\r\nX-MOZ-LASTACK:20261207T085500Z\r\n"))
        #expect(text.contains("RECURRENCE-ID:20261214T090000Z\r\nX-MOZ-LASTACK:20261214T085500Z\r\nEND:VEVENT"))
        #expect(text.components(separatedBy: "BEGIN:VALARM").count == 2)
        #expect(DAVKeptProperties().applied(to: served) == served)
        let long = UnfoldedLines.folded("X-A:" + String(repeating: "é", count: 60))
        #expect(long.split(separator: "\r\n").allSatisfy { $0.utf8.count <= 75 })
    }

    @Test("Unfolding joins continuation lines, with CRLF or LF line ends")
    func unfolding() {
        let lines = UnfoldedLines.strings(in: Data("A:1\r\n 2\nB;X=\"a:b\":3\n".utf8))
        #expect(lines == ["A:12", "B;X=\"a:b\":3"])
        #expect(DAVKeptProperties.value(of: lines[1]) == "3")
    }
}

/// Paths, sync tokens, names and time ranges of the gateway.
@Suite struct DAVGatewayPartsTests {
    @Test("Paths under /dav/ name the root, a home, a calendar and an object; anything else nothing")
    func targets() {
        #expect(DAVGateway.target(of: "/dav/") == .root)
        #expect(DAVGateway.target(of: "/dav") == .root)
        #expect(DAVGateway.target(of: "/dav/ada/") == .home(user: "ada"))
        #expect(DAVGateway.target(of: "/dav/ada/0123/") == .calendar(user: "ada", key: "0123"))
        #expect(DAVGateway.target(of: "/dav/ada/0123/a%20b.ics") == .object(user: "ada", key: "0123", name: "a b.ics"))
        #expect(DAVGateway.target(of: "/dav/ada/../x") == nil)
        #expect(DAVGateway.target(of: "/dav/ada/k/a%2Fb.ics") == nil)
        #expect(DAVGateway.target(of: "/dav/a/b/c/d") == nil)
        #expect(DAVGateway.target(of: "/feeds") == nil)
        #expect(DAVGateway.encode("a b/é@x~1.ics") == "a%20b%2F%C3%A9@x~1.ics")
        #expect(DAVGateway.decode(DAVGateway.encode("ünï code%.ics")) == "ünï code%.ics")
        #expect(DAVGateway.decode("a%2") == nil && DAVGateway.decode("%FF") == nil && DAVGateway.decode("a%41") == "aA")
    }

    @Test("A sync token is a URI that reads back; anything else is no token")
    func tokens() {
        let token = DAVSyncToken(generation: "0f1e", sequence: 42)
        #expect(token.description.contains(":") && token.description.contains("/"))
        #expect(DAVSyncToken(token.description) == token)
        #expect(DAVSyncToken("http://graph-ics.invalid/sync/0f1e/x") == nil)
        #expect(DAVSyncToken("42") == nil)
    }

    @Test("An Outlook UID of safe characters names its resource; another UID its hash")
    func names() {
        #expect(DAVCalendar.name(forUID: "abc-1@example.com") == "abc-1@example.com.ics")
        let hashed = DAVCalendar.name(forUID: "040000008200E00074C5B7101A82E008/x y")
        #expect(hashed.count == 36 && hashed.hasSuffix(".ics") && !hashed.contains("/"))
        #expect(DAVCalendar.name(forUID: "..") != "...ics")
    }

    @Test("A span overlaps a range as RFC 4791 §9.9 says: end exclusive, an instant at the start included")
    func spans() {
        let span = DAVSpan(start: 100, end: 200)
        #expect(span.overlaps(start: 150, end: 300))
        #expect(!span.overlaps(start: 200, end: 300))
        #expect(!span.overlaps(start: 0, end: 100))
        #expect(span.overlaps(start: nil, end: 101))
        #expect(DAVSpan(start: 100, end: 100).overlaps(start: 100, end: 101))
        let allDay = DAVSpan.of(
            Data(
                #"{"isAllDay":true,"start":{"dateTime":"2026-12-07T00:00:00.0000000","timeZone":"UTC"},"end":{"dateTime":"2026-12-08T00:00:00.0000000","timeZone":"UTC"}}"#
                    .utf8))
        #expect(allDay == DAVSpan(start: 1_796_601_600, end: 1_796_688_000))
    }

    @Test("The user's PARTSTAT on the master is read as an answer; an override's is not")
    func answers() {
        let body = Data(
            ("BEGIN:VEVENT\r\nATTENDEE;CN=Ada;PARTSTAT=DECLINED:mailto:Ada@Contoso.example\r\nEND:VEVENT\r\n"
                + "BEGIN:VEVENT\r\nRECURRENCE-ID:20261207T090000Z\r\nATTENDEE;PARTSTAT=ACCEPTED:mailto:ada@contoso.example\r\n"
                + "END:VEVENT\r\n").utf8)
        #expect(DAVCalendar.answer(of: "ada@contoso.example", in: body) == .decline)
        #expect(DAVCalendar.answer(of: "bob@contoso.example", in: body) == nil)
    }
}

/// The gateway's log of failures that repeat.
@Suite struct DAVGatewayLogTests {
    @Test("The same failure (whatever Graph's request id) is logged once an hour; another at once")
    func onceAnHour() throws {
        let lines = Locked<[String]>([])
        let gateway = DAVGateway(
            authenticator: DAVAuthenticator(store: DAVLoginStore(path: "/nonexistent/dav.json")),
            accounts: DAVAccounts(stateDirectory: "/nonexistent", log: { _ in }) { _ in
                DAVAccounts.Session(client: nil, mailbox: nil, problem: "none")
            }, log: { line in lines.mutate { $0.append(line) } })
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        gateway.logOnceAnHour("failed: HTTP 401 [request-id a]", now: start)
        gateway.logOnceAnHour("failed: HTTP 401 [request-id b]", now: start.addingTimeInterval(600))
        gateway.logOnceAnHour("failed: HTTP 503", now: start.addingTimeInterval(700))
        gateway.logOnceAnHour("failed: HTTP 401 [request-id c]", now: start.addingTimeInterval(3601))
        #expect(
            lines.value == ["failed: HTTP 401 [request-id a]", "failed: HTTP 503", "failed: HTTP 401 [request-id c]"])
    }
}
