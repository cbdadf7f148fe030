import Foundation
import Testing

@testable import GraphICSDAV

/// Request bodies in the shapes each client sends (prefixes, default namespaces, white space as they write them).
@Suite struct DAVRequestBodyTests {
    private func data(_ text: String) -> Data { Data(text.utf8) }

    private func date(_ text: String) throws -> Date { try #require(DAVRequestBody.date(text)) }

    // MARK: - PROPFIND

    @Test("an empty PROPFIND body, or white space only, asks for allprop")
    func emptyPropfind() throws {
        #expect(try DAVRequestBody.propfind(Data()) == .all(include: []))
        #expect(try DAVRequestBody.propfind(data(" \r\n")) == .all(include: []))
    }

    @Test("Thunderbird's calendar listing PROPFIND (D/C/CS prefixes, Apple namespace for the colour)")
    func thunderbirdPropfind() throws {
        let body = """
            <?xml version="1.0" encoding="UTF-8"?>
            <D:propfind xmlns:D="DAV:" xmlns:CS="http://calendarserver.org/ns/" xmlns:C="urn:ietf:params:xml:ns:caldav">
              <D:prop>
                <D:resourcetype/>
                <D:owner/>
                <D:current-user-principal/>
                <D:current-user-privilege-set/>
                <D:supported-report-set/>
                <C:supported-calendar-component-set/>
                <CS:getctag/>
                <A:calendar-color xmlns:A="http://apple.com/ns/ical/"/>
              </D:prop>
            </D:propfind>
            """
        #expect(
            try DAVRequestBody.propfind(data(body))
                == .properties([
                    .dav("resourcetype"), .dav("owner"), .dav("current-user-principal"),
                    .dav("current-user-privilege-set"), .dav("supported-report-set"),
                    .caldav("supported-calendar-component-set"), .calendarServer("getctag"),
                    .appleICal("calendar-color"),
                ]))
    }

    @Test("Apple's PROPFIND (namespaces declared on each element, A/B prefixes)")
    func applePropfind() throws {
        let body = """
            <?xml version="1.0" encoding="UTF-8"?>
            <A:propfind xmlns:A="DAV:">
              <A:prop>
                <A:current-user-principal/>
                <B:calendar-home-set xmlns:B="urn:ietf:params:xml:ns:caldav"/>
                <B:calendar-user-address-set xmlns:B="urn:ietf:params:xml:ns:caldav"/>
                <C:calendar-order xmlns:C="http://apple.com/ns/ical/"/>
                <D:getctag xmlns:D="http://calendarserver.org/ns/"/>
                <E:unknown-thing xmlns:E="http://example.invalid/ns/"/>
              </A:prop>
            </A:propfind>
            """
        #expect(
            try DAVRequestBody.propfind(data(body))
                == .properties([
                    .dav("current-user-principal"), .caldav("calendar-home-set"),
                    .caldav("calendar-user-address-set"), .appleICal("calendar-order"), .calendarServer("getctag"),
                    DAVName("http://example.invalid/ns/", "unknown-thing"),
                ]))
    }

    @Test("DAVx5's PROPFIND (DAV: as the default namespace, no white space)")
    func davx5Propfind() throws {
        let body =
            "<?xml version='1.0' encoding='UTF-8' ?><propfind xmlns=\"DAV:\" xmlns:CAL=\"urn:ietf:params:xml:ns:caldav\">"
            + "<prop><current-user-principal /><CAL:calendar-home-set /></prop></propfind>"
        #expect(
            try DAVRequestBody.propfind(data(body))
                == .properties([.dav("current-user-principal"), .caldav("calendar-home-set")]))
    }

    @Test("allprop with include, and propname")
    func allpropAndPropname() throws {
        let allprop = """
            <D:propfind xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
              <D:allprop/>
              <D:include><C:supported-calendar-component-set/><D:sync-token/></D:include>
            </D:propfind>
            """
        #expect(
            try DAVRequestBody.propfind(data(allprop))
                == .all(include: [.caldav("supported-calendar-component-set"), .dav("sync-token")]))
        #expect(try DAVRequestBody.propfind(data("<propfind xmlns='DAV:'><propname/></propfind>")) == .names)
        #expect(try DAVRequestBody.propfind(data("<propfind xmlns='DAV:'><allprop/></propfind>")) == .all(include: []))
    }

    @Test(
        "a PROPFIND whose root is not DAV:propfind is unexpected",
        arguments: [
            "<D:propertyupdate xmlns:D=\"DAV:\"/>",
            "<propfind><prop/></propfind>",
            "<C:propfind xmlns:C=\"urn:ietf:params:xml:ns:caldav\"/>",
        ])
    func propfindWrongRoot(_ body: String) {
        #expect(throws: DAVXMLError.self) { try DAVRequestBody.propfind(data(body)) }
        do {
            _ = try DAVRequestBody.propfind(data(body))
        } catch {
            #expect(error.code == .unexpected)
        }
    }

    @Test("a PROPFIND body with a DOCTYPE is refused as a declaration, not read")
    func propfindDoctype() {
        do {
            _ = try DAVRequestBody.propfind(data("<!DOCTYPE x><propfind xmlns='DAV:'><propname/></propfind>"))
            Issue.record("the DOCTYPE was accepted")
        } catch {
            #expect(error.code == .declaration)
        }
    }

    // MARK: - REPORT: calendar-multiget

    @Test("vdirsyncer's multiget: hrefs as sent (percent-encoded, XML-escaped), white space around them dropped")
    func vdirsyncerMultiget() throws {
        let body = """
            <?xml version="1.0" encoding="utf-8" ?>
                <C:calendar-multiget xmlns:D="DAV:"
                    xmlns:C="urn:ietf:params:xml:ns:caldav">
                    <D:prop>
                        <D:getetag/>
                        <C:calendar-data/>
                    </D:prop>
                    <D:href>/dav/alice/0123456789abcdef/a%20b.ics</D:href>
                    <D:href>/dav/alice/0123456789abcdef/x&amp;y.ics</D:href>
                    <D:href>
                        /dav/alice/0123456789abcdef/%C3%A9t%C3%A9.ics
                    </D:href>
                </C:calendar-multiget>
            """
        #expect(
            try DAVRequestBody.report(data(body))
                == .multiget(
                    properties: .properties([.dav("getetag"), .caldav("calendar-data")]),
                    hrefs: [
                        "/dav/alice/0123456789abcdef/a%20b.ics", "/dav/alice/0123456789abcdef/x&y.ics",
                        "/dav/alice/0123456789abcdef/%C3%A9t%C3%A9.ics",
                    ]))
    }

    @Test("DAVx5's multiget (default DAV: namespace, CAL prefix, schedule-tag asked for)")
    func davx5Multiget() throws {
        let body =
            "<?xml version='1.0' encoding='UTF-8' ?><CAL:calendar-multiget xmlns=\"DAV:\" "
            + "xmlns:CAL=\"urn:ietf:params:xml:ns:caldav\"><prop><getcontenttype /><getetag /><CAL:schedule-tag />"
            + "<CAL:calendar-data /></prop><href>/dav/u/c/1.ics</href><href>/dav/u/c/2.ics</href>"
            + "</CAL:calendar-multiget>"
        #expect(
            try DAVRequestBody.report(data(body))
                == .multiget(
                    properties: .properties([
                        .dav("getcontenttype"), .dav("getetag"), .caldav("schedule-tag"), .caldav("calendar-data"),
                    ]),
                    hrefs: ["/dav/u/c/1.ics", "/dav/u/c/2.ics"]))
    }

    // MARK: - REPORT: calendar-query

    @Test("DAVx5's and Apple's calendar-query: VEVENT with an open-ended time range (start only)")
    func openEndedQuery() throws {
        let body = """
            <?xml version="1.0" encoding="UTF-8"?>
            <B:calendar-query xmlns:B="urn:ietf:params:xml:ns:caldav">
              <A:prop xmlns:A="DAV:"><A:getetag/><A:getcontenttype/></A:prop>
              <B:filter>
                <B:comp-filter name="VCALENDAR">
                  <B:comp-filter name="VEVENT">
                    <B:time-range start="20251006T000000Z"/>
                  </B:comp-filter>
                </B:comp-filter>
              </B:filter>
            </B:calendar-query>
            """
        let expected = DAVComponentFilter(
            name: "VCALENDAR",
            components: [
                DAVComponentFilter(
                    name: "VEVENT", timeRange: DAVTimeRange(start: try date("20251006T000000Z"), end: nil))
            ])
        #expect(
            try DAVRequestBody.report(data(body))
                == .query(properties: .properties([.dav("getetag"), .dav("getcontenttype")]), filter: expected))
    }

    @Test("Evolution's and python-caldav's filters: prop-filter, text-match, param-filter, is-not-defined")
    func richFilter() throws {
        let body = """
            <?xml version="1.0" encoding="utf-8"?>
            <C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
              <D:prop><D:getetag/><C:calendar-data/></D:prop>
              <C:filter>
                <C:comp-filter name="VCALENDAR">
                  <C:comp-filter name="VEVENT">
                    <C:time-range start="20060104T000000Z" end="20060105T000000Z"/>
                    <C:prop-filter name="UID">
                      <C:text-match collation="i;octet">abc-123@example.com</C:text-match>
                    </C:prop-filter>
                    <C:prop-filter name="SUMMARY">
                      <C:text-match negate-condition="yes">Lunch &amp; learn</C:text-match>
                    </C:prop-filter>
                    <C:prop-filter name="ATTENDEE">
                      <C:text-match>mailto:bob@example.com</C:text-match>
                      <C:param-filter name="PARTSTAT">
                        <C:text-match>NEEDS-ACTION</C:text-match>
                      </C:param-filter>
                      <C:param-filter name="X-NONE"><C:is-not-defined/></C:param-filter>
                    </C:prop-filter>
                    <C:prop-filter name="DTSTART">
                      <C:time-range end="20060106T120000Z"/>
                    </C:prop-filter>
                    <C:prop-filter name="CLASS"><C:is-not-defined/></C:prop-filter>
                    <C:comp-filter name="VALARM"><C:is-not-defined/></C:comp-filter>
                  </C:comp-filter>
                </C:comp-filter>
              </C:filter>
            </C:calendar-query>
            """
        let event = DAVComponentFilter(
            name: "VEVENT",
            timeRange: DAVTimeRange(start: try date("20060104T000000Z"), end: try date("20060105T000000Z")),
            components: [DAVComponentFilter(name: "VALARM", isNotDefined: true)],
            properties: [
                DAVPropertyFilter(
                    name: "UID", textMatch: DAVTextMatch(text: "abc-123@example.com", collation: "i;octet")),
                DAVPropertyFilter(name: "SUMMARY", textMatch: DAVTextMatch(text: "Lunch & learn", negate: true)),
                DAVPropertyFilter(
                    name: "ATTENDEE", textMatch: DAVTextMatch(text: "mailto:bob@example.com"),
                    parameters: [
                        DAVParameterFilter(name: "PARTSTAT", textMatch: DAVTextMatch(text: "NEEDS-ACTION")),
                        DAVParameterFilter(name: "X-NONE", isNotDefined: true),
                    ]),
                DAVPropertyFilter(
                    name: "DTSTART", timeRange: DAVTimeRange(start: nil, end: try date("20060106T120000Z"))),
                DAVPropertyFilter(name: "CLASS", isNotDefined: true),
            ])
        let report = try DAVRequestBody.report(data(body))
        #expect(
            report
                == .query(
                    properties: .properties([.dav("getetag"), .caldav("calendar-data")]),
                    filter: DAVComponentFilter(name: "VCALENDAR", components: [event])))
    }

    @Test("a calendar-query without a filter or prop is read with no filter and allprop")
    func bareQuery() throws {
        #expect(
            try DAVRequestBody.report(data("<C:calendar-query xmlns:C='urn:ietf:params:xml:ns:caldav'/>"))
                == .query(properties: .all(include: []), filter: nil))
    }

    @Test(
        "a time-range that is not CalDAV's UTC form, or has neither end, is unexpected",
        arguments: [
            "<C:time-range start=\"2006-01-04T00:00:00Z\"/>",
            "<C:time-range start=\"20060104T000000\"/>",
            "<C:time-range end=\"20060230T000000Z\"/>",
            "<C:time-range/>",
        ])
    func badTimeRange(_ range: String) {
        let body = """
            <C:calendar-query xmlns:C="urn:ietf:params:xml:ns:caldav"><C:filter><C:comp-filter name="VCALENDAR">
            <C:comp-filter name="VEVENT">\(range)</C:comp-filter></C:comp-filter></C:filter></C:calendar-query>
            """
        do {
            _ = try DAVRequestBody.report(data(body))
            Issue.record("accepted \(range)")
        } catch {
            #expect(error.code == .unexpected)
        }
    }

    @Test("a comp-filter without a name is unexpected")
    func namelessCompFilter() {
        let body = """
            <C:calendar-query xmlns:C="urn:ietf:params:xml:ns:caldav"><C:filter><C:comp-filter/></C:filter>
            </C:calendar-query>
            """
        do {
            _ = try DAVRequestBody.report(data(body))
            Issue.record("accepted a comp-filter without a name")
        } catch {
            #expect(error.code == .unexpected)
            #expect(error.message == "the comp-filter element has no name attribute")
        }
    }

    @Test("python-caldav's expanded search: the calendar-data expand range is read beside the report")
    func expandedQuery() throws {
        let body = """
            <?xml version='1.0' encoding='utf-8'?>
            <C:calendar-query xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:D="DAV:">
              <D:prop>
                <C:calendar-data><C:expand start="20060103T000000Z" end="20060105T000000Z"/></C:calendar-data>
              </D:prop>
              <C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT">
                <C:time-range start="20060103T000000Z" end="20060105T000000Z"/>
              </C:comp-filter></C:comp-filter></C:filter>
            </C:calendar-query>
            """
        let root = try DAVXML.parse(data(body))
        guard case .query(let properties, let filter) = try DAVRequestBody.report(root) else {
            Issue.record("not read as a calendar-query")
            return
        }
        #expect(properties == .properties([.caldav("calendar-data")]))
        #expect(filter?.components.first?.name == "VEVENT")
        #expect(
            try DAVRequestBody.expansion(in: root)
                == DAVTimeRange(start: try date("20060103T000000Z"), end: try date("20060105T000000Z")))
        let plain = try DAVXML.parse(data("<C:calendar-query xmlns:C='urn:ietf:params:xml:ns:caldav'/>"))
        #expect(try DAVRequestBody.expansion(in: plain) == nil)
    }

    @Test("an expand without both ends is unexpected")
    func halfExpand() throws {
        let root = try DAVXML.parse(
            data(
                "<C:calendar-multiget xmlns:C='urn:ietf:params:xml:ns:caldav' xmlns:D='DAV:'><D:prop><C:calendar-data>"
                    + "<C:expand start='20060103T000000Z'/></C:calendar-data></D:prop></C:calendar-multiget>"))
        do {
            _ = try DAVRequestBody.expansion(in: root)
            Issue.record("accepted an expand with no end")
        } catch {
            #expect(error.code == .unexpected)
        }
    }

    // MARK: - REPORT: sync-collection

    @Test("Thunderbird's and Evolution's sync-collection (default DAV: namespace, token present)")
    func syncCollection() throws {
        let body = """
            <?xml version="1.0" encoding="UTF-8"?>
            <sync-collection xmlns="DAV:">
              <sync-token>http://graph-ics/ns/sync/42</sync-token>
              <sync-level>1</sync-level>
              <prop>
                <getcontenttype/>
                <getetag/>
              </prop>
            </sync-collection>
            """
        #expect(
            try DAVRequestBody.report(data(body))
                == .syncCollection(
                    token: "http://graph-ics/ns/sync/42", level: "1", limit: nil,
                    properties: .properties([.dav("getcontenttype"), .dav("getetag")])))
    }

    @Test("DAVx5's initial sync-collection: empty token, a limit of nresults")
    func initialSyncWithLimit() throws {
        let body =
            "<?xml version='1.0' encoding='UTF-8' ?><sync-collection xmlns=\"DAV:\"><sync-token /><sync-level>1"
            + "</sync-level><limit><nresults>100</nresults></limit><prop><getetag /></prop></sync-collection>"
        #expect(
            try DAVRequestBody.report(data(body))
                == .syncCollection(token: "", level: "1", limit: 100, properties: .properties([.dav("getetag")])))
    }

    @Test("a sync-collection limit that is not a positive number is unexpected", arguments: ["ten", "0", "-5", ""])
    func badLimit(_ limit: String) {
        let body =
            "<sync-collection xmlns='DAV:'><sync-token/><limit><nresults>\(limit)</nresults></limit></sync-collection>"
        do {
            _ = try DAVRequestBody.report(data(body))
            Issue.record("accepted limit \(limit)")
        } catch {
            #expect(error.code == .unexpected)
        }
    }

    // MARK: - REPORT: others

    @Test(
        "other reports are unsupported, named by their root",
        arguments: [
            ("<C:free-busy-query xmlns:C='urn:ietf:params:xml:ns:caldav'/>", DAVName.caldav("free-busy-query")),
            ("<D:expand-property xmlns:D='DAV:'/>", DAVName.dav("expand-property")),
            ("<D:principal-property-search xmlns:D='DAV:'/>", DAVName.dav("principal-property-search")),
            ("<x:report xmlns:x='urn:example'/>", DAVName("urn:example", "report")),
        ])
    func unsupportedReports(_ body: String, _ name: DAVName) throws {
        #expect(try DAVRequestBody.report(data(body)) == .unsupported(name))
    }

    @Test(
        "a REPORT with a PROPFIND or PROPPATCH root, or no body, is unexpected",
        arguments: [
            "<D:propfind xmlns:D='DAV:'/>", "<D:propertyupdate xmlns:D='DAV:'/>", "",
        ])
    func reportWrongRoot(_ body: String) {
        do {
            _ = try DAVRequestBody.report(data(body))
            Issue.record("accepted \(body)")
        } catch {
            #expect(error.code == .unexpected)
        }
    }

    // MARK: - PROPPATCH

    @Test("Apple's PROPPATCH of colour and order: set properties with their content and attributes, then removals")
    func applePropertyUpdate() throws {
        let body = """
            <?xml version="1.0" encoding="UTF-8"?>
            <A:propertyupdate xmlns:A="DAV:">
              <A:set>
                <A:prop>
                  <B:calendar-color xmlns:B="http://apple.com/ns/ical/" symbolic-color="custom">#FF2968FF</B:calendar-color>
                </A:prop>
              </A:set>
              <A:remove><A:prop><A:displayname/></A:prop></A:remove>
              <A:set>
                <A:prop>
                  <B:calendar-order xmlns:B="http://apple.com/ns/ical/">3</B:calendar-order>
                  <C:calendar-description xmlns:C="urn:ietf:params:xml:ns:caldav">Work &lt;main&gt;</C:calendar-description>
                </A:prop>
              </A:set>
              <A:remove><A:prop><B:calendar-color xmlns:B="http://apple.com/ns/ical/"/></A:prop></A:remove>
            </A:propertyupdate>
            """
        let update = try DAVRequestBody.propertyUpdate(data(body))
        #expect(
            update.set == [
                DAVElement(.appleICal("calendar-color"), text: "#FF2968FF", attributes: ["symbolic-color": "custom"]),
                DAVElement(.appleICal("calendar-order"), text: "3"),
                DAVElement(.caldav("calendar-description"), text: "Work <main>"),
            ])
        #expect(update.remove == [.dav("displayname"), .appleICal("calendar-color")])
    }

    @Test("vdirsyncer's metasync PROPPATCH of displayname (default namespace)")
    func vdirsyncerPropertyUpdate() throws {
        let body = """
            <?xml version="1.0" encoding="utf-8" ?>
            <D:propertyupdate xmlns:D="DAV:">
                <D:set><D:prop><D:displayname>Work</D:displayname></D:prop></D:set>
            </D:propertyupdate>
            """
        #expect(
            try DAVRequestBody.propertyUpdate(data(body))
                == DAVPropertyUpdate(set: [DAVElement(.dav("displayname"), text: "Work")], remove: []))
    }

    @Test(
        "a PROPPATCH whose root is not DAV:propertyupdate is unexpected",
        arguments: [
            "<D:propfind xmlns:D='DAV:'/>", "<propertyupdate/>", "",
        ])
    func propertyUpdateWrongRoot(_ body: String) {
        do {
            _ = try DAVRequestBody.propertyUpdate(data(body))
            Issue.record("accepted \(body)")
        } catch {
            #expect(error.code == .unexpected)
        }
    }

    // MARK: - Dates

    @Test("CalDAV's UTC date-time is read exactly, leap days included")
    func dates() throws {
        #expect(DAVRequestBody.date("19700101T000000Z") == Date(timeIntervalSince1970: 0))
        #expect(DAVRequestBody.date("20060104T000000Z") == Date(timeIntervalSince1970: 1_136_332_800))
        #expect(DAVRequestBody.date("20240229T235959Z") == Date(timeIntervalSince1970: 1_709_251_199))
        #expect(DAVRequestBody.date("19691231T235959Z") == Date(timeIntervalSince1970: -1))
        #expect(DAVRequestBody.date("20000301T120000Z") == Date(timeIntervalSince1970: 951_912_000))
    }

    @Test(
        "anything but the UTC form is nil",
        arguments: [
            "", "20060104", "20060104T000000", "2006-01-04T00:00:00Z", "20060104T000000z", "20230229T000000Z",
            "20061304T000000Z", "20060104T240000Z", "20060104T006000Z", "2006010AT000000Z", "20060104T000000Z ",
        ])
    func badDates(_ text: String) {
        #expect(DAVRequestBody.date(text) == nil)
    }
}
