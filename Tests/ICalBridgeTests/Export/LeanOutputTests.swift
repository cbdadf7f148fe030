import Foundation
import Testing

@testable import ICalBridge

/// What every reader gets the same: nothing repeated or empty written, no property a common reader
/// trips over left out, and the same bytes for the same events.
@Suite struct LeanOutputTests {
    static let times =
        #""start":{"dateTime":"2026-12-01T10:00:00","timeZone":"UTC"},"end":{"dateTime":"2026-12-01T11:00:00","timeZone":"UTC"}"#

    func event(_ fields: String) throws -> [String] {
        let (text, _) = try Fixtures.convert(Data(#"{"value":[{"id":"e",\#(Self.times),\#(fields)}]}"#.utf8))
        return try #require(Fixtures.events(text).first)
    }

    @Test("an event without subject has an empty SUMMARY (calcurse crashes without one)")
    func emptySummary() throws {
        for fields in [#""subject":null"#, #""subject":"""#, #""bodyPreview":"x""#] {
            #expect(try event(fields).filter { $0.hasPrefix("SUMMARY") } == ["SUMMARY:"], "\(fields)")
        }
    }

    @Test("a zero-length timed event has DURATION:PT0S and no DTEND (khal shows no DTEND as an hour)")
    func zeroLength() throws {
        let json =
            #"{"value":[{"id":"z","start":{"dateTime":"2026-12-01T10:00:00","timeZone":"UTC"},"end":{"dateTime":"2026-12-01T10:00:00","timeZone":"UTC"}}]}"#
        let (text, _) = try Fixtures.convert(Data(json.utf8))
        let event = try #require(Fixtures.events(text).first)
        #expect(Fixtures.value("DURATION", in: event) == "PT0S")
        #expect(Fixtures.line("DTEND", in: event) == nil)
        // libical reads it as ending when it starts.
        let parsed = try #require(ICalComponent.parse(text))
        #expect(parsed.parserErrors.isEmpty, "\(parsed.parserErrors)")
    }

    @Test(
        "the reminder's TRIGGER is in the largest unit that holds it exactly",
        arguments: [
            (15, "-PT15M"), (90, "-PT90M"), (60, "-PT1H"), (1080, "-PT18H"), (1440, "-P1D"), (2880, "-P2D"),
            (10_080, "-P1W"), (0, "PT0S"),
        ])
    func trigger(minutes: Int, trigger: String) throws {
        let event = try event(#""isReminderOn":true,"reminderMinutesBeforeStart":\#(minutes)"#)
        #expect(Fixtures.value("TRIGGER", in: event) == trigger)
    }

    @Test("an HTML body without text (Outlook's empty page) writes no X-ALT-DESC; one with text does")
    func emptyHTML() throws {
        let empty =
            #"<html>\r\n<head>\r\n<meta http-equiv=\"Content-Type\" content=\"text/html; charset=utf-8\">\r\n</head>\r\n<body>\r\n<div></div>\r\n</body>\r\n</html>\r\n"#
        let blank = try event(#""body":{"contentType":"html","content":"\#(empty)"}"#)
        #expect(!blank.contains { $0.hasPrefix("X-ALT-DESC") || $0.hasPrefix("DESCRIPTION") })
        let full = try event(#""body":{"contentType":"html","content":"<html><body><p>Agenda</p></body></html>"}"#)
        #expect(Fixtures.value("DESCRIPTION", in: full) == "Agenda")
        #expect(Fixtures.line("X-ALT-DESC", in: full) != nil)
    }

    @Test("a location whose name holds the street (or the whole address) does not repeat it")
    func locationStreet() throws {
        let address =
            #""address":{"street":"Kurfürstendamm 21","city":"Berlin","postalCode":"10719","countryOrRegion":"Germany"}"#
        let street = try event(#""location":{"displayName":"Contoso, Kurfürstendamm 21",\#(address)}"#)
        #expect(Fixtures.value("LOCATION", in: street) == #"Contoso\, Kurfürstendamm 21\, 10719 Berlin\, Germany"#)
        let whole = try event(
            #""location":{"displayName":"Kurfürstendamm 21, 10719 Berlin, Germany",\#(address)}"#)
        #expect(Fixtures.value("LOCATION", in: whole) == #"Kurfürstendamm 21\, 10719 Berlin\, Germany"#)
        let other = try event(#""location":{"displayName":"Contoso",\#(address)}"#)
        #expect(Fixtures.value("LOCATION", in: other) == #"Contoso\, Kurfürstendamm 21\, 10719 Berlin\, Germany"#)
    }

    @Test("DTSTAMP is the event's last revision: lastModifiedDateTime, else createdDateTime, else the option")
    func stamp() throws {
        let modified = try event(
            #""createdDateTime":"2026-11-01T10:00:00Z","lastModifiedDateTime":"2026-11-02T08:15:42.1234567Z""#)
        #expect(Fixtures.value("DTSTAMP", in: modified) == "20261102T081542Z")
        let created = try event(#""createdDateTime":"2026-11-01T10:00:00Z""#)
        #expect(Fixtures.value("DTSTAMP", in: created) == "20261101T100000Z")
        // Fixtures.convert passes 1_796_083_200 (2026-12-01T00:00:00Z) as the option.
        #expect(Fixtures.value("DTSTAMP", in: try event(#""subject":"s""#)) == "20261201T000000Z")
        #expect(ExportOptions().timestamp == 0)
    }

    @Test("two conversions of the same events, a second apart and with default options, give the same bytes")
    func stableBytes() throws {
        let data = try Fixtures.data("graph/sample-week.json")
        func convert() throws -> [UInt8] {
            var buffer = ByteBuffer()
            _ = try GraphToICS.convert(data, options: ExportOptions(file: "sample-week.json"), into: &buffer)
            return buffer.bytes
        }
        let first = try convert()
        Thread.sleep(forTimeInterval: 1.1)
        #expect(try convert() == first)
    }

    @Test("the calendar's name is NAME and X-WR-CALNAME when known, and left out otherwise")
    func calendarName() throws {
        func header(_ name: String?) throws -> [String] {
            var buffer = ByteBuffer()
            let json = Data(#"{"value":[{"id":"e",\#(Self.times)}]}"#.utf8)
            _ = try GraphToICS.convert(json, options: ExportOptions(calendarName: name), into: &buffer)
            let lines = Fixtures.lines(String(decoding: buffer.bytes, as: UTF8.self))
            return Array(lines.prefix { $0 != "BEGIN:VEVENT" })
        }
        let named = try header("Team; Berlin, 2026")
        #expect(named.contains(#"NAME:Team\; Berlin\, 2026"#))
        #expect(named.contains(#"X-WR-CALNAME:Team\; Berlin\, 2026"#))
        for unnamed in [try header(nil), try header("  ")] {
            #expect(!unnamed.contains { $0.hasPrefix("NAME") || $0.hasPrefix("X-WR-CALNAME") })
        }
    }

    @Test("an export without events is a VCALENDAR libical reads without complaint")
    func noEvents() throws {
        var buffer = ByteBuffer()
        let summary = try GraphToICS.convert(
            Data(#"{"value":[]}"#.utf8), options: ExportOptions(calendarName: "Empty"), into: &buffer)
        #expect(summary.wroteCalendar)
        let text = String(decoding: buffer.bytes, as: UTF8.self)
        let lines = Fixtures.lines(text)
        #expect(lines.first == "BEGIN:VCALENDAR" && lines.last == "END:VCALENDAR")
        #expect(lines.contains("VERSION:2.0") && lines.contains { $0.hasPrefix("PRODID:") })
        let parsed = try #require(ICalComponent.parse(text))
        #expect(parsed.parserErrors.isEmpty, "\(parsed.parserErrors)")
        #expect(parsed.events.isEmpty)
    }
}
