import Foundation
import Testing

@testable import ICalBridge

/// Large calendars are parsed in chunks and planned on all cores; the result must be exactly what reading
/// the same events in small calendars (parsed whole, one core) gives.
@Suite struct LargeImportTests {
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
        #expect(whole.zoneRules == reference.zoneRules)
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

    /// The 1-based line of `BEGIN:VEVENT` of event `index`.
    static func line(ofEvent index: Int, in text: String) -> Int {
        guard let range = text.range(of: "BEGIN:VEVENT\r\nUID:event-\(index)\r\n") else { return -1 }
        return text[..<range.lowerBound].filter { $0 == "\n" || $0 == "\r\n" }.count + 1
    }
}

/// graph-ics's own JSON writer (Foundation's JSONEncoder was the slowest part of an import).
@Suite struct JSONStreamEncoderTests {
    @Test("every fixture's events written by the stream encoder decode back to the same events")
    func fixturesRoundTrip() throws {
        #expect(Fixtures.graphNames.count > 10)
        for name in Fixtures.graphNames {
            let document = try GraphEventDocument.decode(Fixtures.data("graph/\(name).json"), file: name)
            for event in document.events {
                let compact = try JSONStreamEncoder().encode(event)
                let pretty = try JSONStreamEncoder(pretty: true).encode(event)
                #expect(try JSONDecoder().decode(GraphEvent.self, from: compact) == event, "\(name)")
                #expect(try JSONDecoder().decode(GraphEvent.self, from: pretty) == event, "\(name)")
            }
        }
    }

    @Test("strings with quotes, backslashes, control characters and non-ASCII text survive; slashes stay plain")
    func stringEscaping() throws {
        let text = "a\"b\\c/d\n\r\t\u{8}\u{C}\u{1}\u{1F} é 🎟"
        var event = GraphEvent()
        event.subject = text
        let data = try JSONStreamEncoder().encode(event)
        #expect(String(decoding: data, as: UTF8.self) == #"{"subject":"a\"b\\c/d\n\r\t\b\f\u0001\u001f é 🎟"}"#)
        #expect(try JSONDecoder().decode(GraphEvent.self, from: data).subject == text)
    }

    @Test("numbers: integers stay integers, fractions keep their digits, NaN is refused")
    func numbers() throws {
        var location = GraphLocation()
        location.coordinates = GraphOutlookGeoCoordinates(latitude: 52.370216, longitude: 4.0)
        let data = try JSONStreamEncoder().encode(location)
        #expect(String(decoding: data, as: UTF8.self) == #"{"coordinates":{"latitude":52.370216,"longitude":4}}"#)
        location.coordinates?.altitude = .nan
        #expect(throws: JSONStreamEncoder.InvalidValue.self) { try JSONStreamEncoder().encode(location) }
    }

    @Test("the import plan's JSON is valid, pretty and carries every annotation")
    func planJSON() throws {
        let text =
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nMETHOD:REQUEST\r\n"
            + (0..<600).map {
                "BEGIN:VEVENT\r\nUID:u\($0)\r\nSEQUENCE:2\r\nDTSTART:20261201T100000Z\r\nSUMMARY:S\($0)\r\nEND:VEVENT\r\n"
            }.joined()
            + "END:VCALENDAR\r\n"
        let plan = try ICSToGraph.plan(Data(text.utf8), options: ImportOptions(file: "p.ics"))
        let data = try plan.jsonData()
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let values = try #require(object["value"] as? [[String: Any]])
        #expect(values.count == 600)
        #expect(values.map { $0["subject"] as? String } == (0..<600).map { "S\($0)" })
        #expect(
            values.allSatisfy {
                $0["@graph-ics.method"] as? String == "REQUEST" && $0["@graph-ics.sequence"] as? Int == 2
            })
        #expect(String(decoding: data.prefix(20), as: UTF8.self).hasPrefix("{\n  \"value\": [\n    {"))
        #expect(try ImportPlan().jsonData() == Data("{\n  \"value\": []\n}".utf8))
    }
}

/// The import's hot path writes Graph payloads field by field; it must say exactly what the models'
/// `Encodable` conformance says through the generic path.
@Suite struct DirectJSONTests {
    @Test("field-by-field payloads are byte for byte the generic encoding, for every fixture event and plan")
    func directEqualsGeneric() throws {
        var events: [GraphEvent] = []
        for name in Fixtures.graphNames {
            events += try GraphEventDocument.decode(Fixtures.data("graph/\(name).json"), file: name).events
        }
        #expect(events.count > 30)
        for pretty in [false, true] {
            for event in events {
                let generic = try JSONStreamEncoder(pretty: pretty).encode(event)
                var direct: [UInt8] = []
                try JSONStreamEncoder(pretty: pretty).write(into: &direct) { try JSONFields.write(event, to: $0) }
                #expect(Data(direct) == generic, "\(event.id ?? "?")")
            }
        }
        // Planned events with every annotation, from a file with a series, an override and an EXDATE.
        let text = """
            BEGIN:VCALENDAR\r
            METHOD:REQUEST\r
            BEGIN:VEVENT\r
            UID:s1\r
            SEQUENCE:3\r
            STATUS:CANCELLED\r
            DTSTART;TZID=Europe/Berlin:20261201T090000\r
            DTEND;TZID=Europe/Berlin:20261201T100000\r
            RRULE:FREQ=WEEKLY;COUNT=5\r
            EXDATE;TZID=Europe/Berlin:20261208T090000\r
            CATEGORIES:A,B\r
            GEO:52.1;4.25\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            UID:s1\r
            RECURRENCE-ID;TZID=Europe/Berlin:20261215T090000\r
            DTSTART;TZID=Europe/Berlin:20261215T110000\r
            DTEND;TZID=Europe/Berlin:20261215T120000\r
            END:VEVENT\r
            END:VCALENDAR\r

            """
        let plan = try ICSToGraph.plan(Data(text.utf8), options: ImportOptions(asMeeting: true, file: "a.ics"))
        #expect(plan.events.first?.followUps.count == 2)
        for planned in plan.events {
            let annotated = ImportPlan.AnnotatedEvent(planned)
            let generic = try JSONStreamEncoder(pretty: true, depth: 2).encode(annotated)
            var direct: [UInt8] = []
            try JSONStreamEncoder(pretty: true, depth: 2).write(into: &direct) { try annotated.write(to: $0) }
            #expect(Data(direct) == generic)
        }
    }
}
