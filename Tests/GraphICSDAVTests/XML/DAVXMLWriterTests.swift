import Foundation
import Testing

@testable import GraphICSDAV

@Suite struct DAVXMLWriterTests {
    private let header =
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
    private let namespaces =
        " xmlns:D=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\""
        + " xmlns:CS=\"http://calendarserver.org/ns/\" xmlns:ICAL=\"http://apple.com/ns/ical/\""

    private func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    @Test("the root declares the four namespaces once; children use the D, C, CS and ICAL prefixes")
    func knownNamespaces() {
        let root = DAVElement(
            .dav("prop"),
            children: [
                DAVElement(.dav("displayname"), text: "Work"),
                DAVElement(.caldav("calendar-description")),
                DAVElement(.calendarServer("getctag"), text: "1"),
                DAVElement(.appleICal("calendar-color"), text: "#FF0000FF"),
            ])
        #expect(
            text(DAVXML.serialize(root))
                == header + "<D:prop" + namespaces + "><D:displayname>Work</D:displayname><C:calendar-description/>"
                + "<CS:getctag>1</CS:getctag><ICAL:calendar-color>#FF0000FF</ICAL:calendar-color></D:prop>")
    }

    @Test("an empty root is written as an empty element")
    func emptyRoot() {
        #expect(text(DAVXML.serialize(DAVElement(.dav("prop")))) == header + "<D:prop" + namespaces + "/>")
    }

    @Test("&, <, > are escaped in text; quotes, tab, LF, CR also in attributes; CR in text keeps CRLF")
    func escaping() {
        let root = DAVElement(
            .dav("x"),
            children: [
                DAVElement(
                    DAVName("", "t"), text: "a & b < c > \"d\" 'e' ]]>\r\n",
                    attributes: ["q": "1 & 2 < 3 > \"4\" '5'\t\n\r"])
            ])
        #expect(
            text(DAVXML.serialize(root))
                == header + "<D:x" + namespaces
                + "><t q=\"1 &amp; 2 &lt; 3 &gt; &quot;4&quot; &apos;5&apos;&#9;&#10;&#13;\">"
                + "a &amp; b &lt; c &gt; \"d\" 'e' ]]&gt;&#13;\n</t></D:x>")
    }

    @Test("characters XML cannot hold (C0 controls, U+FFFE, U+FFFF) become U+FFFD and the output still parses")
    func unrepresentableCharacters() throws {
        let root = DAVElement(.dav("x"), text: "a\u{01}b\u{1F}c\u{FFFE}d\u{FFFF}e\u{FFFD}f\té\u{FF21}\u{FFFC}")
        let data = DAVXML.serialize(root)
        #expect(try DAVXML.parse(data).text == "a\u{FFFD}b\u{FFFD}c\u{FFFD}d\u{FFFD}e\u{FFFD}f\té\u{FF21}\u{FFFC}")
    }

    @Test("another namespace is declared on the first element using it and reused below it, not beside it")
    func unknownNamespaces() {
        let root = DAVElement(
            .dav("prop"),
            children: [
                DAVElement(
                    DAVName("urn:a", "one"), children: [DAVElement(DAVName("urn:a", "two"), text: "2")]),
                DAVElement(DAVName("urn:a", "three")),
                DAVElement(DAVName("urn:b&\"", "four")),
            ])
        #expect(
            text(DAVXML.serialize(root))
                == header + "<D:prop" + namespaces
                + "><x1:one xmlns:x1=\"urn:a\"><x1:two>2</x1:two></x1:one><x2:three xmlns:x2=\"urn:a\"/>"
                + "<x3:four xmlns:x3=\"urn:b&amp;&quot;\"/></D:prop>")
    }

    @Test("serialize then parse gives the same tree: namespaces, no namespace, attributes, text with CRLF")
    func roundTrip() throws {
        let calendarData = "BEGIN:VCALENDAR\r\nSUMMARY:Q&A <draft> \"x\"\r\nEND:VCALENDAR\r\n"
        let root = DAVElement(
            .dav("multistatus"),
            children: [
                DAVElement(
                    .dav("response"),
                    children: [
                        DAVElement(.dav("href"), text: "/dav/alice/c/a%20b&c.ics"),
                        DAVElement(.caldav("calendar-data"), text: calendarData),
                        DAVElement(
                            .appleICal("calendar-color"), text: "#112233FF", attributes: ["symbolic-color": "custom"]),
                        DAVElement(
                            DAVName("http://example.invalid/x", "thing"),
                            children: [
                                DAVElement(DAVName("http://example.invalid/x", "inner"), text: "é ü 😀"),
                                DAVElement(DAVName("", "plain"), attributes: ["a": "'\"<&>\t"]),
                            ]),
                    ])
            ])
        #expect(try DAVXML.parse(DAVXML.serialize(root)) == root)
    }

    @Test("status lines carry the reason phrase")
    func statusLines() {
        #expect(DAVStatus.line(200) == "HTTP/1.1 200 OK")
        #expect(DAVStatus.line(404) == "HTTP/1.1 404 Not Found")
        #expect(DAVStatus.line(403) == "HTTP/1.1 403 Forbidden")
        #expect(DAVStatus.line(412) == "HTTP/1.1 412 Precondition Failed")
        #expect(DAVStatus.line(424) == "HTTP/1.1 424 Failed Dependency")
        #expect(DAVStatus.line(507) == "HTTP/1.1 507 Insufficient Storage")
        #expect(DAVStatus.line(599) == "HTTP/1.1 599 ")
    }

    @Test("a multistatus follows RFC 4918 §14.16: href, propstats (prop, status) or a status, error, description")
    func multistatusLayout() {
        let multistatus = DAVMultistatus(
            responses: [
                DAVResponse(
                    href: "/dav/alice/c/1.ics",
                    propstats: [
                        DAVPropstat(status: 200, properties: [DAVElement(.dav("getetag"), text: "\"e1\"")]),
                        DAVPropstat(status: 404, properties: [DAVElement(.calendarServer("getctag"))]),
                    ]),
                DAVResponse(href: "/dav/alice/c/gone.ics", status: 404),
                DAVResponse(
                    href: "/dav/alice/c/bad.ics", propstats: [DAVPropstat(status: 500, properties: [])],
                    error: DAVElement(.dav("error"), children: [DAVElement(.caldav("valid-calendar-data"))]),
                    description: "the event could not be rendered"),
            ],
            syncToken: "http://graph-ics/ns/sync/7")
        #expect(
            text(multistatus.serialized())
                == header + "<D:multistatus" + namespaces + ">"
                + "<D:response><D:href>/dav/alice/c/1.ics</D:href>"
                + "<D:propstat><D:prop><D:getetag>\"e1\"</D:getetag></D:prop><D:status>HTTP/1.1 200 OK</D:status>"
                + "</D:propstat>"
                + "<D:propstat><D:prop><CS:getctag/></D:prop><D:status>HTTP/1.1 404 Not Found</D:status></D:propstat>"
                + "</D:response>"
                + "<D:response><D:href>/dav/alice/c/gone.ics</D:href><D:status>HTTP/1.1 404 Not Found</D:status>"
                + "</D:response>"
                + "<D:response><D:href>/dav/alice/c/bad.ics</D:href>"
                + "<D:propstat><D:prop/><D:status>HTTP/1.1 500 Internal Server Error</D:status></D:propstat>"
                + "<D:error><C:valid-calendar-data/></D:error>"
                + "<D:responsedescription>the event could not be rendered</D:responsedescription></D:response>"
                + "<D:sync-token>http://graph-ics/ns/sync/7</D:sync-token></D:multistatus>")
    }

    @Test("a multistatus without responses or token is an empty multistatus element with content")
    func emptyMultistatus() throws {
        let root = try DAVXML.parse(DAVMultistatus(responses: []).serialized())
        #expect(root == DAVElement(.dav("multistatus")))
    }

    @Test("hrefs and property text are escaped inside a multistatus")
    func multistatusEscaping() throws {
        let multistatus = DAVMultistatus(
            responses: [
                DAVResponse(
                    href: "/dav/a&b/<c>.ics",
                    propstats: [DAVPropstat(status: 200, properties: [DAVElement(.dav("displayname"), text: "R&D")])])
            ],
            syncToken: "data:,a&b")
        let root = try DAVXML.parse(multistatus.serialized())
        let response = try #require(root.first(.dav("response")))
        #expect(response.first(.dav("href"))?.text == "/dav/a&b/<c>.ics")
        #expect(
            response.first(.dav("propstat"))?.first(.dav("prop"))?.first(.dav("displayname"))?.text == "R&D")
        #expect(root.first(.dav("sync-token"))?.text == "data:,a&b")
    }

    @Test("a 10,000-response multistatus parses back whole, in order, with the sync token last")
    func largeMultistatus() throws {
        let multistatus = Self.largeMultistatus(count: 10_000)
        let root = try DAVXML.parse(multistatus.serialized())
        let responses = root.all(.dav("response"))
        #expect(responses.count == 10_000)
        #expect(responses.first?.first(.dav("href"))?.text == "/dav/alice/0123456789abcdef/event-0.ics")
        #expect(responses.last?.first(.dav("href"))?.text == "/dav/alice/0123456789abcdef/event-9999.ics")
        #expect(
            responses[1234].first(.dav("propstat"))?.first(.dav("prop"))?.first(.caldav("calendar-data"))?.text
                == Self.calendarData(1234))
        #expect(root.children.last?.name == .dav("sync-token"))
    }

    static func calendarData(_ index: Int) -> String {
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//graph-ics//EN\r\nBEGIN:VEVENT\r\nUID:event-\(index)@example.com\r\n"
            + "DTSTAMP:20260101T000000Z\r\nDTSTART:20260101T090000Z\r\nDTEND:20260101T100000Z\r\n"
            + "SUMMARY:Meeting \(index) & review <draft>\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    }

    static func largeMultistatus(count: Int) -> DAVMultistatus {
        DAVMultistatus(
            responses: (0..<count).map { index in
                DAVResponse(
                    href: "/dav/alice/0123456789abcdef/event-\(index).ics",
                    propstats: [
                        DAVPropstat(
                            status: 200,
                            properties: [
                                DAVElement(.dav("getetag"), text: "\"\(index)-0123456789abcdef\""),
                                DAVElement(
                                    .dav("getcontenttype"), text: "text/calendar; charset=utf-8; component=vevent"),
                                DAVElement(.caldav("calendar-data"), text: calendarData(index)),
                            ])
                    ])
            },
            syncToken: "http://graph-ics/ns/sync/1")
    }

    @Test("an error body holds the condition and, with a description, a responsedescription")
    func errorBody() {
        #expect(
            text(DAVErrorBody.document(.dav("valid-sync-token"), description: nil))
                == header + "<D:error" + namespaces + "><D:valid-sync-token/></D:error>")
        #expect(
            text(DAVErrorBody.document(.caldav("valid-calendar-object-resource"), description: "RRULE & <BYSETPOS>"))
                == header + "<D:error" + namespaces + "><C:valid-calendar-object-resource/>"
                + "<D:responsedescription>RRULE &amp; &lt;BYSETPOS&gt;</D:responsedescription></D:error>")
    }
}
