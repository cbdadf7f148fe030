import Foundation
import Testing

@testable import ICalBridge

@Suite struct GraphTimestampTests {
    @Test("Graph's seven-digit date-times parse exactly, with and without an offset")
    func parsesGraphForms() throws {
        let local = try #require(GraphTimestamp.parse("2026-12-01T08:00:00.1234567"))
        #expect(local.civil == CivilDateTime(year: 2026, month: 12, day: 1, hour: 8))
        #expect(local.ticks == 1_234_567)
        #expect(local.utcOffsetSeconds == nil)
        let utc = try #require(GraphTimestamp.parse("2026-11-01T10:00:00.12Z"))
        #expect(utc.ticks == 1_200_000)
        #expect(utc.instant == 1_793_527_200)
        let created = try #require(GraphTimestamp.parse("2026-11-01T10:00:00.1234567Z"))
        #expect(created.instant == utc.instant)
        #expect(created.ticks == 1_234_567)
        let offset = try #require(GraphTimestamp.parse("2026-11-01T11:00:00+01:00"))
        #expect(offset.instant == utc.instant)
        #expect(GraphTimestamp.parse("2026-12-01")?.civil == CivilDateTime(year: 2026, month: 12, day: 1))
    }

    @Test(
        "impossible dates and malformed strings are refused",
        arguments: [
            "2026-13-45T99:00:00", "2026-02-29T00:00:00", "2026-12-01T24:00:00", "2026-12-01T08:00:00.", "tomorrow", "",
            "2026-12-01T08:00:00Zjunk", "2026-02-30T10:00:00.0000000", "2026-12-01T08:00:00.00000x0",
            "2026-12-01T08:00:00.0000000X",
        ])
    func refusesInvalid(text: String) {
        #expect(GraphTimestamp.parse(text) == nil)
    }

    @Test("civil arithmetic round-trips over four centuries and knows weekdays")
    func civilRoundTrip() {
        var seconds: Int64 = -2_208_988_800  // 1900-01-01
        while seconds < 10_413_792_000 {  // 2300-01-01
            #expect(CivilDateTime(secondsSinceEpoch: seconds).secondsSinceEpoch == seconds)
            seconds += 86_400 * 37 + 3_671
        }
        #expect(CivilDateTime(year: 2026, month: 11, day: 30).isoWeekday == 1)
        #expect(CivilDateTime(year: 2024, month: 2, day: 29).isValid)
    }
}

@Suite struct GraphDocumentTests {
    @Test("the three accepted shapes decode: value array, single event, bare array")
    func shapes() throws {
        let event = #"{"id":"A","subject":"S","start":{"dateTime":"2026-12-01T08:00:00.0000000","timeZone":"UTC"}}"#
        for json in [#"{"value":[\#(event)]}"#, event, "[\(event)]"] {
            let document = try GraphEventDocument.decode(Data(json.utf8), file: "x.json")
            #expect(document.events.map(\.id) == ["A"])
        }
        let empty = try GraphEventDocument.decode(Data(#"{"value":[]}"#.utf8), file: "x.json")
        #expect(empty.events.isEmpty && empty.diagnostics.isEmpty)
    }

    @Test("a bad event names its JSON key path and id; the others still decode")
    func perEventErrors() throws {
        let json = #"""
            {"value":[{"id":"good","start":{"dateTime":"2026-12-01T08:00:00","timeZone":"UTC"}},
                      {"id":"bad","subject":"Broken","isAllDay":"yes"}, null]}
            """#
        let document = try GraphEventDocument.decode(Data(json.utf8), file: "week.json")
        #expect(document.events.map(\.id) == ["good"])
        #expect(document.count == 3)
        let first = try #require(document.diagnostics.first)
        #expect(first.eventID == "bad")
        #expect(first.description.contains("week.json"))
        #expect(first.description.contains("value[1].isAllDay"))
        #expect(first.description.contains("Broken"))
    }

    @Test(
        "input that is not usable as a whole throws badInput naming the file",
        arguments: [
            "", "not json at all", #"{"value": 5}"#, #"{"foo": 1}"#, "42", String(repeating: "[", count: 200_000),
            #"{"value":[{"id":"x","extra":"# + String(repeating: "[", count: 100) + "]]}]}",
            #"{"value":[{"id":"x","subject":"unterminated}]}"#,
        ])
    func wholeFileErrors(json: String) {
        #expect {
            _ = try GraphEventDocument.decode(Data(json.utf8), file: "in.json")
        } throws: { error in
            guard let error = error as? ICalBridgeError else { return false }
            return error.code == .badInput && error.description.hasPrefix("in.json")
        }
    }
}

@Suite struct EventEncoderTests {
    func convert(_ events: String, zone: ResolvedZone? = nil) throws -> (
        events: [[String]], summary: GraphToICS.Summary
    ) {
        let (text, summary) = try Fixtures.convert(Data(#"{"value":[\#(events)]}"#.utf8), zone: zone)
        return (Fixtures.events(text), summary)
    }

    @Test("all-day events are DATE values with an exclusive end, never shifted by zones")
    func allDay() throws {
        let (events, _) = try convert(
            #"""
            {"id":"d","isAllDay":true,"start":{"dateTime":"2026-12-24T00:00:00.0000000","timeZone":"Tokyo Standard Time"},
             "end":{"dateTime":"2026-12-27T00:00:00.0000000","timeZone":"Tokyo Standard Time"},"originalStartTimeZone":"Tokyo Standard Time"}
            """#,
            zone: .iana("America/Los_Angeles")
        )
        let event = try #require(events.first)
        #expect(Fixtures.line("DTSTART", in: event) == "DTSTART;VALUE=DATE:20261224")
        #expect(Fixtures.line("DTEND", in: event) == "DTEND;VALUE=DATE:20261227")
    }

    @Test("a timed event keeps its instant and shows in its original zone; a flight keeps both zones")
    func zones() throws {
        let (events, _) = try convert(
            #"""
            {"id":"f","start":{"dateTime":"2026-12-01T09:00:00.0000000","timeZone":"UTC"},
             "end":{"dateTime":"2026-12-01T17:30:00.0000000","timeZone":"UTC"},
             "originalStartTimeZone":"W. Europe Standard Time","originalEndTimeZone":"Eastern Standard Time"}
            """#
        )
        let event = try #require(events.first)
        #expect(Fixtures.line("DTSTART", in: event) == "DTSTART;TZID=Europe/Berlin:20261201T100000")
        #expect(Fixtures.line("DTEND", in: event) == "DTEND;TZID=America/New_York:20261201T123000")
    }

    @Test("times in the repeated hour are written in UTC, the hour before it in local time")
    func foldInUTC() throws {
        let (events, _) = try convert(
            #"""
            {"id":"a","start":{"dateTime":"2026-10-25T01:30:00","timeZone":"UTC"},"end":{"dateTime":"2026-10-25T02:30:00","timeZone":"UTC"},
             "originalStartTimeZone":"W. Europe Standard Time"},
            {"id":"b","start":{"dateTime":"2026-10-24T23:30:00","timeZone":"UTC"},"end":{"dateTime":"2026-10-25T00:00:00","timeZone":"UTC"},
             "originalStartTimeZone":"W. Europe Standard Time"}
            """#
        )
        #expect(events.count == 2)
        let early = try #require(events.first { Fixtures.value("UID", in: $0) == "b" })
        let folded = try #require(events.first { Fixtures.value("UID", in: $0) == "a" })
        #expect(Fixtures.line("DTSTART", in: early) == "DTSTART;TZID=Europe/Berlin:20261025T013000")
        #expect(Fixtures.line("DTSTART", in: folded) == "DTSTART:20261025T013000Z")
        #expect(Fixtures.line("DTEND", in: folded) == "DTEND;TZID=Europe/Berlin:20261025T033000")
    }

    @Test(
        "bad events become errors naming them; good ones still convert",
        arguments: [
            (#"{"id":"x","subject":"No start"}"#, "start is missing"),
            (
                #"{"id":"x","start":{"dateTime":"2026-12-01T10:00:00","timeZone":"Mars Standard Time"}}"#,
                "Mars Standard Time"
            ),
            (
                #"{"id":"x","start":{"dateTime":"2026-12-01T10:00:00","timeZone":"UTC"},"end":{"dateTime":"2026-12-01T09:00:00","timeZone":"UTC"}}"#,
                "before it starts"
            ),
            (#"{"id":"x","start":{"dateTime":"2026-12-01T25:00:00","timeZone":"UTC"}}"#, "2026-12-01T25:00:00"),
        ])
    func perEventErrors(bad: String, message: String) throws {
        let good =
            #"{"id":"ok","start":{"dateTime":"2026-12-01T10:00:00","timeZone":"UTC"},"end":{"dateTime":"2026-12-01T11:00:00","timeZone":"UTC"}}"#
        let (events, summary) = try convert(good + "," + bad)
        #expect(events.count == 1)
        let error = try #require(summary.diagnostics.first { $0.severity == .error })
        #expect(error.eventID == "x")
        #expect(error.description.contains(message), "\(error)")
    }

    @Test("sentinel original zones fall back to --tz, then UTC, with a warning")
    func sentinelFallback() throws {
        let event =
            #"{"id":"s","start":{"dateTime":"2026-12-01T10:00:00","timeZone":"UTC"},"end":{"dateTime":"2026-12-01T11:00:00","timeZone":"UTC"},"originalStartTimeZone":"tzone://Microsoft/Custom"}"#
        let (utcEvents, utcSummary) = try convert(event)
        #expect(Fixtures.line("DTSTART", in: try #require(utcEvents.first)) == "DTSTART:20261201T100000Z")
        #expect(utcSummary.diagnostics.contains { $0.severity == .warning && $0.message.contains("--tz") })
        let (berlinEvents, _) = try convert(event, zone: .iana("Europe/Berlin"))
        #expect(
            Fixtures.line("DTSTART", in: try #require(berlinEvents.first))
                == "DTSTART;TZID=Europe/Berlin:20261201T110000")
    }

    @Test("text is escaped so that it cannot add properties; HTML bodies become text plus X-ALT-DESC")
    func textSafety() throws {
        let (events, _) = try convert(
            #"""
            {"id":"t","subject":"Lunch\r\nATTENDEE:mailto:evil@example.com","start":{"dateTime":"2026-12-01T10:00:00","timeZone":"UTC"},
             "body":{"contentType":"html","content":"<html><head><style>p{}</style></head><body><p>Hi, all;</p><ul><li>one &amp; two</li></ul></body></html>"},
             "location":{"displayName":"Room 1; Floor \\2"}}
            """#
        )
        let event = try #require(events.first)
        #expect(!event.contains { $0.hasPrefix("ATTENDEE") })
        #expect(Fixtures.value("SUMMARY", in: event) == #"Lunch\nATTENDEE:mailto:evil@example.com"#)
        #expect(Fixtures.value("DESCRIPTION", in: event) == #"Hi\, all\;\n- one & two"#)
        #expect(Fixtures.line("X-ALT-DESC", in: event)?.contains("FMTTYPE=text/html") == true)
        #expect(Fixtures.value("LOCATION", in: event) == #"Room 1\; Floor \\2"#)
    }

    @Test("mapping rows: attendees, organizer, class, busy status, priority, categories, alarm, cancelled")
    func mappingRows() throws {
        let (events, _) = try convert(
            #"""
            {"id":"m","iCalUId":"uid-1","start":{"dateTime":"2026-12-01T10:00:00","timeZone":"UTC"},"end":{"dateTime":"2026-12-01T11:00:00","timeZone":"UTC"},
             "sensitivity":"personal","showAs":"oof","importance":"high","categories":["Red","Blue, Green"],"isCancelled":true,
             "isReminderOn":true,"reminderMinutesBeforeStart":90,
             "organizer":{"emailAddress":{"name":"Megan \"MB\" Bowen","address":"megan@contoso.com"}},
             "attendees":[{"type":"optional","status":{"response":"tentativelyAccepted"},"emailAddress":{"name":"Ana","address":"ana@contoso.com"}},
                          {"type":"resource","status":{"response":"accepted"},"emailAddress":{"name":"Room 4","address":"room4@contoso.com"}}]}
            """#
        )
        let event = try #require(events.first)
        #expect(Fixtures.value("UID", in: event) == "uid-1")
        #expect(Fixtures.line("ORGANIZER", in: event) == "ORGANIZER;CN=Megan ^'MB^' Bowen:mailto:megan@contoso.com")
        let attendees = event.filter { $0.hasPrefix("ATTENDEE") }
        #expect(attendees.count == 2)
        #expect(attendees[0].contains("ROLE=OPT-PARTICIPANT") && attendees[0].contains("PARTSTAT=TENTATIVE"))
        #expect(attendees[1].contains("CUTYPE=RESOURCE") && attendees[1].contains("PARTSTAT=ACCEPTED"))
        #expect(Fixtures.value("CLASS", in: event) == "PRIVATE")
        #expect(Fixtures.value("X-GRAPH-ICS-SENSITIVITY", in: event) == "personal")
        #expect(Fixtures.value("X-MICROSOFT-CDO-BUSYSTATUS", in: event) == "OOF")
        #expect(Fixtures.value("TRANSP", in: event) == "OPAQUE")
        #expect(Fixtures.value("PRIORITY", in: event) == "1")
        #expect(event.filter { $0.hasPrefix("CATEGORIES") } == ["CATEGORIES:Red", #"CATEGORIES:Blue\, Green"#])
        #expect(Fixtures.value("STATUS", in: event) == "CANCELLED")
        #expect(Fixtures.value("TRIGGER", in: event) == "-PT90M")
        #expect(Fixtures.value("X-GRAPH-ICS-EVENT-ID", in: event) == "m")
    }

    @Test("events come out ordered by start, then UID")
    func ordering() throws {
        let (events, _) = try convert(
            #"""
            {"id":"3","iCalUId":"b","start":{"dateTime":"2026-12-02T10:00:00","timeZone":"UTC"},"end":{"dateTime":"2026-12-02T11:00:00","timeZone":"UTC"}},
            {"id":"1","iCalUId":"z","start":{"dateTime":"2026-12-01T10:00:00","timeZone":"UTC"},"end":{"dateTime":"2026-12-01T11:00:00","timeZone":"UTC"}},
            {"id":"2","iCalUId":"a","start":{"dateTime":"2026-12-02T10:00:00","timeZone":"UTC"},"end":{"dateTime":"2026-12-02T11:00:00","timeZone":"UTC"}}
            """#
        )
        #expect(events.map { Fixtures.value("UID", in: $0) } == ["z", "a", "b"])
    }
}

@Suite struct ICalTextTests {
    @Test("re-folding cuts at 75 octets on character boundaries and unfolds to the same text")
    func refold() {
        let text = "SUMMARY:" + String(repeating: "Ä😀中", count: 40) + "\r\n"
        let bytes = Array(text.utf8)
        let folded = bytes.withUnsafeBufferPointer { ICalText.refold($0) }
        let lines = String(decoding: folded, as: UTF8.self).split(separator: "\r\n")
        #expect(lines.count > 3)
        for line in lines { #expect(line.utf8.count <= 75) }
        #expect(String(decoding: folded, as: UTF8.self).replacing("\r\n ", with: "") == text)
    }

    @Test("libical's fold between CR and LF is repaired")
    func repairsMisplacedFold() {
        let broken = Array("SUMMARY:abc\r\r\n \nDESCRIPTION:x\r\n".utf8)
        let folded = broken.withUnsafeBufferPointer { ICalText.refold($0) }
        #expect(String(decoding: folded, as: UTF8.self) == "SUMMARY:abc\r\nDESCRIPTION:x\r\n")
    }

    @Test("HTML becomes readable text")
    func htmlToText() {
        let html =
            "<html><head><title>x</title><style>p { color: red }</style></head><body><p>Hello&nbsp;&amp; <b>welcome</b></p>"
            + "<p>Line one<br>Line two</p><ul><li>First</li><li>Caf&#233;</li></ul><a href=\"https://example.com/a\">link</a></body></html>"
        #expect(
            HTMLText.plainText(fromHTML: html)
                == "Hello & welcome\nLine one\nLine two\n- First\n- Café\nlink <https://example.com/a>")
    }
}

@Suite struct CalendarWriterTests {
    func event(_ uid: String, start: Int64, text: String) -> EncodedEvent {
        EncodedEvent(
            text: Array("BEGIN:VEVENT\r\nUID:\(uid)\r\nSUMMARY:\(text)\r\nEND:VEVENT\r\n".utf8),
            uid: uid,
            sortStart: start,
            zoneUses: []
        )
    }

    @Test("events spooled to disk come back whole and sorted, the same as from memory")
    func spoolOnDisk() throws {
        var outputs: [String] = []
        for limit in [0, 32 << 20] {
            let writer = try CalendarWriter(spoolMemoryLimit: limit)
            for index in (0..<300).reversed() {
                try writer.add(
                    event("uid-\(index)", start: Int64(index % 7), text: String(repeating: "x", count: index)))
            }
            var buffer = ByteBuffer()
            try writer.finish(into: &buffer)
            outputs.append(String(decoding: buffer.bytes, as: UTF8.self))
        }
        #expect(outputs[0] == outputs[1])
        let uids = Fixtures.lines(outputs[0]).filter { $0.hasPrefix("UID:") }
        #expect(uids.count == 300)
        // Start first (index % 7), then UID as text.
        #expect(uids.first == "UID:uid-0")
        #expect(uids[1] == "UID:uid-105")
    }
}

@Suite struct HostileInputTests {
    func convert(_ events: String) throws -> (events: [[String]], summary: GraphToICS.Summary) {
        let (text, summary) = try Fixtures.convert(Data(#"{"value":[\#(events)]}"#.utf8))
        return (Fixtures.events(text), summary)
    }

    @Test("a far-off year is written in UTC and does not make libical recompute zones", .timeLimit(.minutes(1)))
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

    @Test("an HTML body full of unclosed comments converts in linear time", .timeLimit(.minutes(1)))
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
