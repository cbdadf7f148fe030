import Foundation
import Testing

@testable import ICalBridge

@Suite struct HostileInputTests {
    func convert(_ events: String) throws -> (events: [[String]], summary: GraphToICS.Summary) {
        let (text, summary) = try Fixtures.convert(Data(#"{"value":[\#(events)]}"#.utf8))
        return (Fixtures.events(text), summary)
    }

    // The limit catches a hang (a quadratic or worse reading would take hours), not a speed: the sanitizer
    // run starts every test at once on 2 cores, where a linear one has taken four minutes of wall time.
    @Test("a far-off year is written in UTC and does not make libical recompute zones", .timeLimit(.minutes(10)))
    func farOffYear() throws {
        let (events, summary) = try convert(
            #"""
            {"id":"typo","start":{"dateTime":"9026-01-01T10:00:00","timeZone":"UTC"},"end":{"dateTime":"9026-01-01T11:00:00","timeZone":"UTC"},
             "originalStartTimeZone":"W. Europe Standard Time"},
            {"id":"normal","start":{"dateTime":"2026-01-01T10:00:00","timeZone":"UTC"},"end":{"dateTime":"2026-01-01T11:00:00","timeZone":"UTC"},
             "originalStartTimeZone":"W. Europe Standard Time"},
            {"id":"local","start":{"dateTime":"9026-01-01T10:00:00","timeZone":"W. Europe Standard Time"},
             "end":{"dateTime":"9026-01-01T11:00:00","timeZone":"W. Europe Standard Time"}}
            """#
        )
        let typo = try #require(events.first { Fixtures.value("UID", in: $0) == "typo" })
        #expect(Fixtures.line("DTSTART", in: typo) == "DTSTART:90260101T100000Z")
        let normal = try #require(events.first { Fixtures.value("UID", in: $0) == "normal" })
        #expect(Fixtures.line("DTSTART", in: normal) == "DTSTART;TZID=Europe/Berlin:20260101T110000")
        let error = try #require(summary.diagnostics.first { $0.severity == .error })
        #expect(error.eventID == "local")
        #expect(error.message.contains("1900–2199"))
    }

    @Test("an event that lasts no time has no DTEND (RFC 5545 wants DTEND after DTSTART)")
    func zeroLength() throws {
        let (events, _) = try convert(
            #"{"id":"z","start":{"dateTime":"2026-12-01T10:00:00","timeZone":"UTC"},"end":{"dateTime":"2026-12-01T10:00:00","timeZone":"UTC"}}"#
        )
        let event = try #require(events.first)
        #expect(Fixtures.line("DTSTART", in: event) == "DTSTART:20261201T100000Z")
        #expect(Fixtures.line("DTEND", in: event) == nil)
    }

    // The limit catches a hang (a quadratic or worse reading would take hours), not a speed: the sanitizer
    // run starts every test at once on 2 cores, where a linear one has taken four minutes of wall time.
    @Test("an HTML body full of unclosed comments converts in linear time", .timeLimit(.minutes(10)))
    func unclosedComments() {
        let html = "<p>Hi</p>" + String(repeating: "<!-- x>", count: 200_000)
        #expect(HTMLText.plainText(fromHTML: html) == "Hi")
    }

    @Test("JSON numbers follow JSON's grammar", arguments: ["01", "1.", ".5", "+1", "1e", "--1", "1.2.3", "eee"])
    func badNumbers(number: String) {
        let json =
            #"{"value":[{"id":"x","extra":\#(number),"start":{"dateTime":"2026-12-01T10:00:00","timeZone":"UTC"}}]}"#
        #expect(throws: ICalBridgeError.self) {
            _ = try GraphEventDocument.decode(Data(json.utf8), file: "n.json")
        }
    }

    @Test("valid JSON numbers are read", arguments: ["0", "-0.5", "52.517", "1.5e3", "1E-2"])
    func goodNumbers(number: String) throws {
        let json = #"{"id":"x","location":{"coordinates":{"latitude":\#(number),"longitude":13}}}"#
        let document = try GraphEventDocument.decode(Data(json.utf8), file: "n.json")
        #expect(document.events.first?.location?.coordinates?.latitude == Double(number))
    }
}
