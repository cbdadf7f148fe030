import Foundation
import Testing

@testable import ICalBridge

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
        let plan = try ICSToGraph.plan(
            Data(text.utf8), options: ImportOptions(file: "a.ics"), settings: ImportSettings(notifiesAttendees: true))
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
