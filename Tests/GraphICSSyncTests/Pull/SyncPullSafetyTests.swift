import Foundation
import GraphICS
import Testing

@testable import GraphICSSync

/// Local edits the pull must not lose, and pulls that stop between writing files and recording them.
@Suite struct SyncPullSafetyTests {
    private struct Crash: Error {}

    @Test func aLocallyEditedFileIsKeptWhenGraphChangesOrDeletesItsEvent() throws {
        let fixture = try PullFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.addSingle("Review", day: 10, id: "review")
        try fixture.run()
        let records = try fixture.state.items(of: fixture.pairing)
        let edited = try fixture.text("uid-lunch.ics").replacingOccurrences(of: "Lunch", with: "Lunch (mine)")
        try fixture.folder.write(Data(edited.utf8), to: "uid-lunch.ics")
        let review = try fixture.text("uid-review.ics").replacingOccurrences(of: "Review", with: "Review (mine)")
        try fixture.folder.write(Data(review.utf8), to: "uid-review.ics")
        let link = try fixture.state.deltaCheckpoint(of: fixture.pairing)?.link

        try fixture.standIn.changeEvent(id: "lunch", ["subject": "Long lunch"])
        try fixture.standIn.removeEvent(id: "review")
        let report = try fixture.run()
        #expect(
            report.keptLocalChanges == [
                .init(fileName: "uid-lunch.ics", uid: "uid-lunch", wouldHave: .changed),
                .init(fileName: "uid-review.ics", uid: "uid-review", wouldHave: .deleted),
            ])
        #expect(report.pulled.isEmpty)
        #expect(try fixture.text("uid-lunch.ics") == edited && fixture.text("uid-review.ics") == review)
        #expect(try fixture.state.items(of: fixture.pairing) == records, "the records still say what was synced")
        #expect(try fixture.state.deltaCheckpoint(of: fixture.pairing)?.link == link, "Graph's change comes again")
        #expect(try fixture.run().keptLocalChanges.count == 2)
    }

    @Test func aFileTouchedButNotChangedIsPulledOver() throws {
        let fixture = try PullFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.run()
        let contents = try fixture.folder.read("uid-lunch.ics").contents
        try fixture.folder.write(contents, to: "uid-lunch.ics")  // same bytes, new mtime
        try fixture.standIn.changeEvent(id: "lunch", ["subject": "Long lunch"])
        let report = try fixture.run()
        #expect(report.pulled.map(\.action) == [.changed] && report.keptLocalChanges.isEmpty)
        #expect(try fixture.text("uid-lunch.ics").contains("SUMMARY:Long lunch"))
    }

    @Test func aFirstPullStoppedBeforeRecordingConvergesWithoutRewriting() throws {
        let fixture = try PullFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.addSeries()
        var crashing = fixture.pull()
        crashing.beforeRecording = { throw Crash() }
        #expect(throws: Crash.self) { try crashing.run(window: fixture.window) }
        #expect(try fixture.folder.scan().count == 2)
        #expect(try fixture.state.items(of: fixture.pairing).isEmpty)
        #expect(try fixture.state.deltaCheckpoint(of: fixture.pairing) == nil)
        let times = try fixture.modificationTimes()

        let report = try fixture.run()
        #expect(report.round == .first && report.pulled.map(\.action) == [.new, .new])
        #expect(try fixture.modificationTimes() == times, "files already holding Graph's version are recorded")
        try expectConverged(fixture)
    }

    @Test func aLaterPullStoppedBeforeRecordingConverges() throws {
        let fixture = try PullFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.addSeries()
        try fixture.run()
        try fixture.standIn.changeEvent(id: "lunch", ["subject": "Long lunch"])
        try fixture.standIn.changeEvent(id: "standup-21", ["subject": "Standup late"])
        var crashing = fixture.pull()
        crashing.beforeRecording = { throw Crash() }
        #expect(throws: Crash.self) { try crashing.run(window: fixture.window) }
        #expect(try fixture.text("uid-lunch.ics").contains("Long lunch"), "written, not recorded")

        let report = try fixture.run()
        #expect(report.keptLocalChanges.isEmpty && report.pulled.count == 2)
        #expect(try fixture.text("uid-standup.ics").contains("SUMMARY:Standup late"))
        try expectConverged(fixture)
    }

    @Test func aPullStoppedBetweenDeletingAFileAndItsRecordConverges() throws {
        let fixture = try PullFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.addSingle("Review", day: 10, id: "review")
        try fixture.run()
        try fixture.standIn.removeEvent(id: "review")
        try fixture.folder.delete("uid-review.ics")  // the file went; the record and the old link stayed

        let report = try fixture.run()
        #expect(report.keptLocalChanges.isEmpty)
        #expect(try fixture.state.items(of: fixture.pairing).map(\.graphID) == ["lunch"])
        try expectConverged(fixture)
    }

    /// Every record matches its file, every file has a record, and the next pull is one quiet request.
    private func expectConverged(_ fixture: PullFixture) throws {
        let records = try fixture.state.items(of: fixture.pairing)
        #expect(records.map(\.fileName) == (try fixture.folder.scan().map(\.name)))
        for record in records {
            let item = try fixture.folder.read(record.fileName)
            #expect(record.sha256 == item.sha256 && record.matches(item.entry), "\(record.fileName)")
        }
        let before = fixture.requestCount
        let quiet = try fixture.run()
        #expect(quiet.round == .changes && quiet.pulled.isEmpty && quiet.keptLocalChanges.isEmpty)
        #expect(fixture.requestCount == before + 1)
    }
}
