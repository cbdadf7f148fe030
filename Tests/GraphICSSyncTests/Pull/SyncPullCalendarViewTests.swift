import Foundation
import GraphICS
import GraphICSMirror
import TestSupport
import Testing

@testable import GraphICSSync

/// A calendar other than the primary one: Graph v1.0 documents no delta for it, so every pull reads its
/// calendarView and compares change keys with the records.
@Suite struct SyncPullCalendarViewTests {
    @Test func aFirstPullOfAnotherCalendarWritesWhatThePrimaryOneWould() throws {
        let fixture = try PullFixture()
        let team = fixture.standIn.addCalendar(name: "Team")
        try fixture.addSingle("Lunch", day: 3, id: "lunch", calendar: team)
        try fixture.addSeries(calendar: team)
        let planned = try fixture.pull(.other(id: team)).plan(window: fixture.window)
        #expect(try planned.items.map(\.action) == [.new, .new] && fixture.folder.scan().isEmpty)
        #expect(try fixture.state.deltaCheckpoint(of: fixture.pairing) == nil, "a plan stores nothing")
        let report = try fixture.run(.other(id: team))
        #expect(report.round == .first && report.pulled.map(\.action) == [.new, .new])
        #expect(try fixture.state.items(of: fixture.pairing).allSatisfy { $0.changeKey != nil })
        #expect(
            try fixture.state.deltaCheckpoint(of: fixture.pairing).flatMap { MirrorCursor($0.link) } != nil,
            "a window, no delta link")
        #expect(try fixture.folder.scan().map(\.name) == ["uid-lunch.ics", "uid-standup.ics"])
        let paths = fixture.standIn.operations.map(\.path).suffix(2)
        #expect(paths.count == 2 && paths.first?.hasSuffix("/calendars/\(team)/calendarView") == true, "\(paths)")
        #expect(paths.last?.hasSuffix("/events/standup") == true)
        #expect(fixture.requestCount == 4, "the plan's two requests and the run's two")
        #expect(try fixture.parsedEvents("uid-standup.ics").map(\.uid) == ["uid-standup"])

        // The same events in the primary calendar, pulled through delta into another folder: the same text
        // (DTSTAMP, CREATED and LAST-MODIFIED, from the seeding's clock, aside).
        let primary = try PullFixture()
        try primary.addSingle("Lunch", day: 3, id: "lunch")
        try primary.addSeries()
        try primary.run()
        for name in ["uid-lunch.ics", "uid-standup.ics"] {
            #expect(try Self.clockless(primary.text(name)) == Self.clockless(fixture.text(name)), "\(name)")
        }
    }

    @Test func aPullWithNoChangeReadsOnlyTheCalendarViewPages() throws {
        let fixture = try PullFixture()
        let team = fixture.standIn.addCalendar(name: "Team")
        try fixture.standIn.addEvents(
            count: 2500, from: fixture.window.startDate, to: fixture.window.startDate.addingTimeInterval(25 * 86_400),
            calendar: team)
        try fixture.addSeries(calendar: team)
        try fixture.run(.other(id: team))
        #expect(try fixture.folder.scan().count == 2501)
        let times = try fixture.modificationTimes()
        let before = fixture.requestCount

        let report = try fixture.run(.other(id: team))
        let paths = fixture.standIn.operations.dropFirst(before).map(\.path)
        #expect(paths.count == 3, "⌈2504 / 1000⌉ pages over one range, nothing else: \(paths)")
        #expect(paths.allSatisfy { $0.hasSuffix("/calendars/\(team)/calendarView") })
        #expect(report.round == .changes && report.pulled.isEmpty && report.unchanged == 2501)
        #expect(try fixture.modificationTimes() == times)
    }

    @Test func changesInAnotherCalendarArriveByChangeKey() throws {
        let fixture = try PullFixture()
        let team = fixture.standIn.addCalendar(name: "Team")
        try fixture.addSingle("Lunch", day: 3, id: "lunch", calendar: team)
        try fixture.addSingle("Review", day: 10, id: "review", calendar: team)
        try fixture.addSingle("Party", day: 18, id: "party", calendar: team)
        try fixture.addSeries(calendar: team)
        try fixture.run(.other(id: team))
        let times = try fixture.modificationTimes()

        try fixture.standIn.changeEvent(id: "lunch", ["subject": "Long lunch"])
        try fixture.standIn.changeEvent(id: "standup-14", ["subject": "Standup with demo"])
        try fixture.standIn.removeEvent(id: "review")
        let report = try fixture.run(.other(id: team))
        #expect(
            Set(report.pulled.map { "\($0.action) \($0.fileName)" }) == [
                "changed uid-lunch.ics", "changed uid-standup.ics", "deleted uid-review.ics",
            ])
        #expect(try fixture.text("uid-lunch.ics").contains("SUMMARY:Long lunch"))
        #expect(try fixture.text("uid-standup.ics").contains("SUMMARY:Standup with demo"))
        #expect(try fixture.modificationTimes()["uid-party.ics"] == times["uid-party.ics"])
        #expect(try fixture.folder.scan().map(\.name) == ["uid-lunch.ics", "uid-party.ics", "uid-standup.ics"])

        try fixture.standIn.removeEvent(id: "standup")
        let removed = try fixture.run(.other(id: team))
        #expect(removed.pulled == [.init(fileName: "uid-standup.ics", uid: "uid-standup", action: .deleted)])
    }

    @Test func aLocalEditInAnotherCalendarIsKeptUntilSettled() throws {
        let fixture = try PullFixture()
        let team = fixture.standIn.addCalendar(name: "Team")
        try fixture.addSingle("Lunch", day: 3, id: "lunch", calendar: team)
        try fixture.run(.other(id: team))
        let mine = try fixture.text("uid-lunch.ics").replacingOccurrences(of: "Lunch", with: "Lunch (mine)")
        try fixture.folder.write(Data(mine.utf8), to: "uid-lunch.ics")
        try fixture.standIn.changeEvent(id: "lunch", ["subject": "Long lunch"])
        for _ in 0..<2 {
            let report = try fixture.run(.other(id: team))
            #expect(report.keptLocalChanges.map(\.fileName) == ["uid-lunch.ics"] && report.pulled.isEmpty)
            #expect(try fixture.text("uid-lunch.ics") == mine)
        }
    }

    @Test func aCalendarThatBecomesThePrimaryOneStartsADeltaRoundAndBack() throws {
        let fixture = try PullFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        let primary = try defaultCalendar(fixture)
        try fixture.run(.other(id: primary))
        let times = try fixture.modificationTimes()
        let delta = try fixture.run(.primary)
        #expect(delta.round == .reanchored && delta.pulled.isEmpty, "a stored window without link is no delta link")
        #expect(try fixture.state.deltaCheckpoint(of: fixture.pairing)?.link.isEmpty == false)
        let back = try fixture.run(.other(id: primary))
        #expect(back.round == .changes && back.pulled.isEmpty && back.unchanged == 1)
        #expect(try fixture.modificationTimes() == times)
    }

    /// The lines of an item file but those that come from the clock of the seeding.
    private static func clockless(_ text: String) -> [Substring] {
        text.split(separator: "\r\n").filter { line in
            !["DTSTAMP:", "CREATED:", "LAST-MODIFIED:"].contains { line.hasPrefix($0) }
        }
    }

    /// The id of the first user's default calendar, as `GET /me/calendar` gives it.
    private func defaultCalendar(_ fixture: PullFixture) throws -> String {
        let calendars = try fixture.client.calendars()
        return try #require(calendars.first { $0.isDefaultCalendar == true }?.id)
    }
}
