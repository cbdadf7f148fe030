import Foundation
import Testing

@testable import ICalBridge

/// What `import --verify` expects Outlook to hold for a planned event.
@Suite(.tags(.zoneRules)) struct ImportExpectationTests {
    private func planned(_ lines: [String], zone: String = "Europe/Berlin") throws -> PlannedEvent {
        let text =
            ([
                "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", "BEGIN:VEVENT", "UID:e@tests.example",
                "DTSTAMP:20261201T100000Z",
            ] + lines + ["END:VEVENT", "END:VCALENDAR"]).joined(separator: "\r\n")
            + "\r\n"
        var options = ImportOptions(file: "test.ics")
        if case .resolved(let resolved, _) = ZoneResolver.resolve(zone) { options.userZone = resolved }
        let plan = try ICSToGraph.plan(Data(text.utf8), options: options, settings: ImportSettings())
        return try #require(plan.events.first)
    }

    @Test func aTimedEventIsExpectedAtItsInstantsWithSubjectAndLocation() throws {
        let event = try planned([
            "DTSTART;TZID=Europe/Berlin:20270122T201500", "DTEND;TZID=Europe/Berlin:20270122T223000",
            "SUMMARY:Kino", "LOCATION:Babylon",
        ])
        let expected = ImportExpectation(of: event)
        // 19:15 and 21:30 UTC on 22 January 2027.
        #expect(expected.times == .timed(start: 1_800_645_300, end: 1_800_653_400))
        #expect(expected.subject == "Kino")
        #expect(expected.location == "Babylon")
        #expect(expected.occurrencesInFirstYear == nil)
    }

    @Test func anAllDayEventIsExpectedOnItsDates() throws {
        let event = try planned(["DTSTART;VALUE=DATE:20270301", "DTEND;VALUE=DATE:20270303", "SUMMARY:Trip"])
        #expect(ImportExpectation(of: event).times == .allDay(start: "2027-03-01", end: "2027-03-03"))
    }

    @Test func aSeriesCountsItsOccurrencesInTheFirstYearLessItsExdates() throws {
        // Weekly from a Tuesday: days 0, 7, …, 364 of the year are 53 occurrences; the EXDATE takes one.
        let weekly = try planned([
            "DTSTART;TZID=Europe/Berlin:20270105T190000", "DTEND;TZID=Europe/Berlin:20270105T210000",
            "RRULE:FREQ=WEEKLY;BYDAY=TU", "EXDATE;TZID=Europe/Berlin:20270119T190000", "SUMMARY:Meetup",
        ])
        #expect(ImportExpectation(of: weekly).occurrencesInFirstYear == 52)
        let counted = try planned([
            "DTSTART;TZID=Europe/Berlin:20270105T190000", "DURATION:PT1H", "RRULE:FREQ=DAILY;COUNT=10",
            "SUMMARY:Course",
        ])
        #expect(ImportExpectation(of: counted).occurrencesInFirstYear == 10)
        #expect(ImportExpectation(of: counted).countedFrom == 1_799_172_000)
    }
}
