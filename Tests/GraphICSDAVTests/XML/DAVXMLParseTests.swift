import Foundation
import FoundationXML
import Testing

@testable import GraphICSDAV

@Suite struct DAVXMLParseTests {
    private func parse(_ text: String) throws(DAVXMLError) -> DAVElement {
        try DAVXML.parse(Data(text.utf8))
    }

    private func refusal(_ text: String) -> DAVXMLError? {
        refusal(Data(text.utf8))
    }

    private func refusal(_ data: Data) -> DAVXMLError? {
        do {
            _ = try DAVXML.parse(data)
            return nil
        } catch {
            return error
        }
    }

    @Test("billion laughs is refused before parsing, as a declaration")
    func billionLaughs() {
        var text = #"<?xml version="1.0"?>"# + "\n<!DOCTYPE lolz [\n <!ENTITY lol \"lol\">\n"
        for level in 1...9 {
            let previous = level == 1 ? "lol" : "lol\(level - 1)"
            text += " <!ENTITY lol\(level) \"" + String(repeating: "&\(previous);", count: 10) + "\">\n"
        }
        text += "]>\n<D:propfind xmlns:D=\"DAV:\"><D:prop><D:displayname>&lol9;</D:displayname></D:prop></D:propfind>"
        let error = refusal(text)
        #expect(error?.code == .declaration)
        #expect(error?.message == "the request body holds a DOCTYPE or ENTITY declaration, which is refused")
    }

    @Test("an external entity to /etc/passwd is refused and the file's content appears nowhere")
    func externalEntity() throws {
        let text = """
            <?xml version="1.0" encoding="utf-8"?>
            <!DOCTYPE propfind [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
            <D:propfind xmlns:D="DAV:"><D:prop><D:displayname>&xxe;</D:displayname></D:prop></D:propfind>
            """
        let error = try #require(refusal(text))
        #expect(error.code == .declaration)
        let passwd = try String(contentsOfFile: "/etc/passwd", encoding: .utf8)
        let firstLine = try #require(passwd.split(separator: "\n").first)
        #expect(!error.message.contains(firstLine))
        #expect(!error.description.contains("root:"))
        #expect(!String(describing: error).contains("root:"))
    }

    @Test(
        "declarations are found in any case and anywhere in the body",
        arguments: [
            "<!doctype x>\n<x/>",
            "<x/><!DocType x>",
            "<x>\n<!eNtItY y \"z\"></x>",
            "<x><![CDATA[ <!ENTITY inside a CDATA section is refused too ]]></x>",
        ])
    func declarationsInAnyCase(_ text: String) {
        #expect(refusal(text)?.code == .declaration)
    }

    @Test("a body in UTF-16 (where the byte scan cannot see a DOCTYPE) is refused")
    func utf16Refused() throws {
        let text = "<?xml version=\"1.0\" encoding=\"UTF-16\"?><!DOCTYPE x [<!ENTITY a \"b\">]><x>&a;</x>"
        let data = try #require(text.data(using: .utf16))
        #expect(refusal(data)?.code == .declaration)
    }

    @Test("a declared encoding other than UTF-8, ASCII or Latin-1 is refused (UTF-7 can spell <!DOCTYPE unseen)")
    func utf7Refused() {
        let text = "<?xml version=\"1.0\" encoding=\"UTF-7\"?>+ADw-!DOCTYPE x+AD4-<x/>"
        let error = refusal(text)
        #expect(error?.code == .declaration)
        #expect(error?.message.contains("UTF-7") == true)
        #expect(throws: Never.self) {
            try parse("<?xml version='1.0' encoding='UTF-8'?><x/>")
        }
    }

    @Test("a UTF-8 byte order mark and a Latin-1 body (declared as such) are read")
    func byteOrderMarkAndLatin1() throws {
        let bom = Data([0xEF, 0xBB, 0xBF]) + Data("<D:displayname xmlns:D='DAV:'>Caf\u{E9}</D:displayname>".utf8)
        #expect(try DAVXML.parse(bom) == DAVElement(.dav("displayname"), text: "Caf\u{E9}"))
        let latin1 = Data("<?xml version='1.0' encoding='ISO-8859-1'?><x>Caf".utf8) + Data([0xE9]) + Data("</x>".utf8)
        #expect(try DAVXML.parse(latin1).text == "Caf\u{E9}")
    }

    @Test(
        "should a DTD reach the parser, the tree builder stops at its first declaration",
        arguments: [
            "<!DOCTYPE x [<!ELEMENT x ANY><!ENTITY secret \"expanded\">]><x>&secret;</x>",
            "<!DOCTYPE x [<!ATTLIST x a CDATA \"v\">]><x/>",
        ])
    func builderRefusesDeclarations(_ text: String) {
        let builder = DAVTreeBuilder()
        let parser = XMLParser(data: Data(text.utf8))
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        parser.delegate = builder
        _ = parser.parse()
        #expect(builder.refusal?.code == .declaration)
        #expect(builder.root == nil)
    }

    // Why the byte scan comes first: FoundationXML on Linux crashes the process (a NULL read in its SAX glue) on a
    // DTD holding a NOTATION or an unparsed (NDATA) entity declaration, whatever the delegate does, so such bodies
    // must never reach XMLParser. They are refused like any other DTD.
    @Test(
        "DTDs that would crash FoundationXML are refused by the scan",
        arguments: [
            "<!DOCTYPE x [<!NOTATION n SYSTEM \"urn:n\">]><x/>",
            "<!DOCTYPE x [<!ENTITY u SYSTEM \"file:///etc/passwd\" NDATA n>]><x/>",
        ])
    func crashingDTDsRefused(_ text: String) {
        #expect(refusal(text)?.code == .declaration)
    }

    private func nested(_ depth: Int) -> String {
        String(repeating: "<a xmlns=\"urn:x\">", count: depth) + String(repeating: "</a>", count: depth)
    }

    @Test("nesting of 64 elements is read, 65 is refused as too deep")
    func depthLimit() throws {
        var element = try parse(nested(64))
        var depth = 1
        while let child = element.children.first {
            element = child
            depth += 1
        }
        #expect(depth == 64)
        let error = refusal(nested(65))
        #expect(error?.code == .tooDeep)
        #expect(error?.message.contains("64") == true)
    }

    @Test("a deep body is refused without reading the rest (no stack growth with depth)")
    func veryDeepBody() {
        #expect(refusal(nested(100_000))?.code == .tooDeep)
    }

    @Test("malformed XML is refused with the line the parser stopped at")
    func malformedNamesLine() {
        let text = """
            <?xml version="1.0" encoding="utf-8"?>
            <D:propfind xmlns:D="DAV:">
              <D:prop>
                <D:getetag>
              </D:prop>
            </D:propfind>
            """
        let error = refusal(text)
        #expect(error?.code == .malformed)
        #expect(error?.message == "the request body is not well-formed XML (line 5)")
    }

    @Test("text before the first element is malformed at its line")
    func textBeforeRoot() {
        #expect(refusal("\n\n  hello <x/>")?.message == "the request body is not well-formed XML (line 3)")
    }

    @Test(
        "bodies that are not XML at all are malformed",
        arguments: ["", "hello", "<D:prop xmlns:D=\"DAV:\">", "<a></b>", "<a/><b/>", "<X:unbound/>"])
    func notXML(_ text: String) {
        #expect(refusal(text)?.code == .malformed)
    }

    @Test("CDATA is kept as text, with markup characters literal")
    func cdata() throws {
        let root = try parse(
            "<C:calendar-data xmlns:C=\"urn:ietf:params:xml:ns:caldav\">A<![CDATA[BEGIN:VCALENDAR\n<x> & ]]>B</C:calendar-data>"
        )
        #expect(root.text == "ABEGIN:VCALENDAR\n<x> & B")
    }

    @Test("predefined and character entities are read; text is not trimmed")
    func entitiesAndWhitespace() throws {
        let root = try parse("<x> a &amp; b &lt;c&gt; &#13;&#x41; &quot;&apos; </x>")
        #expect(root.text == " a & b <c> \rA \"' ")
        #expect(root.name == DAVName("", "x"))
    }

    @Test("names are matched by namespace, whatever the prefix; a default xmlns applies; no namespace is \"\"")
    func namespaces() throws {
        let root = try parse(
            """
            <propfind xmlns="DAV:" xmlns:cal="urn:ietf:params:xml:ns:caldav">
              <prop>
                <cal:calendar-home-set/>
                <I:calendar-color xmlns:I="http://apple.com/ns/ical/"/>
                <plain xmlns=""/>
                <Z:getctag xmlns:Z="http://calendarserver.org/ns/"/>
              </prop>
            </propfind>
            """)
        #expect(root.name == .dav("propfind"))
        let prop = try #require(root.first(.dav("prop")))
        #expect(
            prop.children.map(\.name) == [
                .caldav("calendar-home-set"), .appleICal("calendar-color"), DAVName("", "plain"),
                .calendarServer("getctag"),
            ])
        #expect(prop.first(.caldav("calendar-home-set")) != nil)
        #expect(prop.first(.dav("calendar-home-set")) == nil)
    }

    @Test("attributes are keyed by local name, prefixed or not")
    func attributes() throws {
        let root = try parse(
            """
            <C:text-match xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:x="urn:x" collation="i;octet" \
            x:negate-condition="yes">abc</C:text-match>
            """)
        #expect(root.attributes == ["collation": "i;octet", "negate-condition": "yes"])
    }

    @Test("first and all look at direct children only, in document order")
    func firstAndAll() throws {
        let root = try parse(
            "<D:a xmlns:D=\"DAV:\"><D:href>1</D:href><D:b><D:href>inner</D:href></D:b><D:href>2</D:href></D:a>")
        #expect(root.all(.dav("href")).map(\.text) == ["1", "2"])
        #expect(root.first(.dav("href"))?.text == "1")
        #expect(root.first(.dav("missing")) == nil)
    }

    private static func refusalMessage(_ data: Data) -> String? {
        do {
            _ = try DAVXML.parse(data)
            return nil
        } catch {
            return error.message
        }
    }

    @Test("parses on many threads at once give each caller its own tree (the gateway parses per connection)")
    func concurrentParses() async {
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var mismatches = 0
                    for index in 0..<300 {
                        let href = "/dav/u/c/\(worker)-\(index).ics"
                        let body = Data(
                            ("<C:calendar-multiget xmlns:D='DAV:' xmlns:C='urn:ietf:params:xml:ns:caldav'>"
                                + "<D:prop><D:getetag/></D:prop><D:href>\(href)</D:href></C:calendar-multiget>").utf8)
                        let bad = Data("<a>\n<b></a>".utf8)
                        if (try? DAVRequestBody.report(body))
                            != .multiget(properties: .properties([.dav("getetag")]), hrefs: [href])
                        {
                            mismatches += 1
                        }
                        if Self.refusalMessage(bad) != "the request body is not well-formed XML (line 2)" {
                            mismatches += 1
                        }
                    }
                    return mismatches
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }
}
