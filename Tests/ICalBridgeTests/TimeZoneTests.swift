import Foundation
import Testing

@testable import ICalBridge

@Suite struct WindowsZonesTests {
    @Test("Windows names map to IANA through CLDR's territory 001, normalised through tzdata links")
    func windowsToIANA() {
        #expect(WindowsZones.iana(forWindows: "W. Europe Standard Time") == "Europe/Berlin")
        #expect(WindowsZones.iana(forWindows: "w. europe standard time") == "Europe/Berlin")
        #expect(WindowsZones.iana(forWindows: "Pacific Standard Time") == "America/Los_Angeles")
        // CLDR 2021a says Asia/Calcutta and Europe/Kiev; tzdata's links make them the new names.
        #expect(WindowsZones.iana(forWindows: "India Standard Time") == "Asia/Kolkata")
        #expect(WindowsZones.iana(forWindows: "FLE Standard Time") == "Europe/Kyiv")
        #expect(WindowsZones.iana(forWindows: "Mars Standard Time") == nil)
    }

    @Test("every IANA id of the table, old or new spelling, maps back to its Windows zone")
    func ianaToWindows() {
        #expect(WindowsZones.windows(forIANA: "Asia/Calcutta") == "India Standard Time")
        #expect(WindowsZones.windows(forIANA: "Asia/Kolkata") == "India Standard Time")
        #expect(WindowsZones.windows(forIANA: "Europe/Kiev") == "FLE Standard Time")
        #expect(WindowsZones.windows(forIANA: "Europe/Kyiv") == "FLE Standard Time")
        #expect(WindowsZones.windows(forIANA: "Europe/Amsterdam") == "W. Europe Standard Time")
        #expect(WindowsZones.windows(forIANA: "Pacific/Niue") == "UTC-11")
        #expect(WindowsZones.windows(forIANA: "Europe/Berlin") == "W. Europe Standard Time")
    }

    @Test("the whole CLDR table is there: every Windows zone resolves to a zone libical has rules for")
    func everyWindowsZoneResolves() {
        let names = WindowsZones.allWindowsNames
        // Every Windows zone named in any row of the table must have its territory-001 default: a
        // generator that dropped rows, or a parser that misread them, leaves some zone without one.
        let named = Set(
            WindowsZones.cldrRows.split(separator: "\n").compactMap { $0.split(separator: "\t").first }
                .map { String($0).trimmingSpaces() })
        #expect(Set(names) == named)
        #expect(names.count > 130)
        for name in names {
            guard case .resolved = ZoneResolver.resolve(name) else {
                Issue.record("\(name) does not resolve")
                continue
            }
        }
    }

    @Test("Outlook display names and numbered Windows names resolve")
    func displayNamesAndSuffixes() {
        #expect(
            WindowsZones.windows(forDisplayName: "(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna")
                == "W. Europe Standard Time"
        )
        guard case .resolved(let zone, let rule) = ZoneResolver.resolve("Pacific Standard Time 1") else {
            Issue.record("numbered Windows name did not resolve")
            return
        }
        #expect(zone.name == "America/Los_Angeles")
        #expect(rule == "Windows name with numeric suffix")
    }

    @Test("Graph's sentinels and empty names are sentinels, UTC spellings are UTC, nonsense is unknown")
    func sentinels() {
        for name in ["tzone://Microsoft/Custom", "tzone://Microsoft/Utc", "Customized Time Zone", "", "  ", nil] {
            #expect(ZoneResolver.resolve(name) == .sentinel, "\(String(describing: name))")
        }
        for name in ["UTC", "Etc/UTC", "utc"] {
            guard case .resolved(let zone, _) = ZoneResolver.resolve(name) else {
                Issue.record("\(name) did not resolve")
                continue
            }
            #expect(zone == .utc)
        }
        #expect(ZoneResolver.resolve("Mars Standard Time") == .unknown)
        #expect(ZoneResolver.resolve("../../etc/passwd") == .unknown)
    }

    @Test("tzdata canonical names follow links but keep zone.tab names")
    func canonicalNames() {
        let tz = TZData.system
        #expect(tz.canonical("Asia/Calcutta") == "Asia/Kolkata")
        #expect(tz.canonical("Europe/Kiev") == "Europe/Kyiv")
        #expect(tz.canonical("Europe/Amsterdam") == "Europe/Amsterdam")
        #expect(tz.knownName("europe/berlin") == "Europe/Berlin")
    }
}

@Suite struct ICalZoneTests {
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
    }

    @Test("the exactness check finds a VTIMEZONE whose change is an hour off or missing")
    func exactnessCheckCanFail() throws {
        let from = try instant("2026-03-01T00:00:00Z")
        let to = try instant("2026-04-30T00:00:00Z")
        let berlin = String(decoding: try zone("Europe/Berlin").vtimezone(from: from, to: to), as: UTF8.self)
        #expect(VTimezoneExactness.mismatches(berlin, zone: "Europe/Berlin", from: from, to: to).isEmpty)
        // The same rules a week late, and without the change at all.
        let late = berlin.replacingOccurrences(of: "BYDAY=-1SU;BYMONTH=3", with: "BYDAY=1SU;BYMONTH=4")
        #expect(late != berlin)
        #expect(VTimezoneExactness.mismatches(late, zone: "Europe/Berlin", from: from, to: to).count == 1)
        #expect(!VTimezoneExactness.mismatches(berlin, zone: "Europe/London", from: from, to: to).isEmpty)
    }
}

@Suite struct CivilDateTimeTextTests {
    @Test("description writes Graph's dateTime form with zero padding, also outside the years 0–9999")
    func description() {
        #expect(CivilDateTime(year: 2026, month: 12, day: 1, hour: 8).description == "2026-12-01T08:00:00")
        #expect(
            CivilDateTime(year: 1999, month: 10, day: 31, hour: 23, minute: 59, second: 58).description
                == "1999-10-31T23:59:58")
        #expect(
            CivilDateTime(year: 7, month: 1, day: 2, hour: 3, minute: 4, second: 5).description == "0007-01-02T03:04:05"
        )
        #expect(CivilDateTime(year: 12345, month: 6, day: 7).description == "12345-06-07T00:00:00")
        #expect(CivilDateTime(year: -44, month: 3, day: 15, hour: 12).description == "-0044-03-15T12:00:00")
        // Every second of a day and every day of a leap year read back through the parser's arithmetic.
        for seconds in stride(from: Int64(1_767_225_600), to: 1_767_225_600 + 366 * 86_400, by: 3_607) {
            let civil = CivilDateTime(secondsSinceEpoch: seconds)
            let expected = String(
                format: "%04d-%02d-%02dT%02d:%02d:%02d", civil.year, civil.month, civil.day, civil.hour,
                civil.minute, civil.second)
            #expect(civil.description == expected)
        }
    }
}
