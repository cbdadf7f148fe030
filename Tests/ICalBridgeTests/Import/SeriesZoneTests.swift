import Foundation
import Testing

@testable import ICalBridge

/// A series is sent to Graph as a local-time pattern in the zone of its start and of
/// `range.recurrenceTimeZone`, or as single events: never a local pattern with a UTC start (issue 13, items 3
/// and 26). Every case is checked occurrence by occurrence: Graph's pattern expanded in the zone it is sent
/// in against libical's expansion of the RRULE in the file's own zone.
@Suite(.tags(.zoneRules)) struct SeriesZoneTests {
    /// RFC 2445's US Eastern, with the rules the United States dropped in 2007 (first Sunday of April, last
    /// Sunday of October): no IANA zone has them from 2007 on.
    static let usEastern = """
        BEGIN:VTIMEZONE
        TZID:US-Eastern
        BEGIN:STANDARD
        DTSTART:19671029T020000
        RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10
        TZOFFSETFROM:-0400
        TZOFFSETTO:-0500
        TZNAME:EST
        END:STANDARD
        BEGIN:DAYLIGHT
        DTSTART:19870405T020000
        RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=4
        TZOFFSETFROM:-0500
        TZOFFSETTO:-0400
        TZNAME:EDT
        END:DAYLIGHT
        END:VTIMEZONE
        """

    /// A zone three hours east of UTC with Europe's summer time: no IANA or Windows zone keeps these clocks.
    static let plusThree = """
        BEGIN:VTIMEZONE
        TZID:Custom Plus Three
        BEGIN:STANDARD
        DTSTART:19701025T040000
        TZOFFSETFROM:+0400
        TZOFFSETTO:+0300
        RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU
        END:STANDARD
        BEGIN:DAYLIGHT
        DTSTART:19700329T030000
        TZOFFSETFROM:+0300
        TZOFFSETTO:+0400
        RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU
        END:DAYLIGHT
        END:VTIMEZONE
        """

    /// Australian Eastern Standard Time as a fixed offset (Queensland keeps no summer time).
    static let aest = """
        BEGIN:VTIMEZONE
        TZID:AEST
        BEGIN:STANDARD
        DTSTART:19700101T000000
        TZOFFSETFROM:+1000
        TZOFFSETTO:+1000
        TZNAME:AEST
        END:STANDARD
        END:VTIMEZONE
        """

    func plan(_ vtimezone: String, _ event: String, zone: String? = nil, strict: Bool = false) throws -> ImportPlan {
        let body = [vtimezone, "BEGIN:VEVENT", event, "END:VEVENT"].filter { !$0.isEmpty }.joined(separator: "\n")
        let text = "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//test//EN\n" + body + "\nEND:VCALENDAR\n"
        var options = ImportOptions(strict: strict, file: "series.ics")
        if let zone, case .resolved(let resolved, _) = ZoneResolver.resolve(zone) { options.userZone = resolved }
        return try ICSToGraph.plan(
            Data(text.replacing("\n", with: "\r\n").utf8), options: options, settings: ImportSettings())
    }

    /// The instants at which Graph would start the planned events: a series' pattern expanded in the zone of
    /// its start, single events as they are.
    func sentStarts(_ plan: ImportPlan) throws -> [Int64] {
        var starts: [Int64] = []
        for planned in plan.events {
            let payload = planned.payload
            let start = try #require(payload.start)
            let zone = try #require(Self.zone(start.timeZone))
            let local = try #require(GraphTimestamp.parse(start.dateTime ?? "")).civil
            guard let recurrence = payload.recurrence else {
                starts.append(zone.instant(forLocal: local))
                continue
            }
            let range = try #require(recurrence.range)
            // Graph's rule (resources/recurrencerange.md), which the stand-in enforces.
            let recurrenceZone = try #require(Self.zone(range.recurrenceTimeZone ?? start.timeZone))
            #expect(range.startDate == recurrenceZone.localTime(at: zone.instant(forLocal: local)).dateString)
            #expect(range.recurrenceTimeZone == start.timeZone)
            starts += GraphExpansion.occurrences(recurrence, start: local, limit: 1000).map {
                zone.instant(forLocal: $0)
            }
        }
        return starts.sorted()
    }

    static func zone(_ name: String?) -> ResolvedZone? {
        guard case .resolved(let zone, _) = ZoneResolver.resolve(name) else { return nil }
        return zone
    }

    /// libical's occurrences of `rrule` from `start`, as instants by `offsets`.
    func expected(_ rrule: String, start: CivilDateTime, count: Int, offsets: some ZoneOffsets) -> [Int64] {
        RecurrenceMapping.occurrences(rrule: rrule, start: start, count: count).map {
            WallClock.instant(forLocal: $0, utcOffset: offsets.utcOffset(at:))
        }
    }

    func fileZone(_ text: String) throws -> FileTimeZone {
        try #require(FileTimeZone(vtimezone: text.replacing("\n", with: "\r\n"), throughYear: 2040))
    }

    /// The Windows zone a series in `tzid` must be sent in: `matched` (the one with the same clocks) while
    /// tzdata keeps `tzid` a zone of its own with no Windows name, as Debian's current release does for
    /// `CET`; the Windows name of the zone it links to in releases where it is a link (tzdata 2024b
    /// made `CET` a link to `Europe/Brussels`, so it has a Windows name of its own there).
    static func windowsZone(for tzid: String, withoutOwnName matched: String) -> String {
        ResolvedZone.iana(tzid)?.windowsName ?? matched
    }

    @Test(
        "a series in an IANA zone with no Windows name goes in the Windows zone with the same clocks",
        arguments: [
            ("CET", "W. Europe Standard Time"), ("EST5EDT", "Eastern Standard Time"),
            ("PST8PDT", "Pacific Standard Time"), ("EST", nil),
        ] as [(String, String?)])
    func ianaZoneWithoutWindowsName(tzid: String, windows: String?) throws {
        let rrule = "FREQ=WEEKLY;BYDAY=WE;COUNT=23"
        let plan = try plan(
            "",
            """
            UID:series-\(tzid)
            SUMMARY:Weekly
            DTSTART;TZID=\(tzid):20270203T090000
            DTEND;TZID=\(tzid):20270203T100000
            RRULE:\(rrule)
            """)
        let series = try #require(plan.events.count == 1 ? plan.events.first : nil)
        let timeZone = try #require(series.payload.start?.timeZone)
        #expect(timeZone != "UTC")
        if let windows { #expect(timeZone == Self.windowsZone(for: tzid, withoutOwnName: windows)) }
        #expect(series.payload.end?.timeZone == timeZone)
        #expect(series.payload.recurrence?.pattern?.daysOfWeek == ["wednesday"])
        let source = try #require(ResolvedZone.iana(tzid))
        let start = CivilDateTime(year: 2027, month: 2, day: 3, hour: 9)
        #expect(try sentStarts(plan) == expected(rrule, start: start, count: 23, offsets: source))
    }

    @Test("a series in a zone Windows has no clocks for is expanded, every occurrence at its instant")
    func noWindowsZoneExpands() throws {
        // The reproduction: Wednesday 00:30 at +03:00 is Tuesday 21:30 UTC.
        let rrule = "FREQ=WEEKLY;BYDAY=WE;COUNT=23"
        let plan = try plan(
            Self.plusThree,
            """
            UID:late-1
            SUMMARY:Late
            DTSTART;TZID=Custom Plus Three:20261202T003000
            DTEND;TZID=Custom Plus Three:20261202T013000
            RRULE:\(rrule)
            """)
        #expect(plan.events.count == 23)
        #expect(plan.events.allSatisfy { $0.payload.recurrence == nil })
        #expect(plan.diagnostics.contains { $0.message.contains("expanded into single events") })
        let start = CivilDateTime(year: 2026, month: 12, day: 2, hour: 0, minute: 30)
        #expect(try sentStarts(plan) == expected(rrule, start: start, count: 23, offsets: fileZone(Self.plusThree)))
    }

    @Test("--strict refuses a series Graph cannot hold in its wall-clock time")
    func noWindowsZoneStrict() throws {
        let plan = try plan(
            Self.plusThree,
            """
            UID:late-2
            SUMMARY:Late
            DTSTART;TZID=Custom Plus Three:20261202T003000
            RRULE:FREQ=WEEKLY;COUNT=3
            """, strict: true)
        #expect(plan.events.isEmpty)
        #expect(plan.diagnostics.contains { $0.severity == .error && $0.message.contains("--strict") })
    }

    @Test("RFC 2445's US-Eastern across the change of daylight saving time: every occurrence exact")
    func usEasternAcrossDST() throws {
        // 2027-03-14 is when New York moves; US-Eastern's old rules move on 2027-04-04.
        let rrule = "FREQ=WEEKLY;BYDAY=TU;COUNT=23"
        let plan = try plan(
            Self.usEastern,
            """
            UID:eastern-1
            SUMMARY:Standup
            DTSTART;TZID=US-Eastern:20270105T090000
            DTEND;TZID=US-Eastern:20270105T091500
            RRULE:\(rrule)
            """)
        #expect(!plan.events.contains { $0.payload.recurrence != nil && $0.payload.start?.timeZone == "UTC" })
        let start = CivilDateTime(year: 2027, month: 1, day: 5, hour: 9)
        #expect(try sentStarts(plan) == expected(rrule, start: start, count: 23, offsets: fileZone(Self.usEastern)))
    }

    @Test("AEST as a fixed offset: a series in a Windows zone without summer time")
    func aestSeries() throws {
        let rrule = "FREQ=MONTHLY;BYMONTHDAY=15;COUNT=14"
        let plan = try plan(
            Self.aest,
            """
            UID:aest-1
            SUMMARY:Monthly
            DTSTART;TZID=AEST:20261015T080000
            DTEND;TZID=AEST:20261015T090000
            RRULE:\(rrule)
            """)
        let series = try #require(plan.events.first)
        #expect(plan.events.count == 1)
        #expect(series.payload.start?.timeZone != "UTC")
        let start = CivilDateTime(year: 2026, month: 10, day: 15, hour: 8)
        #expect(try sentStarts(plan) == expected(rrule, start: start, count: 14, offsets: fileZone(Self.aest)))
    }

    @Test("floating times in a --tz zone without a Windows name: the series goes in one with the same clocks")
    func floatingInUserZone() throws {
        let rrule = "FREQ=DAILY;INTERVAL=9;COUNT=30"
        let plan = try plan(
            "",
            """
            UID:floating-1
            SUMMARY:Every ninth day
            DTSTART:20270301T073000
            DTEND:20270301T080000
            RRULE:\(rrule)
            """, zone: "CET")
        #expect(plan.events.count == 1)
        #expect(
            plan.events.first?.payload.start?.timeZone
                == Self.windowsZone(for: "CET", withoutOwnName: "W. Europe Standard Time"))
        let start = CivilDateTime(year: 2027, month: 3, day: 1, hour: 7, minute: 30)
        let source = try #require(ResolvedZone.iana("CET"))
        #expect(try sentStarts(plan) == expected(rrule, start: start, count: 30, offsets: source))
    }

    @Test("a series without an end needs a Windows zone that keeps its clocks for ten years")
    func openSeriesSpan() throws {
        let plan = try plan(
            "",
            """
            UID:open-1
            SUMMARY:Forever
            DTSTART;TZID=CET:20270203T090000
            RRULE:FREQ=WEEKLY
            """)
        let range = try #require(plan.events.first?.payload.recurrence?.range)
        #expect(range.type == "noEnd")
        #expect(range.recurrenceTimeZone == Self.windowsZone(for: "CET", withoutOwnName: "W. Europe Standard Time"))
    }

    @Test("the Windows zone found keeps the same clocks over the whole span, history included")
    func windowsZoneMatchesOverTheSpan() throws {
        let cet = try #require(ResolvedZone.iana("CET"))
        // Germany kept no summer time before 1980; the CET zone has the EU's from 1977.
        let from = CivilDateTime(year: 1977, month: 1, day: 1).secondsSinceEpoch
        let to = CivilDateTime(year: 1980, month: 1, day: 1).secondsSinceEpoch
        let found = WindowsZones.graphZone(matching: cet, from: from, to: to)
        if let found {
            #expect(found.name != "Europe/Berlin")
            #expect(ResolvedZone.zone(found).agrees(with: cet, from: from, to: to))
        }
        let modern = try #require(
            WindowsZones.graphZone(
                matching: cet, from: CivilDateTime(year: 2026, month: 1, day: 1).secondsSinceEpoch,
                to: CivilDateTime(year: 2037, month: 1, day: 1).secondsSinceEpoch))
        #expect(modern.name == "Europe/Berlin")
    }
}
