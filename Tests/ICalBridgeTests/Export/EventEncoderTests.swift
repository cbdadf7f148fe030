import Foundation
import Testing

@testable import ICalBridge

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
        // One property, comma-separated: ics-py refuses several CATEGORIES lines, icalevents crashes.
        #expect(event.filter { $0.hasPrefix("CATEGORIES") } == [#"CATEGORIES:Red,Blue\, Green"#])
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
