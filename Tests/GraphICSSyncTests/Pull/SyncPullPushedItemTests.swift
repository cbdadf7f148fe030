import Foundation
import GraphICS
import Testing

@testable import GraphICSSync

/// Events the push created, coming back through the pull: Graph gives an event created through the API an
/// `iCalUId` of its own, yet its file keeps the name and UID it had here.
@Suite struct SyncPullPushedItemTests {
    static let uid = "local-uid@example.org"

    /// A fixture whose folder held `my-event.ics` (UID local-uid@example.org, "Planning"), pushed; the
    /// event's Graph id.
    static func pushedSingle() throws -> (PushFixture, String) {
        let fixture = try PushFixture()
        try fixture.write("my-event.ics", PushFixture.single(uid, summary: "Planning"))
        let report = try fixture.sync()
        #expect(report.items.map(\.outcome) == [.pushed(.new)], "\(report.items.map(\.outcome))")
        let id = try #require(try fixture.record("my-event.ics")?.graphID)
        let iCalUId = try #require(fixture.standIn.event(id: id)?["iCalUId"] as? String)
        #expect(iCalUId != uid, "Graph made its own iCalUId, which this suite is about")
        return (fixture, id)
    }

    @Test func aPushedEventKeepsItsFileAndUIDThroughPullsOfItsChangesAndItsDeletion() throws {
        let (fixture, id) = try Self.pushedSingle()
        let pushed = try #require(try fixture.record("my-event.ics"))

        let first = try fixture.base.run()
        #expect(first.diagnostics.isEmpty && first.pulled.isEmpty, "\(first.diagnostics) \(first.pulled)")
        #expect(try fixture.folder.scan().map(\.name) == ["my-event.ics"])
        #expect(try fixture.base.parsedEvents("my-event.ics").map(\.uid) == [Self.uid])
        let record = try #require(try fixture.record("my-event.ics"))
        #expect(record.graphID == pushed.graphID && record.changeKey == pushed.changeKey && record.uid == Self.uid)

        try fixture.standIn.changeEvent(id: id, ["subject": "Planning (moved)"])
        let changed = try fixture.base.run()
        #expect(changed.diagnostics.isEmpty, "\(changed.diagnostics)")
        #expect(changed.pulled == [.init(fileName: "my-event.ics", uid: Self.uid, action: .changed)])
        #expect(try fixture.folder.scan().map(\.name) == ["my-event.ics"])
        #expect(try fixture.base.text("my-event.ics").contains("SUMMARY:Planning (moved)"))
        #expect(try fixture.base.parsedEvents("my-event.ics").map(\.uid) == [Self.uid])
        let after = try #require(try fixture.record("my-event.ics"))
        #expect(after.graphID == id && after.uid == Self.uid)
        #expect(after.changeKey == fixture.standIn.event(id: id)?["changeKey"] as? String)
        #expect(try fixture.push().plan().actions.isEmpty, "the pulled file is recorded: nothing to push back")

        try fixture.standIn.removeEvent(id: id)
        let deleted = try fixture.base.run()
        #expect(deleted.pulled == [.init(fileName: "my-event.ics", uid: Self.uid, action: .deleted)])
        #expect(try fixture.folder.scan().isEmpty && fixture.state.items(of: fixture.pairing).isEmpty)
    }

    @Test func aPushedEventChangedOnBothSidesIsKeptUnderItsFileWithGraphsVersionUnderItsUID() throws {
        let (fixture, id) = try Self.pushedSingle()
        try fixture.edit("my-event.ics", replacing: "SUMMARY:", with: "SUMMARY:Planning (mine)")
        let mine = try fixture.base.folder.read("my-event.ics").contents
        try fixture.standIn.changeEvent(id: id, ["subject": "Planning (moved)"])
        let kept = PullReport.KeptLocalChange(fileName: "my-event.ics", uid: Self.uid, wouldHave: .changed)

        let pull = fixture.base.pull()
        let plan = try pull.plan(window: fixture.base.window)
        #expect(plan.round == .first && plan.keptLocalChanges == [kept] && plan.items.isEmpty, "\(plan.items)")
        let graph = String(decoding: try #require(pull.graphVersion(ofFile: "my-event.ics", in: plan)), as: UTF8.self)
        #expect(graph.contains("SUMMARY:Planning (moved)") && graph.contains("UID:\(Self.uid)"), "\(graph)")
        #expect(try pull.apply(plan).keptLocalChanges == [kept])
        #expect(try fixture.record("my-event.ics")?.changeKey == nil, "marked: Graph's version is read again")

        // The next round reads the kept event again by its id, and keeps it under the same file.
        let again = try fixture.base.run()
        #expect(again.round == .changes && again.keptLocalChanges == [kept] && again.diagnostics.isEmpty)
        #expect(try fixture.folder.scan().map(\.name) == ["my-event.ics"])

        // Settled for Graph: its version replaces the file, under the file's UID, after the local text.
        var archived: [String: Data] = [:]
        let settled = try pull.apply(
            try pull.plan(window: fixture.base.window), overwriting: ["my-event.ics"],
            archive: { name, text in archived[name] = text })
        #expect(settled.pulled == [.init(fileName: "my-event.ics", uid: Self.uid, action: .changed)])
        #expect(archived == ["my-event.ics": mine])
        #expect(try fixture.base.text("my-event.ics") == graph && fixture.folder.scan().count == 1)
        #expect(try fixture.record("my-event.ics")?.graphID == id)
    }

    @Test func aPushedSeriesWithAnOverrideKeepsItsFileAndUIDOnMasterAndOverride() throws {
        let fixture = try PushFixture()
        let uid = "local-series@example.org"
        try fixture.write(
            "weekly.ics",
            PushFixture.calendar(
                [
                    "UID:\(uid)", "DTSTAMP:20261120T100000Z", "DTSTART:20261207T090000Z", "DTEND:20261207T093000Z",
                    "RRULE:FREQ=WEEKLY;COUNT=4", "SUMMARY:Standup",
                ],
                [
                    "UID:\(uid)", "RECURRENCE-ID:20261221T090000Z", "DTSTAMP:20261120T100000Z",
                    "DTSTART:20261221T100000Z", "DTEND:20261221T103000Z", "SUMMARY:Standup (moved)",
                ]))
        #expect(try fixture.sync().items.map(\.outcome) == [.pushed(.new)])
        let id = try #require(try fixture.record("weekly.ics")?.graphID)

        let first = try fixture.base.run()
        #expect(first.diagnostics.isEmpty, "\(first.diagnostics)")
        #expect(try fixture.folder.scan().map(\.name) == ["weekly.ics"])
        let events = try fixture.base.parsedEvents("weekly.ics")
        #expect(events.map(\.uid) == [uid, uid] && events.map(\.isOverride) == [false, true], "\(events)")
        #expect(try fixture.base.text("weekly.ics").contains("SUMMARY:Standup (moved)"))
        #expect(try fixture.record("weekly.ics")?.graphID == id)

        try fixture.standIn.changeEvent(id: id, ["subject": "Daily standup"])
        let changed = try fixture.base.run()
        #expect(changed.diagnostics.isEmpty, "\(changed.diagnostics)")
        #expect(changed.pulled == [.init(fileName: "weekly.ics", uid: uid, action: .changed)])
        #expect(try fixture.folder.scan().map(\.name) == ["weekly.ics"])
        #expect(try fixture.base.text("weekly.ics").contains("SUMMARY:Daily standup"))
        #expect(try fixture.base.parsedEvents("weekly.ics").map(\.uid) == [uid, uid])

        try fixture.standIn.removeEvent(id: id)
        let deleted = try fixture.base.run()
        #expect(deleted.pulled == [.init(fileName: "weekly.ics", uid: uid, action: .deleted)])
        #expect(try fixture.folder.scan().isEmpty && fixture.state.items(of: fixture.pairing).isEmpty)
    }

    @Test func anotherGraphEventWithThePushedFilesUIDIsNotPulledOverIt() throws {
        let (fixture, id) = try Self.pushedSingle()
        let text = try fixture.base.text("my-event.ics")
        // The same file imported in Outlook as well: an event of its own, with the file's UID as iCalUId.
        try fixture.standIn.addEvent([
            "id": "outlook-copy", "subject": "Planning (Outlook's copy)", "iCalUId": Self.uid,
            "start": ["dateTime": "2026-12-05T14:00:00", "timeZone": "UTC"],
            "end": ["dateTime": "2026-12-05T15:00:00", "timeZone": "UTC"],
        ])
        let report = try fixture.base.run()
        #expect(report.pulled.isEmpty, "\(report.pulled)")
        #expect(try fixture.folder.scan().map(\.name) == ["my-event.ics"], "no second file with that UID")
        #expect(try fixture.base.text("my-event.ics") == text)
        let warning = try #require(report.diagnostics.first { $0.eventID == "outlook-copy" })
        #expect(warning.message.contains("UID \(Self.uid) is synced as my-event.ics"), "\(warning.message)")
        #expect(try fixture.state.items(of: fixture.pairing).map(\.graphID) == [id])
    }

    @Test func aNewGraphEventNamedAsAnotherEventsFileIsNotWrittenOverIt() throws {
        let fixture = try PullFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.run()
        let text = try fixture.text("uid-lunch.ics")
        try fixture.standIn.addEvent([
            "id": "copy", "subject": "Copied lunch", "iCalUId": "uid-lunch",
            "start": ["dateTime": "2026-12-04T10:00:00", "timeZone": "UTC"],
            "end": ["dateTime": "2026-12-04T11:00:00", "timeZone": "UTC"],
        ])
        let report = try fixture.run()
        #expect(report.round == .changes && report.pulled.isEmpty, "\(report.pulled)")
        #expect(try fixture.text("uid-lunch.ics") == text)
        let warning = try #require(report.diagnostics.first { $0.eventID == "copy" })
        #expect(warning.message.contains("UID uid-lunch is synced as uid-lunch.ics"), "\(warning.message)")
        #expect(try fixture.state.items(of: fixture.pairing).map(\.graphID) == ["lunch"])
    }

    @Test func aNewGraphEventTakesOverTheFileOfTheEventItReplacesInTheSameRound() throws {
        let fixture = try PullFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.run()
        try fixture.standIn.removeEvent(id: "lunch")
        try fixture.standIn.addEvent([
            "id": "lunch-again", "subject": "Lunch again", "iCalUId": "uid-lunch",
            "start": ["dateTime": "2026-12-04T10:00:00", "timeZone": "UTC"],
            "end": ["dateTime": "2026-12-04T11:00:00", "timeZone": "UTC"],
        ])
        let report = try fixture.run()
        #expect(report.diagnostics.isEmpty && report.keptLocalChanges.isEmpty, "\(report.keptLocalChanges)")
        #expect(report.pulled == [.init(fileName: "uid-lunch.ics", uid: "uid-lunch", action: .changed)])
        #expect(try fixture.text("uid-lunch.ics").contains("SUMMARY:Lunch again"))
        #expect(try fixture.state.items(of: fixture.pairing).map(\.graphID) == ["lunch-again"])
        #expect(try fixture.run().pulled.isEmpty, "settled")
    }
}
