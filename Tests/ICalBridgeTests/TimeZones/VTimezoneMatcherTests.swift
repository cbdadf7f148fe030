import Foundation
import Testing

@testable import ICalBridge

/// VTIMEZONE texts written out here (the project's tests never read ../shared).
enum VTimezoneTexts {
    /// A VTIMEZONE with CRLF line ends from LF-separated `body` lines between BEGIN and END.
    static func make(_ body: String) -> String {
        ("BEGIN:VTIMEZONE\n" + body + "\nEND:VTIMEZONE\n").replacing("\n", with: "\r\n")
    }

    /// Central European rules as Outlook writes them: DTSTART in 1601, RRULEs with INTERVAL=1.
    static func centralEurope(tzid: String) -> String {
        make(
            """
            TZID:\(tzid)
            BEGIN:STANDARD
            DTSTART:16010101T030000
            TZOFFSETFROM:+0200
            TZOFFSETTO:+0100
            RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=10
            END:STANDARD
            BEGIN:DAYLIGHT
            DTSTART:16010101T020000
            TZOFFSETFROM:+0100
            TZOFFSETTO:+0200
            RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=3
            END:DAYLIGHT
            """)
    }

    /// US Eastern rules since 2007 under a name nobody knows.
    static let usEastern = make(
        """
        TZID:My Office Zone
        BEGIN:DAYLIGHT
        TZOFFSETFROM:-0500
        TZOFFSETTO:-0400
        TZNAME:EDT
        DTSTART:20070311T020000
        RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU
        END:DAYLIGHT
        BEGIN:STANDARD
        TZOFFSETFROM:-0400
        TZOFFSETTO:-0500
        TZNAME:EST
        DTSTART:20071104T020000
        RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU
        END:STANDARD
        """)

    /// US Eastern with its history: the 1987–2006 rule ends with UNTIL, the 2007 rule follows.
    static let usEasternWithHistory = make(
        """
        TZID:Eastern (Lotus)
        X-LIC-LOCATION:Somewhere
        BEGIN:DAYLIGHT
        TZOFFSETFROM:-0500
        TZOFFSETTO:-0400
        TZNAME:EDT
        DTSTART:19870405T020000
        RRULE:FREQ=YEARLY;UNTIL=20060402T070000Z;BYMONTH=4;BYDAY=1SU
        END:DAYLIGHT
        BEGIN:STANDARD
        TZOFFSETFROM:-0400
        TZOFFSETTO:-0500
        TZNAME:EST
        DTSTART:19671029T020000
        RRULE:FREQ=YEARLY;UNTIL=20061029T060000Z;BYMONTH=10;BYDAY=-1SU
        END:STANDARD
        BEGIN:DAYLIGHT
        TZOFFSETFROM:-0500
        TZOFFSETTO:-0400
        TZNAME:EDT
        DTSTART:20070311T020000
        RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU
        END:DAYLIGHT
        BEGIN:STANDARD
        TZOFFSETFROM:-0400
        TZOFFSETTO:-0500
        TZNAME:EST
        DTSTART:20071104T020000
        RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU
        END:STANDARD
        """)

    /// New South Wales: daylight time from the first Sunday of October to the first Sunday of April.
    static let sydney = make(
        """
        TZID:Südost-Australien (benutzerdefiniert)
        BEGIN:STANDARD
        DTSTART:20080406T030000
        TZOFFSETFROM:+1100
        TZOFFSETTO:+1000
        RRULE:FREQ=YEARLY;BYMONTH=4;BYDAY=1SU
        TZNAME:AEST
        END:STANDARD
        BEGIN:DAYLIGHT
        DTSTART:20081005T020000
        TZOFFSETFROM:+1000
        TZOFFSETTO:+1100
        RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=1SU
        TZNAME:AEDT
        END:DAYLIGHT
        """)

    /// A single STANDARD at a fixed offset; `extra` adds lines to it.
    static func fixed(_ offset: String, tzid: String = "Custom 1", extra: String = "") -> String {
        make(
            """
            TZID:\(tzid)
            BEGIN:STANDARD
            DTSTART:16010101T000000
            TZOFFSETFROM:\(offset)
            TZOFFSETTO:\(offset)\(extra.isEmpty ? "" : "\n" + extra)
            END:STANDARD
            """)
    }
}

@Suite(.tags(.zoneRules)) struct VTimezoneMatcherTests {
    @Test(
        "Central European rules resolve to the territory-001 zone whose names the TZID shares, else Europe/Berlin",
        arguments: [
            ("(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna", "Europe/Berlin"),
            ("(UTC+01:00) Amsterdam, Berlijn, Bern, Rome, Stockholm, Wenen", "Europe/Berlin"),
            ("(UTC+01:00) Brussels, Copenhagen, Madrid, Paris (custom)", "Europe/Paris"),
            ("(UTC+01:00) Sarajevo, Skopje, Warsaw, Zagreb", "Europe/Warsaw"),
            ("Customized Time Zone 3", "Europe/Berlin"),
        ])
    func centralEurope(tzid: String, expected: String) {
        #expect(VTimezoneMatcher.ianaZone(matching: VTimezoneTexts.centralEurope(tzid: tzid), year: 2026) == expected)
    }

    @Test("many zones keep Central European clocks; the ranking is deterministic and agrees with the answer")
    func rankingIsDeterministic() {
        let text = VTimezoneTexts.centralEurope(tzid: "Customized Time Zone 3")
        let ranked = VTimezoneMatcher.rank(text, year: 2026)
        #expect(ranked.first == "Europe/Berlin")
        for zone in ["Europe/Paris", "Europe/Amsterdam", "Europe/Warsaw", "Europe/Budapest", "Europe/Rome"] {
            #expect(ranked.contains(zone), "\(zone)")
        }
        // Same offsets in winter, different rules: never agreeing.
        for zone in ["Africa/Lagos", "Africa/Casablanca", "Europe/London", "Europe/Helsinki"] {
            #expect(!ranked.contains(zone), "\(zone)")
        }
        #expect(VTimezoneMatcher.rank(text, year: 2026) == ranked)
        #expect(VTimezoneMatcher.ianaZone(matching: text, year: 2026) == "Europe/Berlin")
        #expect(VTimezoneMatcher.ianaZone(matching: text, year: 2026) == "Europe/Berlin")
    }

    @Test("a US Eastern copy under a made-up TZID is America/New_York, not another zone with the same clocks")
    func usEasternCopy() {
        #expect(VTimezoneMatcher.ianaZone(matching: VTimezoneTexts.usEastern, year: 2026) == "America/New_York")
        let ranked = VTimezoneMatcher.rank(VTimezoneTexts.usEastern, year: 2026)
        #expect(ranked.contains("America/Grand_Turk"))
        #expect(ranked.contains("America/Toronto"))
        #expect(!ranked.contains("America/Chicago"))
        #expect(!ranked.contains("America/Havana"))  // same offsets, changes at midnight and 1:00
        #expect(!ranked.contains("America/Cancun"))  // no daylight saving time
    }

    @Test("southern-hemisphere rules (daylight time across the new year) resolve to Australia/Sydney")
    func sydney() {
        #expect(VTimezoneMatcher.ianaZone(matching: VTimezoneTexts.sydney, year: 2026) == "Australia/Sydney")
        let ranked = VTimezoneMatcher.rank(VTimezoneTexts.sydney, year: 2026)
        #expect(ranked.contains("Australia/Hobart"))
        #expect(!ranked.contains("Australia/Brisbane"))
        #expect(!ranked.contains("Australia/Lord_Howe"))
    }

    @Test("a fixed +05:30 zone with a single STANDARD (no TZOFFSETFROM) is Asia/Kolkata, with or without TZNAME")
    func fixedIndia() {
        let named = VTimezoneTexts.fixed("+0530", extra: "TZNAME:IST")
        #expect(VTimezoneMatcher.ianaZone(matching: named, year: 2026) == "Asia/Kolkata")
        #expect(VTimezoneMatcher.rank(named, year: 2026).contains("Asia/Colombo"))
        let anonymous = VTimezoneTexts.make(
            """
            TZID:Custom 2
            BEGIN:STANDARD
            DTSTART:20000101T000000
            TZOFFSETTO:+0530
            END:STANDARD
            """)
        #expect(VTimezoneMatcher.ianaZone(matching: anonymous, year: 2026) == "Asia/Kolkata")
    }

    @Test("a VTIMEZONE that is UTC all year is a zero-offset Etc zone, which graph-ics treats as UTC")
    func utcIsEtc() throws {
        let name = try #require(VTimezoneMatcher.ianaZone(matching: VTimezoneTexts.fixed("+0000"), year: 2026))
        #expect(name.hasPrefix("Etc/"))
        #expect(ResolvedZone.iana(name) == .utc)
    }

    @Test("rules no IANA zone keeps match nothing")
    func noMatch() {
        #expect(VTimezoneMatcher.ianaZone(matching: VTimezoneTexts.fixed("+0123"), year: 2026) == nil)
        // Central European offsets, daylight time from the second Sunday of May.
        let oddDates = VTimezoneTexts.centralEurope(tzid: "Odd").replacing(
            "BYDAY=-1SU;BYMONTH=3", with: "BYDAY=2SU;BYMONTH=5")
        #expect(VTimezoneMatcher.ianaZone(matching: oddDates, year: 2026) == nil)
        // US dates with Central European offsets.
        let mixed = VTimezoneTexts.usEastern.replacing("-0500", with: "+0100").replacing("-0400", with: "+0200")
        #expect(VTimezoneMatcher.ianaZone(matching: mixed, year: 2026) == nil)
        // A rule that never occurs (30 February) is no error, and does not keep libical looking.
        let never = VTimezoneTexts.fixed("+0123", extra: "RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30")
        #expect(VTimezoneMatcher.ianaZone(matching: never, year: 2026) == nil)
        #expect(VTimezoneMatcher.offsets(of: never, from: 0, to: 86_400 * 365)?.map(\.offset) == [4980])
    }

    @Test(
        "malformed or hostile VTIMEZONEs give nil quickly and never crash",
        arguments: [
            // No TZOFFSETTO.
            VTimezoneTexts.make(
                """
                TZID:Broken
                BEGIN:STANDARD
                DTSTART:16010101T030000
                TZOFFSETFROM:+0200
                RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10
                END:STANDARD
                BEGIN:DAYLIGHT
                DTSTART:16010101T020000
                TZOFFSETFROM:+0100
                TZOFFSETTO:+0200
                RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3
                END:DAYLIGHT
                """),
            // No DTSTART.
            VTimezoneTexts.make("TZID:Broken\nBEGIN:STANDARD\nTZOFFSETFROM:+0100\nTZOFFSETTO:+0100\nEND:STANDARD"),
            // No TZID.
            VTimezoneTexts.make("BEGIN:STANDARD\nDTSTART:20000101T000000\nTZOFFSETTO:+0100\nEND:STANDARD"),
            // No STANDARD or DAYLIGHT at all.
            VTimezoneTexts.make("TZID:Empty"),
            // A value libical cannot read.
            VTimezoneTexts.fixed("+01x0"),
            // An offset of more than a day.
            VTimezoneTexts.fixed("+2500"),
            // A change every second since 1601 would never finish expanding.
            VTimezoneTexts.fixed("+0100", extra: "RRULE:FREQ=SECONDLY"),
            VTimezoneTexts.fixed("+0100", extra: "RRULE:FREQ=YEARLY;BYHOUR=1,2,3;BYMINUTE=0,1,2,3"),
            VTimezoneTexts.fixed("+0100", extra: "RRULE:FREQ=YEARLY;BYDAY=MO,TU,WE,TH,FR,SA,SU"),
            // Intervals libical cannot step by.
            VTimezoneTexts.fixed("+0123", extra: "RRULE:FREQ=YEARLY;INTERVAL=0;BYMONTH=3;BYDAY=-1SU"),
            VTimezoneTexts.fixed("+0123", extra: "RRULE:FREQ=YEARLY;INTERVAL=-1;BYMONTH=3;BYDAY=-1SU"),
            "",
            "BEGIN:VEVENT\r\nSUMMARY:no zone here\r\nEND:VEVENT\r\n",
            "BEGIN:VTIMEZONE\r\nTZID:Cut off\r\nBEGIN:STANDARD\r\nDTSTART:2000",
            "\u{0}\u{1}binary\u{FF}",
        ])
    func malformed(text: String) {
        let started = Date()
        #expect(VTimezoneMatcher.ianaZone(matching: text, year: 2026) == nil)
        #expect(VTimezoneMatcher.offsets(of: text, from: 0, to: 86_400 * 365) == nil)
        #expect(Date().timeIntervalSince(started) < 5)
    }

    @Test("a VTIMEZONE whose rules changed (a rule until 2006, a new one since 2007) matches in 2026 and in 2005")
    func changedRules() {
        let text = VTimezoneTexts.usEasternWithHistory
        #expect(VTimezoneMatcher.ianaZone(matching: text, year: 2026) == "America/New_York")
        #expect(VTimezoneMatcher.ianaZone(matching: text, year: 2005) == "America/New_York")
        // Indiana had no daylight saving time before 2006: it agrees in 2026 but not in 2005.
        #expect(VTimezoneMatcher.rank(text, year: 2026).contains("America/Indiana/Indianapolis"))
        #expect(!VTimezoneMatcher.rank(text, year: 2005).contains("America/Indiana/Indianapolis"))
        // The new rule alone says nothing about 2005.
        #expect(VTimezoneMatcher.ianaZone(matching: VTimezoneTexts.usEastern, year: 2005) != "America/New_York")
    }

    @Test("the VTIMEZONE may come inside a VCALENDAR; years outside 1900…2198 match nothing")
    func wrappingAndYears() {
        let calendar = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n" + VTimezoneTexts.usEastern + "END:VCALENDAR\r\n"
        #expect(VTimezoneMatcher.ianaZone(matching: calendar, year: 2026) == "America/New_York")
        #expect(VTimezoneMatcher.ianaZone(matching: VTimezoneTexts.usEastern, year: 1899) == nil)
        #expect(VTimezoneMatcher.ianaZone(matching: VTimezoneTexts.usEastern, year: 2199) == nil)
        #expect(VTimezoneMatcher.ianaZone(matching: VTimezoneTexts.usEastern, year: 2198) == "America/New_York")
    }

    @Test("offsets(of:) gives the VTIMEZONE's own offset at the start and each change, to the second")
    func ownOffsets() throws {
        let text = VTimezoneTexts.centralEurope(tzid: "(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna")
        let start = CivilDateTime(year: 2026, month: 1, day: 1).secondsSinceEpoch
        let end = CivilDateTime(year: 2027, month: 1, day: 1).secondsSinceEpoch
        let offsets = try #require(VTimezoneMatcher.offsets(of: text, from: start, to: end))
        let spring = CivilDateTime(year: 2026, month: 3, day: 29, hour: 1).secondsSinceEpoch
        let autumn = CivilDateTime(year: 2026, month: 10, day: 25, hour: 1).secondsSinceEpoch
        #expect(offsets.map(\.instant) == [start, spring, autumn])
        #expect(offsets.map(\.offset) == [3600, 7200, 3600])
        let berlin = try #require(ICalZone.named("Europe/Berlin"))
        for (instant, offset) in offsets { #expect(berlin.utcOffset(at: instant) == offset) }

        let sydney = try #require(VTimezoneMatcher.offsets(of: VTimezoneTexts.sydney, from: start, to: end))
        #expect(sydney.map(\.offset) == [39600, 36000, 39600])
        // 5 April 2026, 03:00 daylight time; 4 October 2026, 02:00 standard time.
        #expect(
            sydney.dropFirst().map(\.instant) == [
                CivilDateTime(year: 2026, month: 4, day: 4, hour: 16).secondsSinceEpoch,
                CivilDateTime(year: 2026, month: 10, day: 3, hour: 16).secondsSinceEpoch,
            ])

        let fixed = try #require(VTimezoneMatcher.offsets(of: VTimezoneTexts.fixed("+0123"), from: start, to: end))
        #expect(fixed.count == 1)
        #expect(fixed.first?.offset == 4980)
    }

    // MARK: The tzdata filter

    @Test("the TZif filter agrees with libical for every candidate zone over 2026 and 2027")
    func tzifAgreesWithLibical() {
        let candidates = VTimezoneMatcher.candidates
        #expect(candidates.count > 400)
        #expect(candidates.allSatisfy { $0.tzif != nil })
        let (start, end) = VTimezoneMatcher.window(of: 2026)
        let instants = Array(stride(from: start, to: end, by: 25 * 3600))
        for candidate in candidates {
            guard let tzif = candidate.tzif else { continue }
            #expect(
                instants.map { tzif.offset(at: $0) } == candidate.zone.libicalOffsets(at: instants),
                "\(candidate.zone.name)")
        }
    }

    @Test(
        "POSIX TZ rules of TZif footers give the right offset either side of each change",
        arguments: [
            ("CET-1CEST,M3.5.0,M10.5.0/3", CivilDateTime(year: 2030, month: 3, day: 31, hour: 1), 3600, 7200),
            ("CET-1CEST,M3.5.0,M10.5.0/3", CivilDateTime(year: 2030, month: 10, day: 27, hour: 1), 7200, 3600),
            ("EST5EDT,M3.2.0,M11.1.0", CivilDateTime(year: 2030, month: 3, day: 10, hour: 7), -18000, -14400),
            ("EST5EDT,M3.2.0,M11.1.0", CivilDateTime(year: 2030, month: 11, day: 3, hour: 6), -14400, -18000),
            // Negative transition time: Saturday 23:00 local.
            ("<-02>2<-01>,M3.5.0/-1,M10.5.0/0", CivilDateTime(year: 2030, month: 3, day: 31, hour: 1), -7200, -3600),
            // Negative daylight saving time (Dublin's winter is its "daylight" time).
            ("IST-1GMT0,M10.5.0,M3.5.0/1", CivilDateTime(year: 2030, month: 10, day: 27, hour: 1), 3600, 0),
            ("IST-1GMT0,M10.5.0,M3.5.0/1", CivilDateTime(year: 2030, month: 3, day: 31, hour: 1), 0, 3600),
            // Southern hemisphere with minutes: daylight time across the new year.
            (
                "<+1245>-12:45<+1345>,M9.5.0/2:45,M4.1.0/3:45", CivilDateTime(year: 2030, month: 4, day: 6, hour: 14),
                49500, 45900
            ),
            // Hours past 24: Saturday 24:00 local.
            ("<-04>4<-03>,M9.1.6/24,M4.1.6/24", CivilDateTime(year: 2030, month: 9, day: 8, hour: 4), -14400, -10800),
            ("<+0530>-5:30", CivilDateTime(year: 2030, month: 7, day: 1), 19800, 19800),
        ])
    func posixRules(rule: String, change: CivilDateTime, before: Int, after: Int) throws {
        let parsed = try #require(PosixTZRule(Array(rule.utf8)))
        #expect(parsed.offset(at: change.secondsSinceEpoch - 1) == before)
        #expect(parsed.offset(at: change.secondsSinceEpoch) == after)
    }

    @Test("POSIX day forms: Jn never counts 29 February, n does; malformed rules are refused")
    func posixDays() {
        let march1 = CivilDateTime(year: 2028, month: 3, day: 1).secondsSinceEpoch
        let february29 = CivilDateTime(year: 2028, month: 2, day: 29).secondsSinceEpoch
        #expect(PosixTZRule.midnight(of: .julian(60), in: 2028) == march1)
        #expect(PosixTZRule.midnight(of: .zeroBased(59), in: 2028) == february29)
        #expect(
            PosixTZRule.midnight(of: .julian(60), in: 2027)
                == CivilDateTime(year: 2027, month: 3, day: 1).secondsSinceEpoch)
        // The fifth Sunday is the last one when a month has only four.
        #expect(
            PosixTZRule.midnight(of: .monthWeekDay(month: 2, week: 5, weekday: 0), in: 2027)
                == CivilDateTime(year: 2027, month: 2, day: 28).secondsSinceEpoch)
        for rule in ["", "CET", "C-1", "CET-1CEST,M3.5.0", "CET-1CEST,M13.5.0,M10.5.0", "CET-1CEST,M3.5.0,M10.5.0/x"] {
            #expect(PosixTZRule(Array(rule.utf8)) == nil, "\(rule)")
        }
    }

    @Test("TZif files: abbreviations of the window; missing, truncated or foreign files are refused")
    func tzifFiles() throws {
        let directory = TZData.system.directory
        let berlin = try #require(TZifZone(path: directory + "/Europe/Berlin"))
        let (start, end) = VTimezoneMatcher.window(of: 2026)
        #expect(Set(berlin.abbreviations(from: start, to: end)) == ["CET", "CEST"])
        #expect(berlin.offset(at: CivilDateTime(year: 2100, month: 7, day: 1).secondsSinceEpoch) == 7200)
        let kolkata = try #require(TZifZone(path: directory + "/Asia/Kolkata"))
        #expect(kolkata.abbreviations(from: start, to: end).contains("IST"))
        #expect(TZifZone(path: directory + "/Mars/Olympus_Mons") == nil)
        let bytes = try #require(FileManager.default.contents(atPath: directory + "/Europe/Berlin"))
        #expect(TZifZone(bytes: Array(bytes.prefix(bytes.count / 2))) == nil)
        #expect(TZifZone(bytes: Array("TZif2 but nothing else".utf8)) == nil)
        #expect(TZifZone(bytes: []) == nil)
        // A version-1 file with one time type whose designation index points past the designations.
        var handMade = Array("TZif".utf8) + [UInt8](repeating: 0, count: 16)
        for count in [0, 0, 0, 0, 1, 4] { handMade += [0, 0, 0, UInt8(count)] }
        handMade += [0, 0, 0x0E, 0x10, 0, 200] + Array("ABC".utf8) + [0]
        let oneType = try #require(TZifZone(bytes: handMade))
        #expect(oneType.offset(at: 0) == 3600)
        #expect(oneType.abbreviations(from: 0, to: 86_400) == [""])
    }
}
