import Foundation
import GraphICS
import ICalBridge
import Testing

@testable import GraphICSServe

/// A calendar other than the primary one: Graph v1.0 documents no delta for it, so every refresh reads its
/// calendarView and compares change keys.
@Suite struct FeedSourceCalendarViewTests {
    @Test func anotherCalendarIsReadByCalendarViewAndComparedByChangeKey() throws {
        let fixture = try FeedFixture()
        let team = fixture.standIn.addCalendar(name: "Team")
        try fixture.addSingle("Planning", day: 2, id: "planning", calendar: team)
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        let target = fixture.target(calendar: team)
        let source = fixture.source(target)

        var before = fixture.requestCount
        #expect(try source.refresh(now: fixture.now) == .changed)
        #expect(fixture.paths(after: before).map { $0.hasSuffix("/calendars/\(team)/calendarView") } == [true])
        let first = try #require(source.current)
        #expect(FeedFixture.text(first).contains("SUMMARY:Planning") && !FeedFixture.text(first).contains("Lunch"))
        #expect(source.lastRefresh == FeedRefreshReport(round: .calendarView, requests: 1, rendered: true))
        #expect(try first.body == fixture.exported(target))

        before = fixture.requestCount
        #expect(try source.refresh(now: fixture.now.addingTimeInterval(60)) == .unchanged)
        #expect(fixture.requestCount == before + 1 && source.current == first)
        #expect(source.lastRefresh?.rendered == false, "equal change keys: nothing rendered")

        try fixture.standIn.changeEvent(id: "planning", ["subject": "Planning (moved)"])
        #expect(try source.refresh(now: fixture.now.addingTimeInterval(120)) == .changed)
        #expect(FeedFixture.text(source.current).contains("SUMMARY:Planning (moved)"))

        try fixture.standIn.removeEvent(id: "planning")
        #expect(try source.refresh(now: fixture.now.addingTimeInterval(180)) == .changed)
        #expect(source.current?.eventCount == 0 && !FeedFixture.text(source.current).contains("Planning"))
    }
}
