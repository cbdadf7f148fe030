import Foundation
import Testing

/// What the built binary writes for the shapes other calendar software trips over (issue 13, parts C–E),
/// end to end: Graph JSON through `graph-ics convert` into `.ics`, and `.ics` through
/// `convert --to graph-json` and back.
@Suite struct OutputShapeCommandTests {
    /// One Graph event with `fields` added, 10:00–11:00 UTC (or other times when `fields` gives them).
    static func calendarView(_ events: [String]) -> Data {
        Data(#"{"value":[\#(events.joined(separator: ","))]}"#.utf8)
    }

    static func event(_ id: String, _ fields: String, start: String = "10:00:00", end: String = "11:00:00") -> String {
        #"{"id":"\#(id)","start":{"dateTime":"2026-12-01T\#(start)","timeZone":"UTC"},"#
            + #""end":{"dateTime":"2026-12-01T\#(end)","timeZone":"UTC"},\#(fields)}"#
    }

    /// The unfolded lines of each VEVENT in `text`.
    static func events(_ text: String) -> [[String]] {
        var events: [[String]] = []
        var current: [String]?
        for line in text.replacingOccurrences(of: "\r\n ", with: "").components(separatedBy: "\r\n") {
            if line == "BEGIN:VEVENT" {
                current = []
            } else if line == "END:VEVENT", let finished = current {
                events.append(finished)
                current = nil
            } else {
                current?.append(line)
            }
        }
        return events
    }

    func convert(_ input: Data, _ arguments: [String] = []) throws -> ProcessResult {
        let result = try graphICS(["convert", "-"] + arguments, stdin: .pipe(input))
        #expect(result.status == 0, "stderr: \(result.err)")
        return result
    }

    @Test("an event without subject, a zero-length one, categories, a reminder, an empty HTML body and a street")
    func shapesOtherReadersTripOver() throws {
        let emptyHTML = #"<html><head></head><body><div></div></body></html>"#
        let input = Self.calendarView([
            Self.event(
                "a",
                #""subject":null,"categories":["Red category","Blue category"],"isReminderOn":true,"#
                    + #""reminderMinutesBeforeStart":1080,"body":{"contentType":"html","content":"\#(emptyHTML)"}"#),
            Self.event("b", #""subject":"Stand-up""#, end: "10:00:00"),
            Self.event(
                "c",
                #""subject":"Workshop","location":{"displayName":"Hall 3, Main Street 1","#
                    + #""address":{"street":"Main Street 1","city":"Springfield"}}"#),
        ])
        let events = Self.events(try convert(input).out)
        #expect(events.count == 3)
        let untitled = events[0]
        #expect(untitled.filter { $0.hasPrefix("SUMMARY") } == ["SUMMARY:"])
        #expect(untitled.filter { $0.hasPrefix("CATEGORIES") } == ["CATEGORIES:Red category,Blue category"])
        #expect(untitled.contains("TRIGGER:-PT18H"))
        #expect(!untitled.contains { $0.hasPrefix("X-ALT-DESC") })
        let zeroLength = events[1]
        #expect(zeroLength.contains("DURATION:PT0S"))
        #expect(!zeroLength.contains { $0.hasPrefix("DTEND") })
        let location = try #require(events[2].first { $0.hasPrefix("LOCATION") })
        #expect(location.components(separatedBy: "Main Street 1").count == 2, "\(location)")
    }

    @Test("two conversions of the same events a second apart are byte-identical; DTSTAMP is the last change")
    func stableBytes() throws {
        let input = Self.calendarView([
            Self.event("a", #""subject":"Review","lastModifiedDateTime":"2026-11-20T08:15:30.1234567Z""#)
        ])
        let first = try convert(input)
        Thread.sleep(forTimeInterval: 1.1)
        let second = try convert(input)
        #expect(first.stdout == second.stdout)
        #expect(Self.events(first.out).first?.contains("DTSTAMP:20261120T081530Z") == true)
    }

    @Test("an export with no events is still a whole calendar")
    func noEvents() throws {
        let text = try convert(Self.calendarView([])).out
        #expect(text.hasPrefix("BEGIN:VCALENDAR\r\n"))
        #expect(text.hasSuffix("END:VCALENDAR\r\n"))
        #expect(text.contains("\r\nVERSION:2.0\r\n") && text.contains("\r\nPRODID:"))
    }

    @Test("convert --to graph-json | convert - keeps the source UID and each end's own zone")
    func roundTripThroughGraphJSON() throws {
        let ics = """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//test//EN\r
            BEGIN:VEVENT\r
            UID:flight-ba986@example.com\r
            DTSTAMP:20261101T000000Z\r
            SUMMARY:BA 986\r
            DTSTART;TZID=Europe/Berlin:20261201T184500\r
            DTEND;TZID=Europe/London:20261201T193000\r
            END:VEVENT\r
            END:VCALENDAR\r

            """
        let json = try convert(Data(ics.utf8), ["--to", "graph-json", "--tz", "UTC"])
        let back = try #require(Self.events(try convert(json.stdout).out).first)
        #expect(back.contains("UID:flight-ba986@example.com"))
        #expect(back.contains("DTSTART;TZID=Europe/Berlin:20261201T184500"))
        #expect(back.contains("DTEND;TZID=Europe/London:20261201T193000"))
    }

    @Test("a path-style TZID of Evolution's kind is its IANA zone")
    func pathStyleTZID() throws {
        let ics = """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//test//EN\r
            BEGIN:VEVENT\r
            UID:evolution-1@example.com\r
            DTSTAMP:20261101T000000Z\r
            SUMMARY:Planning\r
            DTSTART;TZID=/softwarestudio.org/Olson_20011030_5/America/Chicago:20260701T090000\r
            DTEND;TZID=/softwarestudio.org/Olson_20011030_5/America/Chicago:20260701T100000\r
            END:VEVENT\r
            END:VCALENDAR\r

            """
        let result = try convert(Data(ics.utf8), ["--to", "graph-json", "--tz", "UTC"])
        let object = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let payload = try #require((object["value"] as? [[String: Any]])?.first)
        #expect(
            payload["start"] as? [String: String] == [
                "dateTime": "2026-07-01T09:00:00", "timeZone": "Central Standard Time",
            ])
    }

    @Test("every HTML5 named character reference in an HTML body is decoded in DESCRIPTION")
    func htmlEntities() throws {
        let body = #"<p>Jos&eacute; &Aacute;ngel &euml;&ntilde;&hellip; &NotEqualTilde;&amp;</p>"#
        let input = Self.calendarView([
            Self.event("a", #""subject":"Names","body":{"contentType":"html","content":"\#(body)"}"#)
        ])
        let event = try #require(Self.events(try convert(input).out).first)
        let description = try #require(event.first { $0.hasPrefix("DESCRIPTION:") })
        #expect(description == "DESCRIPTION:José Ángel ëñ… \u{2242}\u{0338}&", "\(description)")
    }
}
