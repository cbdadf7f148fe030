import Foundation
import Testing

@testable import ICalBridge

/// Large calendars are parsed in chunks and planned on all cores; the result must be exactly what reading
/// the same events in small calendars (parsed whole, one core) gives.
@Suite(.tags(.zoneRules)) struct LargeImportTests {
    static let header = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//test//EN\r
        METHOD:PUBLISH\r
        BEGIN:VTIMEZONE\r
        TZID:Custom Berlin\r
        BEGIN:STANDARD\r
        DTSTART:19701025T030000\r
        RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\r
        TZOFFSETFROM:+0200\r
        TZOFFSETTO:+0100\r
        END:STANDARD\r
        BEGIN:DAYLIGHT\r
        DTSTART:19700329T020000\r
        RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\r
        TZOFFSETFROM:+0100\r
        TZOFFSETTO:+0200\r
        END:DAYLIGHT\r
        END:VTIMEZONE\r

        """

    /// Event `index` of the test set: every 97th is broken (no DTSTART), event 5 is a weekly series whose
    /// override sits near the end of the file (another chunk), the rest use the file's own zone or UTC.
    static func event(_ index: Int) -> String {
        let day = 1 + index % 28
        let start = index % 97 == 96 ? "" : "DTSTART;TZID=Custom Berlin:202612\(String(format: "%02d", day))T100000\r\n"
        let rule = index == 5 ? "RRULE:FREQ=WEEKLY;COUNT=10\r\n" : ""
        return "BEGIN:VEVENT\r\nUID:event-\(index)\r\nSUMMARY:Event \(index), with \"quotes\"\r\n" + start
            + "DURATION:PT1H\r\n" + rule + "DESCRIPTION:Line one\\nline two\r\nEND:VEVENT\r\n"
    }

    static let override = """
        BEGIN:VEVENT\r
        UID:event-5\r
        RECURRENCE-ID;TZID=Custom Berlin:20261213T100000\r
        DTSTART;TZID=Custom Berlin:20261213T120000\r
        DURATION:PT1H\r
        SUMMARY:Moved occurrence\r
        END:VEVENT\r

        """

    func plan(_ text: String) throws -> ImportPlan {
        try ICSToGraph.plan(Data(text.utf8), options: ImportOptions(file: "large.ics"))
    }

    @Test("a 1,200-event calendar read in chunks on all cores plans exactly like the same events read whole")
    func chunkedEqualsWhole() throws {
        let count = 1200
        let events = (0..<count).map(Self.event)
        let whole = try plan(Self.header + events.joined() + Self.override + "END:VCALENDAR\r\n")
        // The same events in calendars of 100 (below the size at which graph-ics splits), override last.
        var small = ""
        for first in stride(from: 0, to: count, by: 100) {
            small += Self.header + events[first..<(first + 100)].joined() + "END:VCALENDAR\r\n"
        }
        small += Self.header + Self.override + "END:VCALENDAR\r\n"
        let reference = try plan(small)

        let broken = (0..<count).filter { $0 % 97 == 96 }.count
        #expect(whole.events.count == count - broken)
        #expect(whole.sourceEvents == count + 1)
        #expect(try whole.jsonData() == reference.jsonData())
        #expect(whole.zoneResolutions == reference.zoneResolutions)
        #expect(whole.events.allSatisfy { $0.method == "PUBLISH" })

        // The override in the last chunk is attached to its series in the first.
        let series = try #require(whole.events.first { $0.sourceUID == "event-5" })
        #expect(series.payload.recurrence != nil)
        #expect(series.followUps.count == 1)

        // Errors name the event and the line of its BEGIN:VEVENT, counted in the whole file.
        let errors = whole.diagnostics.filter { $0.severity == .error }
        #expect(errors.count == broken)
        let firstBroken = try #require(errors.first { $0.eventID == "event-96" })
        #expect(firstBroken.line == Self.line(ofEvent: 96, in: Self.header + events.joined()))
    }

    @Test("a VEVENT without END:VEVENT costs only a warning: it and every event after it still convert")
    func missingEndIsMended() throws {
        var events = (0..<40).map(Self.event)
        events[6] = events[6].replacingOccurrences(of: "END:VEVENT\r\n", with: "")
        events[39] = events[39].replacingOccurrences(of: "END:VEVENT\r\n", with: "")
        let text = Self.header + events.joined() + "END:VCALENDAR\r\n"
        let calendar = try #require(ICSDocument.calendarTexts(in: text).first)
        #expect(calendar.unterminated == [6, 39])
        let plan = try plan(text)
        #expect(plan.events.map(\.sourceUID) == (0..<40).map { "event-\($0)" })
        let warnings = plan.diagnostics.filter { $0.message.contains("no END:VEVENT") }
        #expect(warnings.map(\.line) == [6, 39].map { Self.line(ofEvent: $0, in: text) })
    }

    @Test("an END:VEVENT without its BEGIN leaves the calendar to libical's reading as a whole")
    func strayEndIsReadWhole() throws {
        let text = Self.header + "END:VEVENT\r\n" + (0..<300).map(Self.event).joined() + "END:VCALENDAR\r\n"
        let calendar = try #require(ICSDocument.calendarTexts(in: text).first)
        #expect(calendar.eventRanges == nil)
        #expect(calendar.split() == nil)
        #expect(throws: Never.self) { try plan(text) }
    }

    @Test("the calendars cut from a UTF-8 input are slices of its bytes, not copies: a large file is held once")
    func calendarsShareTheInputsBytes() throws {
        let first = Self.header + (0..<300).map(Self.event).joined() + "END:VCALENDAR\r\n"
        let second = Self.header + (300..<310).map(Self.event).joined() + "END:VCALENDAR\r\n"
        // A byte order mark first: the calendars are slices of a slice.
        let data = Data(("\u{FEFF}" + first + second).utf8)
        let calendars = try ICSDocument.calendars(of: data, file: "big.ics").calendars
        try #require(calendars.count == 2)
        let starts = [3, 3 + first.utf8.count]
        for (calendar, (start, text)) in zip(calendars, zip(starts, [first, second])) {
            #expect(String(decoding: calendar.text, as: UTF8.self) == text)
            let shared = data.withUnsafeBytes { input in
                calendar.text.withUnsafeBytes { $0.baseAddress == input.baseAddress.map { $0 + start } }
            }
            #expect(shared)
        }
        let last = "BEGIN:VCALENDAR\r\n" + Self.event(299) + "END:VCALENDAR\r\n"
        #expect(calendars[0].eventsText(299..<300) == Array(last.utf8))
    }

    /// The 1-based line of `BEGIN:VEVENT` of event `index`.
    static func line(ofEvent index: Int, in text: String) -> Int {
        guard let range = text.range(of: "BEGIN:VEVENT\r\nUID:event-\(index)\r\n") else { return -1 }
        return text[..<range.lowerBound].filter { $0 == "\n" || $0 == "\r\n" }.count + 1
    }
}
