import Foundation
import Testing

@testable import ICalBridge

@Suite(.tags(.zoneRules)) struct WindowsZonesTests {
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

    @Test("Graph is told a time as local time of its zone's Windows name, or in UTC when there is none")
    func graphDateTime() throws {
        let amsterdam = try #require(ResolvedZone.iana("Europe/Amsterdam"))
        #expect(amsterdam.windowsName == "W. Europe Standard Time")
        // 2027-01-19T18:00:00Z and 2027-07-01T12:00:00Z: winter and summer time.
        #expect(
            GraphDateTimeTimeZone(instant: 1_800_381_600, in: amsterdam)
                == GraphDateTimeTimeZone(dateTime: "2027-01-19T19:00:00", timeZone: "W. Europe Standard Time"))
        #expect(
            GraphDateTimeTimeZone(instant: 1_814_443_200, in: amsterdam)
                == GraphDateTimeTimeZone(dateTime: "2027-07-01T14:00:00", timeZone: "W. Europe Standard Time"))
        let troll = try #require(ResolvedZone.iana("Antarctica/Troll"))
        #expect(troll.windowsName == nil)
        #expect(
            GraphDateTimeTimeZone(instant: 1_814_443_200, in: troll)
                == GraphDateTimeTimeZone(dateTime: "2027-07-01T12:00:00", timeZone: "UTC"))
        #expect(ResolvedZone.utc.windowsName == "UTC")
        #expect(
            GraphDateTimeTimeZone(instant: 1_800_381_600, in: .utc)
                == GraphDateTimeTimeZone(dateTime: "2027-01-19T18:00:00", timeZone: "UTC"))
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
