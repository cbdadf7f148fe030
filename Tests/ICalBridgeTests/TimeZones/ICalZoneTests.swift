import Foundation
import Testing

@testable import ICalBridge

@Suite(.tags(.zoneRules)) struct ICalZoneTests {
    func zone(_ name: String) throws -> ICalZone {
        try #require(ICalZone.named(name))
    }

    func instant(_ text: String) throws -> Int64 {
        try #require(GraphTimestamp.parse(text)?.instant)
    }

    @Test("a fall-back fold has two instants, a spring-forward gap none (northern hemisphere)")
    func berlinFoldAndGap() throws {
        let berlin = try zone("Europe/Berlin")
        let fold = CivilDateTime(year: 2026, month: 10, day: 25, hour: 2, minute: 30)
        #expect(
            berlin.instants(forLocal: fold) == [
                try instant("2026-10-25T00:30:00Z"), try instant("2026-10-25T01:30:00Z"),
            ])
        let gap = CivilDateTime(year: 2026, month: 3, day: 29, hour: 2, minute: 30)
        #expect(berlin.instants(forLocal: gap).isEmpty)
        // RFC 5545 §3.3.5: a time in the gap means the same time after the change (03:30 CEST).
        #expect(berlin.instant(forLocal: gap) == (try instant("2026-03-29T01:30:00Z")))
        #expect(berlin.utcOffset(at: try instant("2026-07-01T12:00:00Z")) == 7200)
        #expect(berlin.utcOffset(at: try instant("2026-12-01T12:00:00Z")) == 3600)
    }

    @Test("fold detection works on the southern hemisphere (Sydney falls back in April)")
    func sydneyFold() throws {
        let sydney = try zone("Australia/Sydney")
        // 2026-04-05 02:30 AEDT = 15:30Z on the 4th; 02:30 AEST = 16:30Z.
        #expect(!sydney.localTimeIsExact(at: try instant("2026-04-04T15:30:00Z")))
        #expect(!sydney.localTimeIsExact(at: try instant("2026-04-04T16:30:00Z")))
        #expect(sydney.localTimeIsExact(at: try instant("2026-04-04T14:30:00Z")))
        #expect(
            sydney.localTime(at: try instant("2026-12-01T00:00:00Z"))
                == CivilDateTime(year: 2026, month: 12, day: 1, hour: 11))
    }

    @Test(
        "VTIMEZONE: plain IANA TZID, and the system zone's offsets over the range, also where libical's truncation is wrong",
        arguments: [
            // libical 3.0.16 truncates Havana's and Hebron's rules wrongly under some tzdata releases; the
            // others cover both hemispheres, half-hour offsets, a zone without DST and one that dropped it.
            ("America/Havana", "2026-03-01T00:00:00Z", "2026-03-20T00:00:00Z"),
            ("America/Havana", "2025-10-01T00:00:00Z", "2027-12-31T00:00:00Z"),
            ("Asia/Hebron", "2026-01-01T00:00:00Z", "2027-12-31T00:00:00Z"),
            ("Europe/Berlin", "2026-03-01T00:00:00Z", "2026-03-20T00:00:00Z"),
            ("Europe/Berlin", "2026-01-01T00:00:00Z", "2028-01-01T00:00:00Z"),
            ("Australia/Lord_Howe", "2026-01-01T00:00:00Z", "2027-06-01T00:00:00Z"),
            ("America/St_Johns", "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z"),
            ("Asia/Kolkata", "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z"),
            ("America/Sao_Paulo", "2018-01-01T00:00:00Z", "2020-01-01T00:00:00Z"),
            // A rule change inside the range (the US in 2007), DST dropped inside it (Mexico in 2022), a
            // rule of tzdata's `Fri>=23` kind (Jerusalem), and changes on no yearly rule (Casablanca).
            ("America/New_York", "2006-01-01T00:00:00Z", "2008-12-31T00:00:00Z"),
            ("America/Mexico_City", "2022-01-01T00:00:00Z", "2023-12-31T00:00:00Z"),
            ("Asia/Jerusalem", "2026-01-01T00:00:00Z", "2027-12-31T00:00:00Z"),
            ("Africa/Casablanca", "2026-01-01T00:00:00Z", "2027-12-31T00:00:00Z"),
        ])
    func vtimezoneIsExact(name: String, fromText: String, toText: String) throws {
        let zone = try zone(name)
        let from = try instant(fromText)
        let to = try instant(toText)
        let text = String(decoding: try zone.vtimezone(from: from, to: to), as: UTF8.self)
        let lines = Fixtures.lines(text)
        #expect(lines.contains("TZID:\(name)"))
        #expect(!text.contains("freeassociation"))
        #expect(!lines.contains { $0.hasPrefix("RDATE") && $0.hasSuffix("Z") })
        let mismatches = VTimezoneExactness.mismatches(text, zone: name, from: from, to: to)
        #expect(mismatches.isEmpty, "\(mismatches)")
        let asLocal = VTimezoneExactness.readingUntilAsLocal(text)
        let misread = VTimezoneExactness.mismatches(asLocal, zone: name, from: from, to: to)
        #expect(misread.isEmpty, "UNTIL read as local time (vobject, tzical): \(misread)")
    }

    @Test("reading UNTIL as local time, as vobject and tzical do, loses a change that UNTIL ends exactly at")
    func untilAsLocalCanFail() throws {
        // libical's old truncated form: the last rule of each kind ends with UNTIL at its last change.
        let london = """
            BEGIN:VTIMEZONE\r\nTZID:Europe/London\r\nBEGIN:DAYLIGHT\r\nTZOFFSETFROM:+0000\r\nTZOFFSETTO:+0100\r\n\
            DTSTART:19810329T010000\r\nRRULE:FREQ=YEARLY;UNTIL=20260329T010000Z;BYDAY=-1SU;BYMONTH=3\r\nEND:DAYLIGHT\r\n\
            BEGIN:STANDARD\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0000\r\nDTSTART:19991031T020000\r\n\
            RRULE:FREQ=YEARLY;UNTIL=20261025T010000Z;BYDAY=-1SU;BYMONTH=10\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n
            """
        let from = try instant("2026-11-29T00:00:00Z")
        let to = try instant("2026-12-08T00:00:00Z")
        #expect(VTimezoneExactness.mismatches(london, zone: "Europe/London", from: from, to: to).isEmpty)
        let misread = VTimezoneExactness.readingUntilAsLocal(london)
        #expect(VTimezoneExactness.mismatches(misread, zone: "Europe/London", from: from, to: to).count == 1)
    }

    @Test("the exactness check finds a VTIMEZONE whose change is an hour off or missing")
    func exactnessCheckCanFail() throws {
        let from = try instant("2026-03-01T00:00:00Z")
        let to = try instant("2026-04-30T00:00:00Z")
        let berlin = String(decoding: try zone("Europe/Berlin").vtimezone(from: from, to: to), as: UTF8.self)
        #expect(VTimezoneExactness.mismatches(berlin, zone: "Europe/Berlin", from: from, to: to).isEmpty)
        // The same rules a week late, and without the change at all.
        let late = berlin.replacingOccurrences(of: "BYMONTH=3;BYDAY=-1SU", with: "BYMONTH=4;BYDAY=1SU")
        #expect(late != berlin)
        #expect(VTimezoneExactness.mismatches(late, zone: "Europe/Berlin", from: from, to: to).count == 1)
        #expect(!VTimezoneExactness.mismatches(berlin, zone: "Europe/London", from: from, to: to).isEmpty)
    }

    /// The observances of a VTIMEZONE text: kind, DTSTART and RRULE (nil without).
    func observances(_ text: String) -> [(kind: String, start: String, rule: String?)] {
        var result: [(kind: String, start: String, rule: String?)] = []
        var current: (kind: String, start: String, rule: String?)?
        for line in Fixtures.lines(text) {
            if line == "BEGIN:STANDARD" || line == "BEGIN:DAYLIGHT" { current = (String(line.dropFirst(6)), "", nil) }
            if line.hasPrefix("DTSTART:") { current?.start = String(line.dropFirst(8)) }
            if line.hasPrefix("RRULE:") { current?.rule = String(line.dropFirst(6)) }
            if line.hasPrefix("END:STANDARD") || line.hasPrefix("END:DAYLIGHT"), let observance = current {
                result.append(observance)
                current = nil
            }
        }
        return result
    }

    @Test("VTIMEZONE in Outlook's and Google's form: history cut before the range, the rules in force left open")
    func openRules() throws {
        let from = try instant("2026-11-29T00:00:00Z")
        let to = try instant("2026-12-08T00:00:00Z")
        let text = String(decoding: try zone("Europe/London").vtimezone(from: from, to: to), as: UTF8.self)
        // tzical refuses a VTIMEZONE with TZUNTIL or X-LIC-LOCATION, and with it the whole file.
        #expect(!text.contains("TZUNTIL") && !text.contains("X-LIC-LOCATION"))
        let observances = observances(text)
        #expect(observances.map(\.kind).sorted() == ["DAYLIGHT", "STANDARD"])
        #expect(observances.allSatisfy { $0.rule?.hasPrefix("FREQ=YEARLY;BYMONTH=") == true })
        #expect(observances.allSatisfy { $0.rule?.contains("UNTIL") == false })
        #expect(observances.allSatisfy { $0.start >= "20251001T000000" && $0.start <= "20261129T000000" })
        #expect(observances.contains { $0.kind == "STANDARD" && $0.rule == "FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU" })
        #expect(Fixtures.lines(text).filter { $0.hasPrefix("TZNAME:") }.sorted() == ["TZNAME:BST", "TZNAME:GMT"])
    }

    @Test("a rule that ends inside the range ends a day after its last change, so local-time readers keep it")
    func closedRule() throws {
        let from = try instant("2006-01-01T00:00:00Z")
        let to = try instant("2008-12-31T00:00:00Z")
        let text = String(decoding: try zone("America/New_York").vtimezone(from: from, to: to), as: UTF8.self)
        let observances = observances(text)
        // The rules before 2007 (first Sunday of April, last of October) end; those since go on.
        #expect(observances.contains { $0.rule == "FREQ=YEARLY;BYMONTH=4;BYDAY=1SU;UNTIL=20060403T070000Z" })
        #expect(observances.contains { $0.rule == "FREQ=YEARLY;BYMONTH=3;BYDAY=2SU" })
        #expect(observances.contains { $0.rule == "FREQ=YEARLY;BYMONTH=11;BYDAY=1SU" })
    }

    @Test(
        "a yearly pattern names the day tzdata's rules give",
        arguments: [
            (OpenRules.Pattern.nthWeekday(n: -1, weekday: 0), 2026, 3, 29),
            (.nthWeekday(n: -1, weekday: 0), 2027, 10, 31),
            (.nthWeekday(n: 2, weekday: 0), 2026, 3, 8),
            (.nthWeekday(n: 1, weekday: 0), 2026, 11, 1),
            (.weekdayOnOrAfter(weekday: 5, first: 23), 2026, 3, 27),
            (.weekdayOnOrAfter(weekday: 5, first: 23), 2027, 3, 26),
            (.monthDay(21), 2026, 3, 21),
        ])
    func patternDay(pattern: OpenRules.Pattern, year: Int, month: Int, day: Int) {
        #expect(pattern.day(year: year, month: month) == day)
        #expect(OpenRules.Pattern.candidates(for: CivilDateTime(year: year, month: month, day: day)).contains(pattern))
    }
}
