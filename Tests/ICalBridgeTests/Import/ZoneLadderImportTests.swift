import Foundation
import Testing

@testable import ICalBridge

/// The rungs of the zone ladder issue 13 added: path-style TZIDs (item 14), and a file's VTIMEZONE that
/// redefines an IANA name (item 25).
@Suite(.tags(.zoneRules)) struct ZoneLadderImportTests {
    /// What vobject writes for a `dateutil` zone named EST: New York's rules under the IANA name of a fixed
    /// zone five hours west of UTC.
    static let vobjectEST = """
        BEGIN:VTIMEZONE
        TZID:EST
        BEGIN:STANDARD
        DTSTART:20001105T020000
        RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=11
        TZNAME:EST
        TZOFFSETFROM:-0400
        TZOFFSETTO:-0500
        END:STANDARD
        BEGIN:DAYLIGHT
        DTSTART:20000312T020000
        RRULE:FREQ=YEARLY;BYDAY=2SU;BYMONTH=3
        TZNAME:EDT
        TZOFFSETFROM:-0500
        TZOFFSETTO:-0400
        END:DAYLIGHT
        END:VTIMEZONE
        """

    /// vobject's GMT: London's rules under the name libical and graph-ics read as UTC.
    static let vobjectGMT = """
        BEGIN:VTIMEZONE
        TZID:GMT
        BEGIN:STANDARD
        DTSTART:20001029T020000
        RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10
        TZNAME:GMT
        TZOFFSETFROM:+0100
        TZOFFSETTO:+0000
        END:STANDARD
        BEGIN:DAYLIGHT
        DTSTART:20000326T010000
        RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3
        TZNAME:BST
        TZOFFSETFROM:+0000
        TZOFFSETTO:+0100
        END:DAYLIGHT
        END:VTIMEZONE
        """

    /// Berlin's rules, as most tools write them, under Berlin's own name.
    static let berlin = """
        BEGIN:VTIMEZONE
        TZID:Europe/Berlin
        BEGIN:STANDARD
        DTSTART:19701025T030000
        RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10
        TZOFFSETFROM:+0200
        TZOFFSETTO:+0100
        END:STANDARD
        BEGIN:DAYLIGHT
        DTSTART:19700329T020000
        RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3
        TZOFFSETFROM:+0100
        TZOFFSETTO:+0200
        END:DAYLIGHT
        END:VTIMEZONE
        """

    func plan(_ vtimezone: String, tzid: String, start: String, end: String) throws -> ImportPlan {
        let lines = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", vtimezone, "BEGIN:VEVENT", "UID:zone-1",
            "SUMMARY:Meeting", "DTSTART;TZID=\(tzid):\(start)", "DTEND;TZID=\(tzid):\(end)", "END:VEVENT",
            "END:VCALENDAR",
        ].filter { !$0.isEmpty }
        let text = lines.joined(separator: "\n").replacing("\n", with: "\r\n") + "\r\n"
        return try ICSToGraph.plan(
            Data(text.utf8), options: ImportOptions(file: "zones.ics"), settings: ImportSettings())
    }

    /// The UTC instant of a Graph start, as `2026-07-01T13:00:00`.
    func utc(_ value: GraphDateTimeTimeZone?) throws -> String {
        let local = try #require(GraphTimestamp.parse(value?.dateTime ?? "")).civil
        guard case .resolved(let zone, _) = ZoneResolver.resolve(value?.timeZone) else {
            Issue.record("\(String(describing: value?.timeZone)) does not resolve")
            return ""
        }
        return CivilDateTime(secondsSinceEpoch: zone.instant(forLocal: local)).description
    }

    // MARK: Path-style TZIDs (item 14)

    @Test(
        "path-style TZIDs of Evolution, Thunderbird, Citadel and libical resolve to the IANA name they end in",
        arguments: [
            ("/softwarestudio.org/Olson_20011030_5/America/Chicago", "America/Chicago"),
            ("/mozilla.org/20070129_1/Europe/Berlin", "Europe/Berlin"),
            ("/citadel.org/20190914_1/Asia/Tokyo", "Asia/Tokyo"),
            (
                "/freeassociation.sourceforge.net/Tzfile/America/Argentina/Buenos_Aires",
                "America/Argentina/Buenos_Aires"
            ),
            ("/softwarestudio.org/Olson_20011030_5/UTC", "UTC"),
        ])
    func pathStyleTZIDs(tzid: String, iana: String) {
        guard case .resolved(let zone, let rule) = ZoneResolver.resolve(tzid) else {
            Issue.record("\(tzid) does not resolve")
            return
        }
        #expect(zone.name == iana)
        #expect(rule.hasPrefix("path-style TZID"))
    }

    @Test("a path whose tail is no IANA name is still unknown")
    func pathStyleUnknown() {
        #expect(ZoneResolver.resolve("/example.org/2020/Mars/Olympus") == .unknown)
        #expect(ZoneResolver.resolve("/America/") == .unknown)
    }

    @Test("an event with an Evolution TZID and no VTIMEZONE imports in its zone")
    func pathStyleImport() throws {
        let plan = try plan(
            "", tzid: "/softwarestudio.org/Olson_20011030_5/America/Chicago", start: "20260701T090000",
            end: "20260701T100000")
        let payload = try #require(plan.events.first?.payload)
        #expect(plan.diagnostics.filter { $0.severity == .error }.isEmpty)
        #expect(payload.start?.timeZone == "Central Standard Time")
        #expect(try utc(payload.start) == "2026-07-01T14:00:00")
    }

    // MARK: A VTIMEZONE that redefines an IANA name (item 25)

    @Test("vobject's TZID=EST with New York's rules is New York, an hour off EST in summer")
    func vobjectEST() throws {
        let plan = try plan(Self.vobjectEST, tzid: "EST", start: "20260701T090000", end: "20260701T100000")
        let payload = try #require(plan.events.first?.payload)
        #expect(try utc(payload.start) == "2026-07-01T13:00:00")
        #expect(payload.start?.timeZone == "Eastern Standard Time")
        let reading = try #require(plan.zoneResolutions["EST"])
        #expect(reading.contains("America/New_York"))
        #expect(reading.contains("not those of the IANA zone EST"))
    }

    @Test("vobject's TZID=GMT with London's rules is London, an hour off UTC in summer")
    func vobjectGMT() throws {
        let plan = try plan(Self.vobjectGMT, tzid: "GMT", start: "20260701T090000", end: "20260701T100000")
        let payload = try #require(plan.events.first?.payload)
        #expect(try utc(payload.start) == "2026-07-01T08:00:00")
        #expect(payload.start?.timeZone == "GMT Standard Time")
        #expect(plan.zoneResolutions["GMT"]?.contains("Europe/London") == true)
    }

    @Test("in winter the two readings agree on the instant, and the file's zone still names the event")
    func vobjectESTInWinter() throws {
        let plan = try plan(Self.vobjectEST, tzid: "EST", start: "20261201T090000", end: "20261201T100000")
        let payload = try #require(plan.events.first?.payload)
        #expect(try utc(payload.start) == "2026-12-01T14:00:00")
        #expect(payload.start?.timeZone == "Eastern Standard Time")
    }

    @Test("a VTIMEZONE that agrees with its IANA name leaves the name's zone")
    func agreeingVTimezone() throws {
        let plan = try plan(Self.berlin, tzid: "Europe/Berlin", start: "20260701T090000", end: "20260701T100000")
        #expect(plan.zoneResolutions["Europe/Berlin"] == "Europe/Berlin (IANA name)")
        #expect(try utc(plan.events.first?.payload.start) == "2026-07-01T07:00:00")
    }

    @Test("a path-style TZID whose VTIMEZONE contradicts the name it ends in is read by the VTIMEZONE")
    func pathStyleContradicted() throws {
        let text = Self.vobjectEST.replacing("TZID:EST", with: "TZID:/mozilla.org/20070129_1/EST")
        let plan = try plan(text, tzid: "/mozilla.org/20070129_1/EST", start: "20260701T090000", end: "20260701T100000")
        #expect(try utc(plan.events.first?.payload.start) == "2026-07-01T13:00:00")
    }

    @Test("Apple's list of single changes around its events redefines nothing past its last change")
    func appleChangeList() throws {
        // iCal 2005: the changes of 2005 and the next one (at 01:00, an hour early), no RRULE.
        let vtimezone = """
            BEGIN:VTIMEZONE
            TZID:US/Eastern
            BEGIN:DAYLIGHT
            DTSTART:20050403T070000
            TZOFFSETTO:-0400
            TZOFFSETFROM:+0000
            TZNAME:EDT
            END:DAYLIGHT
            BEGIN:STANDARD
            DTSTART:20051030T020000
            TZOFFSETTO:-0500
            TZOFFSETFROM:-0400
            TZNAME:EST
            END:STANDARD
            BEGIN:DAYLIGHT
            DTSTART:20060402T010000
            TZOFFSETTO:-0400
            TZOFFSETFROM:-0500
            TZNAME:EDT
            END:DAYLIGHT
            END:VTIMEZONE
            """
        let plan = try plan(vtimezone, tzid: "US/Eastern", start: "20050801T090000", end: "20050801T100000")
        #expect(plan.zoneResolutions["US/Eastern"] == "America/New_York (IANA name)")
        #expect(try utc(plan.events.first?.payload.start) == "2005-08-01T13:00:00")
    }

    @Test("a VTIMEZONE that puts a change an hour off is a slip: the IANA name keeps its zone")
    func anHourSlipKeepsTheName() throws {
        // London's autumn change written at 03:00 BST (02:00 UTC) instead of 02:00 BST.
        let vtimezone = """
            BEGIN:VTIMEZONE
            TZID:Europe/London
            BEGIN:STANDARD
            DTSTART:20001029T030000
            RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10
            TZOFFSETFROM:+0100
            TZOFFSETTO:+0000
            END:STANDARD
            BEGIN:DAYLIGHT
            DTSTART:20000326T010000
            RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3
            TZOFFSETFROM:+0000
            TZOFFSETTO:+0100
            END:DAYLIGHT
            END:VTIMEZONE
            """
        let plan = try plan(vtimezone, tzid: "Europe/London", start: "20260616T090000", end: "20260616T100000")
        #expect(plan.zoneResolutions["Europe/London"] == "Europe/London (IANA name)")
        #expect(plan.events.first?.payload.start?.timeZone == "GMT Standard Time")
    }
}
