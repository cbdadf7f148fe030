import Testing

@testable import ICalBridge

/// The span a file's VTIMEZONE describes, over which it may redefine the IANA zone its TZID names.
@Suite(.tags(.zoneRules)) struct FileTimeZoneTests {
    static func seconds(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0) -> Int64 {
        CivilDateTime(year: year, month: month, day: day, hour: hour).secondsSinceEpoch
    }

    @Test("a list of changes by RDATE, as python-icalendar writes it, ends a day before its last change")
    func rdateListEnds() {
        let text = """
            BEGIN:VTIMEZONE\r
            TZID:America/Vancouver\r
            BEGIN:STANDARD\r
            DTSTART:20221106T020000\r
            TZOFFSETFROM:-0700\r
            TZOFFSETTO:-0800\r
            RDATE:20231105T020000\r
            END:STANDARD\r
            BEGIN:DAYLIGHT\r
            DTSTART:20230312T020000\r
            TZOFFSETFROM:-0800\r
            TZOFFSETTO:-0700\r
            RDATE:20240310T020000\r
            END:DAYLIGHT\r
            END:VTIMEZONE\r
            """
        let span = FileTimeZone.describedSpan(of: text)
        #expect(span.from == Self.seconds(2022, 11, 7, 2))
        #expect(span.to == Self.seconds(2024, 3, 9, 2))
    }

    @Test("TZUNTIL ends the span; rules with RRULE and no TZUNTIL leave it open")
    func tzuntilAndOpenRules() {
        let truncated =
            "BEGIN:VTIMEZONE\r\nTZID:X\r\nTZUNTIL:20270131T000000Z\r\nBEGIN:STANDARD\r\n"
            + "DTSTART:19701025T030000\r\nRRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n"
        #expect(FileTimeZone.describedSpan(of: truncated).to == Self.seconds(2027, 1, 31))
        let open = truncated.replacing("TZUNTIL:20270131T000000Z\r\n", with: "")
        #expect(FileTimeZone.describedSpan(of: open).to == nil)
        #expect(FileTimeZone.describedSpan(of: open).from == Self.seconds(1970, 10, 26, 3))
    }
}
