import Foundation
import GraphStandIn
import ICalBridge
import TestSupport
import Testing

@testable import GraphICS

/// An occurrence moved onto a neighbour's day, which Graph refuses in the series: the import cancels it and
/// creates the moved one as a single event of its own, and `export --recurrence series` writes that event back
/// inside its series as the RECURRENCE-ID override it came from (issue 28, item 3).
@Suite struct MovedOccurrenceExportTests {
    /// A daily 09:00 Berlin standup, Monday 30 November to Friday 4 December 2026, whose Tuesday is moved to
    /// Wednesday 14:00, the day of the following occurrence.
    static let calendar = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//graph-ics tests//EN\r
        BEGIN:VEVENT\r
        UID:standup-28@tests.example\r
        DTSTAMP:20261120T100000Z\r
        SUMMARY:Standup\r
        DTSTART;TZID=Europe/Berlin:20261130T090000\r
        DTEND;TZID=Europe/Berlin:20261130T091500\r
        RRULE:FREQ=DAILY;COUNT=5\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:standup-28@tests.example\r
        DTSTAMP:20261120T100000Z\r
        RECURRENCE-ID;TZID=Europe/Berlin:20261201T090000\r
        SUMMARY:Standup (moved to Wednesday afternoon)\r
        DTSTART;TZID=Europe/Berlin:20261202T140000\r
        DTEND;TZID=Europe/Berlin:20261202T141500\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    /// The week of Monday 30 November 2026 in Berlin.
    static let weekStart = Date(timeIntervalSince1970: 1_795_993_200)
    static let weekEnd = Date(timeIntervalSince1970: 1_796_598_000)

    @Test func seriesModeWritesTheMovedOccurrenceAsAnOverrideOfItsSeries() throws {
        let setup = try ImportSetup()
        defer { setup.standIn.stop() }
        let report = setup.run(try TicketFiles.items(text: Self.calendar, name: "standup.ics"))
        #expect(report.results.allSatisfy { $0.action != .failed }, "\(report.results)")
        let moved = try #require(setup.standIn.events().first { $0["type"] as? String == "singleInstance" })
        let master = try #require(setup.standIn.events().first { $0["type"] as? String == "seriesMaster" })

        var buffer = ByteBuffer()
        let request = CalendarExporter.Request(
            start: Self.weekStart, end: Self.weekEnd, recurrence: .series,
            options: ExportOptions(fallbackZone: .iana("Europe/Berlin"), file: "calendarView"))
        let summary = try CalendarExporter(client: setup.client).export(request, into: &buffer)
        #expect(summary.diagnostics.isEmpty, "\(summary.diagnostics)")
        let events = vevents(String(decoding: buffer.bytes, as: UTF8.self))
        #expect(events.count == 2, "the series and its override, no event of its own: \(events)")
        let written = try #require(events.first { property("RRULE", in: $0) != nil })
        #expect(value("UID", in: written) == master["iCalUId"] as? String)
        #expect(written.filter { $0.hasPrefix("EXDATE") }.isEmpty, "\(written)")
        let override = try #require(events.first { property("RECURRENCE-ID", in: $0) != nil })
        #expect(value("UID", in: override) == value("UID", in: written))
        #expect(property("RECURRENCE-ID", in: override) == "RECURRENCE-ID;TZID=Europe/Berlin:20261201T090000")
        #expect(property("DTSTART", in: override) == "DTSTART;TZID=Europe/Berlin:20261202T140000")
        #expect(value("SUMMARY", in: override) == "Standup (moved to Wednesday afternoon)")
        #expect(value("X-GRAPH-ICS-EVENT-ID", in: override) == moved["id"] as? String)

        // Instances mode keeps it an event of its own, as Graph holds it.
        var instances = ByteBuffer()
        var plain = request
        plain.recurrence = .instances
        _ = try CalendarExporter(client: setup.client).export(plain, into: &instances)
        let separate = vevents(String(decoding: instances.bytes, as: UTF8.self))
        #expect(separate.filter { property("RECURRENCE-ID", in: $0) != nil }.isEmpty)
        #expect(separate.contains { value("UID", in: $0) == moved["iCalUId"] as? String })
    }
}
