import Foundation
import GraphICS
import Testing

@testable import GraphICSSync

/// A pull planned (reading only), then applied, and the conflicts the apply settles for Graph's side.
@Suite struct SyncPullPlanTests {
    @Test func aPlanWritesNothingAndSaysWhatTheApplyDoes() throws {
        let fixture = try PullFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.addSeries()
        let pull = fixture.pull()
        let first = try pull.plan(window: fixture.window)
        #expect(try fixture.folder.scan().isEmpty && fixture.state.items(of: fixture.pairing).isEmpty)
        #expect(try fixture.state.deltaCheckpoint(of: fixture.pairing) == nil)
        #expect(first.round == .first && first.deletionCount == 0 && first.keptLocalChanges.isEmpty)
        #expect(
            first.items == [
                .init(fileName: "uid-lunch.ics", uid: "uid-lunch", action: .new),
                .init(fileName: "uid-standup.ics", uid: "uid-standup", action: .new),
            ])
        let applied = try pull.apply(first)
        #expect(applied.pulled == first.items)
        #expect(try fixture.folder.scan().map(\.name) == ["uid-lunch.ics", "uid-standup.ics"])
        #expect(try fixture.state.deltaCheckpoint(of: fixture.pairing) != nil)

        try fixture.addSingle("Review", day: 10, id: "review")
        try fixture.standIn.changeEvent(id: "lunch", ["subject": "Long lunch"])
        try fixture.standIn.removeEvent(id: "standup")
        let records = try fixture.state.items(of: fixture.pairing)
        let checkpoint = try fixture.state.deltaCheckpoint(of: fixture.pairing)
        let times = try fixture.modificationTimes()
        let later = try pull.plan(window: fixture.window)
        #expect(
            Set(later.items.map { "\($0.action) \($0.uid)" }) == [
                "changed uid-lunch", "new uid-review", "deleted uid-standup",
            ])
        #expect(later.deletionCount == 1)
        #expect(try fixture.modificationTimes() == times && fixture.state.items(of: fixture.pairing) == records)
        #expect(try fixture.state.deltaCheckpoint(of: fixture.pairing) == checkpoint)
        #expect(try pull.apply(later).pulled.count == 3)
        #expect(try fixture.folder.scan().map(\.name) == ["uid-lunch.ics", "uid-review.ics"])
        #expect(try fixture.text("uid-lunch.ics").contains("SUMMARY:Long lunch"))
    }

    @Test func keptDeletionsCountForTheMassDeletionGuard() throws {
        let fixture = try PullFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.addSingle("Review", day: 10, id: "review")
        try fixture.run()
        try fixture.folder.write(Data("BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n".utf8), to: "uid-review.ics")
        try fixture.standIn.removeEvent(id: "lunch")
        try fixture.standIn.removeEvent(id: "review")
        let plan = try fixture.pull().plan(window: fixture.window)
        #expect(plan.items == [.init(fileName: "uid-lunch.ics", uid: "uid-lunch", action: .deleted)])
        #expect(plan.keptLocalChanges == [.init(fileName: "uid-review.ics", uid: "uid-review", wouldHave: .deleted)])
        #expect(plan.deletionCount == 2)
    }

    @Test func aConflictWonByGraphArchivesTheLocalTextThenPullsGraphsVersion() throws {
        let fixture = try PullFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.addSingle("Review", day: 10, id: "review")
        try fixture.run()
        let mine = try fixture.text("uid-lunch.ics").replacingOccurrences(of: "Lunch", with: "Lunch (mine)")
        try fixture.folder.write(Data(mine.utf8), to: "uid-lunch.ics")
        let review = try fixture.text("uid-review.ics").replacingOccurrences(of: "Review", with: "Review (mine)")
        try fixture.folder.write(Data(review.utf8), to: "uid-review.ics")
        try fixture.standIn.changeEvent(id: "lunch", ["subject": "Long lunch"])
        try fixture.standIn.removeEvent(id: "review")

        let pull = fixture.pull()
        let plan = try pull.plan(window: fixture.window)
        #expect(plan.keptLocalChanges.map(\.fileName) == ["uid-lunch.ics", "uid-review.ics"])
        let graphs = try #require(pull.graphVersion(ofFile: "uid-lunch.ics", in: plan))
        #expect(String(decoding: graphs, as: UTF8.self).contains("SUMMARY:Long lunch"))
        #expect(pull.graphVersion(ofFile: "uid-review.ics", in: plan) == nil, "Graph deleted it")
        var archived: [String: String] = [:]
        let report = try pull.apply(plan, overwriting: ["uid-lunch.ics", "uid-review.ics"]) { name, text in
            archived[name] = String(decoding: text, as: UTF8.self)
        }
        #expect(archived == ["uid-lunch.ics": mine, "uid-review.ics": review])
        #expect(
            report.pulled == [
                .init(fileName: "uid-lunch.ics", uid: "uid-lunch", action: .changed),
                .init(fileName: "uid-review.ics", uid: "uid-review", action: .deleted),
            ])
        #expect(report.keptLocalChanges.isEmpty)
        #expect(try fixture.folder.read("uid-lunch.ics").contents == graphs)
        #expect(try fixture.folder.scan().map(\.name) == ["uid-lunch.ics"])
        let record = try #require(try fixture.state.items(of: fixture.pairing).first)
        #expect(record.sha256 == SHA256.hash(graphs))
        // Settled items count as settled: the link moved on, and the next pull is one quiet request.
        let before = fixture.requestCount
        let quiet = try fixture.run()
        #expect(quiet.pulled.isEmpty && quiet.keptLocalChanges.isEmpty && fixture.requestCount == before + 1)
    }

    @Test func aFileEditedBetweenThePlanAndTheApplyIsKept() throws {
        let fixture = try PullFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.run()
        let link = try fixture.state.deltaCheckpoint(of: fixture.pairing)?.link
        try fixture.standIn.changeEvent(id: "lunch", ["subject": "Long lunch"])
        let pull = fixture.pull()
        let plan = try pull.plan(window: fixture.window)
        #expect(plan.items.map(\.action) == [.changed] && plan.keptLocalChanges.isEmpty)
        let mine = try fixture.text("uid-lunch.ics").replacingOccurrences(of: "Lunch", with: "Lunch (mine)")
        try fixture.folder.write(Data(mine.utf8), to: "uid-lunch.ics")
        let report = try pull.apply(plan)
        #expect(report.pulled.isEmpty && report.keptLocalChanges.map(\.fileName) == ["uid-lunch.ics"])
        #expect(try fixture.text("uid-lunch.ics") == mine)
        #expect(try fixture.state.deltaCheckpoint(of: fixture.pairing)?.link == link)
    }

    /// What the push does after its PATCH: the local text stays as the user wrote it, and the record holds
    /// Graph's new change key with that file's stat and hash.
    private func pushLocalEdit(_ fixture: PullFixture) throws -> String {
        let graph = try #require(try fixture.state.items(of: fixture.pairing).first { $0.graphID == "lunch" })
        let mine = try fixture.text("uid-lunch.ics")
            .replacingOccurrences(of: "SUMMARY:Lunch", with: "SUMMARY:Lunch (mine)\r\nX-EDITED-IN:khal")
        try fixture.folder.write(Data(mine.utf8), to: "uid-lunch.ics")
        let etag = try #require(fixture.standIn.event(id: "lunch")?["@odata.etag"] as? String)
        let updated = try fixture.client.updateEvent(
            id: "lunch", patch: Data(#"{"subject":"Lunch (mine)"}"#.utf8), ifMatch: etag)
        let changeKey = try #require(SyncPull.fields(updated)["changeKey"] as? String)
        let item = try fixture.folder.read("uid-lunch.ics")
        var record = graph
        record.changeKey = changeKey
        record.size = item.entry.size
        record.modificationNanoseconds = item.entry.modificationNanoseconds
        record.sha256 = item.sha256
        try fixture.state.upsert(record, in: fixture.pairing)
        return mine
    }

    @Test func aPushedChangeDoesNotComeBackAsARewrite() throws {
        let fixture = try PullFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.run()
        let mine = try pushLocalEdit(fixture)
        let times = try fixture.modificationTimes()
        let report = try fixture.run()
        #expect(report.pulled.isEmpty && report.keptLocalChanges.isEmpty && report.unchanged == 1)
        #expect(try fixture.text("uid-lunch.ics") == mine && fixture.modificationTimes() == times)
        // The same holds when a full round sees it (an expired link).
        fixture.standIn.expireDeltaTokens()
        let resync = try fixture.run()
        #expect(resync.round == .resync && resync.pulled.isEmpty && resync.keptLocalChanges.isEmpty)
        #expect(try fixture.modificationTimes() == times)
    }

    @Test func aLocalEditAfterAPushedChangeIsNoConflict() throws {
        let fixture = try PullFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.run()
        _ = try pushLocalEdit(fixture)
        let again = try fixture.text("uid-lunch.ics").replacingOccurrences(of: "(mine)", with: "(mine, again)")
        try fixture.folder.write(Data(again.utf8), to: "uid-lunch.ics")
        let plan = try fixture.pull().plan(window: fixture.window)
        #expect(plan.items.isEmpty && plan.keptLocalChanges.isEmpty, "Graph did not change it since the push")
    }
}

@Suite struct PullPlanOutputTests {
    @Test func aPlanNamesEachItemWithItsUIDAndWhatItWouldDo() throws {
        let fixture = try PullFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.addSingle("Review", day: 10, id: "review")
        try fixture.addSingle("Party", day: 18, id: "party")
        try fixture.run()
        try fixture.addSingle("Talk", day: 20, id: "talk")
        try fixture.standIn.changeEvent(id: "lunch", ["subject": "Long lunch"])
        try fixture.standIn.changeEvent(id: "party", ["subject": "Big party"])
        try fixture.folder.write(Data("BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n".utf8), to: "uid-party.ics")
        try fixture.standIn.removeEvent(id: "review")
        let plan = try fixture.pull().plan(window: fixture.window)
        #expect(
            Set(plan.items.map { "\($0.action) \($0.fileName) \($0.uid)" }) == [
                "changed uid-lunch.ics uid-lunch", "new uid-talk.ics uid-talk", "deleted uid-review.ics uid-review",
            ])
        #expect(plan.items.count == 3)
        #expect(plan.keptLocalChanges == [.init(fileName: "uid-party.ics", uid: "uid-party", wouldHave: .changed)])
    }

    @Test func reportsAndPlansEncodeAsJSON() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let pulled = PullReport.PulledItem(fileName: "uid-lunch.ics", uid: "uid-lunch", action: .changed)
        #expect(
            String(decoding: try encoder.encode(pulled), as: UTF8.self)
                == #"{"action":"changed","fileName":"uid-lunch.ics","uid":"uid-lunch"}"#)
        let kept = PullReport.KeptLocalChange(fileName: "uid-x.ics", uid: nil, wouldHave: .deleted)
        #expect(
            String(decoding: try encoder.encode(kept), as: UTF8.self)
                == #"{"fileName":"uid-x.ics","wouldHave":"deleted"}"#)
    }
}
