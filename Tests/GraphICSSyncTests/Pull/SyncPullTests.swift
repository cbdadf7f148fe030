import Foundation
import GraphICS
import GraphICSMirror
import Testing

@testable import GraphICSSync

@Suite struct SyncPullTests {
    @Test func aFirstPullWritesOneCalendarPerItemWithTheSeriesWhole() throws {
        let fixture = try PullFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.addSingle("Review", day: 10, id: "review")
        try fixture.addSeries()
        let report = try fixture.run()

        #expect(report.round == .first)
        #expect(try fixture.folder.scan().map(\.name) == ["uid-lunch.ics", "uid-review.ics", "uid-standup.ics"])
        #expect(Set(report.pulled.map(\.action)) == [.new] && report.pulled.count == 3)
        for name in try fixture.folder.scan().map(\.name) {
            let text = try fixture.text(name)
            #expect(text.components(separatedBy: "BEGIN:VCALENDAR").count == 2, "one VCALENDAR in \(name)")
        }
        let series = try fixture.text("uid-standup.ics")
        #expect(series.contains("RRULE:FREQ=WEEKLY") && series.contains("SUMMARY:Standup"))
        #expect(series.components(separatedBy: "BEGIN:VEVENT").count == 2, "the master alone: no exception yet")
        #expect(try fixture.text("uid-lunch.ics").contains("SUMMARY:Lunch"))
        #expect(try fixture.parsedEvents("uid-lunch.ics").map(\.uid) == ["uid-lunch"])
        let requests = fixture.standIn.operations.map(\.path)
        #expect(requests.count == 2, "one delta page and the series' master: \(requests)")
        #expect(requests.last?.hasSuffix("/events/standup") == true)

        let records = try fixture.state.items(of: fixture.pairing)
        #expect(records.map(\.graphID) == ["lunch", "review", "standup"])
        for record in records {
            let item = try fixture.folder.read(record.fileName)
            #expect(record.sha256 == item.sha256 && record.matches(item.entry))
            #expect(record.changeKey != nil)
        }
        #expect(try fixture.state.fileName(ofOccurrence: "standup-14", in: fixture.pairing) == "uid-standup.ics")
        let checkpoint = try #require(try fixture.state.deltaCheckpoint(of: fixture.pairing))
        #expect(checkpoint.window == SyncWindow(start: fixture.window.start, end: fixture.window.end + 30 * 86_400))
    }

    @Test func aPullWithNoChangeSendsOneRequestAndWritesNothing() throws {
        let fixture = try PullFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.addSeries()
        try fixture.run()
        let times = try fixture.modificationTimes()
        let before = fixture.requestCount

        let report = try fixture.run()
        #expect(fixture.requestCount == before + 1)
        #expect(fixture.standIn.operations.last?.path.hasSuffix("/calendarView/delta") == true)
        #expect(report.round == .changes && report.pulled.isEmpty && report.keptLocalChanges.isEmpty)
        #expect(try fixture.modificationTimes() == times)
    }

    @Test func aServerSideChangeRewritesOneFileAndADeletionRemovesOne() throws {
        let fixture = try PullFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.addSingle("Review", day: 10, id: "review")
        try fixture.addSingle("Party", day: 18, id: "party")
        try fixture.run()
        let times = try fixture.modificationTimes()

        try fixture.standIn.changeEvent(id: "lunch", ["subject": "Long lunch"])
        let changed = try fixture.run()
        #expect(changed.pulled == [.init(fileName: "uid-lunch.ics", uid: "uid-lunch", action: .changed)])
        #expect(try fixture.text("uid-lunch.ics").contains("SUMMARY:Long lunch"))
        let after = try fixture.modificationTimes()
        #expect(after["uid-review.ics"] == times["uid-review.ics"] && after["uid-party.ics"] == times["uid-party.ics"])
        #expect(after["uid-lunch.ics"] != times["uid-lunch.ics"])
        let record = try #require(try fixture.state.items(of: fixture.pairing).first { $0.graphID == "lunch" })
        #expect(record.sha256 == (try fixture.folder.read("uid-lunch.ics").sha256))

        try fixture.standIn.removeEvent(id: "review")
        let deleted = try fixture.run()
        #expect(deleted.pulled == [.init(fileName: "uid-review.ics", uid: "uid-review", action: .deleted)])
        #expect(try fixture.folder.scan().map(\.name) == ["uid-lunch.ics", "uid-party.ics"])
        #expect(try fixture.state.items(of: fixture.pairing).map(\.graphID) == ["lunch", "party"])
    }

    @Test func aChangedOrDeletedOccurrenceRefreshesItsSeriesFile() throws {
        let fixture = try PullFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.addSeries()
        try fixture.run()
        let lunchTime = try fixture.modificationTimes()["uid-lunch.ics"]

        try fixture.standIn.changeEvent(id: "standup-14", ["subject": "Standup with demo"])
        let changed = try fixture.run()
        #expect(changed.pulled == [.init(fileName: "uid-standup.ics", uid: "uid-standup", action: .changed)])
        let series = try fixture.text("uid-standup.ics")
        #expect(series.contains("RRULE:FREQ=WEEKLY") && series.contains("SUMMARY:Standup with demo"))
        #expect(series.contains("RECURRENCE-ID:20261214T090000Z"))
        #expect(series.components(separatedBy: "UID:uid-standup").count == 3, "master and override share the UID")
        let parsed = try fixture.parsedEvents("uid-standup.ics")
        #expect(parsed.map(\.uid) == ["uid-standup", "uid-standup"] && parsed.map(\.isOverride) == [false, true])

        try fixture.standIn.removeEvent(id: "standup-21")
        let removed = try fixture.run()
        #expect(removed.pulled.map(\.fileName) == ["uid-standup.ics"])
        #expect(try fixture.text("uid-standup.ics").contains("EXDATE:20261221T090000Z"))
        #expect(try fixture.modificationTimes()["uid-lunch.ics"] == lunchTime)
        #expect(try fixture.folder.scan().count == 2)
    }

    @Test func aDeletedSeriesRemovesItsFile() throws {
        let fixture = try PullFixture()
        try fixture.addSeries()
        try fixture.run()
        try fixture.standIn.removeEvent(id: "standup")
        let report = try fixture.run()
        #expect(report.pulled == [.init(fileName: "uid-standup.ics", uid: "uid-standup", action: .deleted)])
        #expect(try fixture.folder.scan().isEmpty && fixture.state.items(of: fixture.pairing).isEmpty)
        #expect(try fixture.state.fileName(ofOccurrence: "standup-7", in: fixture.pairing) == nil)
    }

    @Test func anExpiredDeltaLinkResyncsWithoutRewritingAnythingUnchanged() throws {
        let fixture = try PullFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.addSingle("Review", day: 10, id: "review")
        try fixture.addSeries()
        try fixture.run()
        let times = try fixture.modificationTimes()
        let link = try #require(try fixture.state.deltaCheckpoint(of: fixture.pairing)).link

        fixture.standIn.expireDeltaTokens()
        let report = try fixture.run()
        #expect(report.round == .resync)
        #expect(report.pulled.isEmpty && report.unchanged == 3)
        #expect(try fixture.modificationTimes() == times)
        #expect(try fixture.state.deltaCheckpoint(of: fixture.pairing)?.link == link, "nothing changed in the mirror")
        #expect(try fixture.run().round == .changes, "the mirror's new link works")
    }

    @Test func aWindowTheStoredOneNoLongerCoversStartsAFreshRound() throws {
        let fixture = try PullFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.run()
        let times = try fixture.modificationTimes()
        var later = fixture.window
        later.end += 20 * 86_400
        #expect(try fixture.pull().run(window: later).round == .changes, "inside the stored lookahead")
        later.end += 20 * 86_400
        let report = try fixture.pull().run(window: later)
        #expect(report.round == .reanchored && report.pulled.isEmpty)
        #expect(try fixture.state.deltaCheckpoint(of: fixture.pairing)?.window.covers(later) == true)
        #expect(try fixture.modificationTimes() == times)
    }

    @Test func twoEventsWithOneUIDGiveOneFileAndAWarning() throws {
        let fixture = try PullFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.standIn.addEvent([
            "id": "copy", "subject": "Copied lunch", "iCalUId": "uid-lunch",
            "start": ["dateTime": "2026-12-04T10:00:00", "timeZone": "UTC"],
            "end": ["dateTime": "2026-12-04T11:00:00", "timeZone": "UTC"],
        ])
        let report = try fixture.run()
        #expect(report.pulled.map(\.fileName) == ["uid-lunch.ics"])
        #expect(try fixture.text("uid-lunch.ics").contains("SUMMARY:Lunch"))
        let warning = try #require(report.diagnostics.first { $0.eventID == "copy" })
        #expect(warning.message.contains("another event (lunch) with UID uid-lunch"))
        #expect(try fixture.state.items(of: fixture.pairing).map(\.graphID) == ["lunch"])
    }

    @Test func aSeriesWithNoOccurrenceLeftInTheWindowKeepsItsFile() throws {
        let fixture = try PullFixture()
        try fixture.addSeries()
        try fixture.run()
        for day in [7, 14, 21, 28] {
            try fixture.standIn.removeEvent(id: "standup-\(day)")
        }
        #expect(fixture.standIn.event(id: "standup") != nil, "the master is still there")
        let report = try fixture.run()
        #expect(!report.pulled.contains { $0.action == .deleted }, "\(report.pulled)")
        #expect(report.outsideWindow == [.init(fileName: "uid-standup.ics", uid: "uid-standup")])
        #expect(try fixture.folder.scan().map(\.name) == ["uid-standup.ics"])
        #expect(try fixture.state.items(of: fixture.pairing).first?.outsideWindow == true)
        // Delta reports occurrences, never masters: a series with none left in the window that Outlook then
        // deletes is found when the window is re-anchored, which asks about every item outside it again.
        try fixture.standIn.removeEvent(id: "standup")
        #expect(try fixture.run().pulled.isEmpty)
        let week: Int64 = 7 * 86_400
        let moved = SyncWindow(start: fixture.window.start + 9 * week, end: fixture.window.end + 9 * week)
        let deleted = try fixture.pull().run(window: moved)
        #expect(deleted.round == .reanchored)
        #expect(deleted.pulled == [.init(fileName: "uid-standup.ics", uid: "uid-standup", action: .deleted)])
        #expect(try fixture.folder.scan().isEmpty)
    }
}
