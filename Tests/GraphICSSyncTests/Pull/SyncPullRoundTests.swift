import Foundation
import GraphICS
import GraphStandIn
import Testing

@testable import GraphICSSync

/// Full rounds that meet a 410 or a local edit, and a series no item file can hold.
@Suite struct SyncPullRoundTests {
    @Test func aLocalFileKeptOnAFirstRoundComesBackInLaterIncrementalRounds() throws {
        let fixture = try PullFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.addSingle("Review", day: 10, id: "review")
        let mine = Data("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:uid-lunch\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n".utf8)
        try fixture.folder.write(mine, to: "uid-lunch.ics")

        let first = try fixture.run()
        #expect(first.keptLocalChanges == [.init(fileName: "uid-lunch.ics", uid: "uid-lunch", wouldHave: .new)])
        #expect(first.pulled == [.init(fileName: "uid-review.ics", uid: "uid-review", action: .new)])
        #expect(try fixture.state.deltaCheckpoint(of: fixture.pairing) != nil, "the next round is incremental")
        let records = try fixture.state.items(of: fixture.pairing)
        #expect(records.map(\.graphID) == ["lunch", "review"])
        #expect(records.first?.changeKey == nil && records.first?.sha256.isEmpty == true, "marked, never synced")

        let before = fixture.requestCount
        let second = try fixture.run()
        #expect(second.round == .changes && second.keptLocalChanges.map(\.wouldHave) == [.new])
        #expect(fixture.standIn.operations.dropFirst(before).map(\.path).last?.hasSuffix("/events/lunch") == true)
        #expect(fixture.requestCount == before + 2, "the delta link and the kept event")
        #expect(try fixture.folder.read("uid-lunch.ics").contents == mine)

        // Settled for Graph's side: the local text is archived and Graph's version pulled.
        let pull = fixture.pull()
        let plan = try pull.plan(window: fixture.window)
        var archived: [String: Data] = [:]
        let settled = try pull.apply(plan, overwriting: ["uid-lunch.ics"]) { archived[$0] = $1 }
        #expect(archived == ["uid-lunch.ics": mine])
        #expect(settled.pulled == [.init(fileName: "uid-lunch.ics", uid: "uid-lunch", action: .new)])
        #expect(try fixture.text("uid-lunch.ics").contains("SUMMARY:Lunch"))
        let quiet = fixture.requestCount
        #expect(try fixture.run().keptLocalChanges.isEmpty && fixture.requestCount == quiet + 1)
    }

    @Test func aKeptFileRemovedHereTakesGraphsVersion() throws {
        let fixture = try PullFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.folder.write(Data("BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n".utf8), to: "uid-lunch.ics")
        #expect(try fixture.run().keptLocalChanges.count == 1)
        try fixture.folder.delete("uid-lunch.ics")
        let report = try fixture.run()
        #expect(report.pulled == [.init(fileName: "uid-lunch.ics", uid: "uid-lunch", action: .new)])
        let record = try #require(try fixture.state.items(of: fixture.pairing).first)
        let item = try fixture.folder.read("uid-lunch.ics")
        #expect(record.changeKey != nil && record.sha256 == item.sha256)
    }

    @Test func aResyncKeepingALocalEditStoresTheNewLinkAndReadsTheEventAgainLater() throws {
        let fixture = try PullFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.addSeries()
        try fixture.run()
        let mine = try fixture.text("uid-standup.ics").replacingOccurrences(of: "Standup", with: "Standup (mine)")
        try fixture.folder.write(Data(mine.utf8), to: "uid-standup.ics")
        try fixture.standIn.changeEvent(id: "standup-14", ["subject": "Standup with demo"])
        let link = try fixture.state.deltaCheckpoint(of: fixture.pairing)?.link
        fixture.standIn.expireDeltaTokens()

        let resync = try fixture.run()
        #expect(resync.round == .resync && resync.keptLocalChanges.map(\.fileName) == ["uid-standup.ics"])
        #expect(try fixture.state.deltaCheckpoint(of: fixture.pairing)?.link != link)
        let record = try #require(try fixture.state.items(of: fixture.pairing).first { $0.graphID == "standup" })
        #expect(record.changeKey == nil && !record.sha256.isEmpty, "the synced version stays recorded")

        let later = try fixture.run()
        #expect(later.round == .changes && later.keptLocalChanges.map(\.fileName) == ["uid-standup.ics"])
        #expect(try fixture.text("uid-standup.ics") == mine)
        // Settled for Graph's side.
        let pull = fixture.pull()
        let plan = try pull.plan(window: fixture.window)
        let settled = try pull.apply(plan, overwriting: ["uid-standup.ics"])
        #expect(settled.pulled.map(\.action) == [.changed])
        #expect(try fixture.text("uid-standup.ics").contains("SUMMARY:Standup with demo"))
        #expect(try fixture.state.items(of: fixture.pairing).allSatisfy { $0.changeKey != nil })
    }

    @Test func aSeriesWrittenAsSeparateInstancesIsRefusedAndWritesNothing() throws {
        let fixture = try PullFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.addSeries(recurrence: false)
        let report = try fixture.run()
        #expect(report.pulled.map(\.fileName) == ["uid-lunch.ics"])
        #expect(try fixture.folder.scan().map(\.name) == ["uid-lunch.ics"])
        let refusal = try #require(report.diagnostics.first { $0.severity == .error })
        #expect(refusal.eventID == "standup" && refusal.subject == "Standup")
        #expect(refusal.message.contains("4 separate events with 4 UIDs"), "\(refusal)")
        #expect(refusal.file == fixture.folder.path, "no file is named that was not written")
        #expect(try fixture.state.items(of: fixture.pairing).map(\.graphID) == ["lunch"])
    }
}
