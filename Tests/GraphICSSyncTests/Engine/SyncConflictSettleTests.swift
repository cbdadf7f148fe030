import Foundation
import GraphICS
import Testing

@testable import GraphICSSync

/// Conflicts that settle: what differs is shown, the way out named is one that works, "keep mine" for a
/// meeting stays settled while the push holds it, a held change is reported once, and `--discard FILE`
/// gives a file's local change up for Outlook's version.
@Suite struct SyncConflictSettleTests {
    /// A meeting Ada organises with one attendee (Bo), synced.
    static func addMeeting(_ fixture: EngineFixture) throws {
        try fixture.standIn.addEvent([
            "id": "review", "subject": "Review", "iCalUId": "uid-review", "isOrganizer": true,
            "start": ["dateTime": "2026-12-08T10:00:00", "timeZone": "UTC"],
            "end": ["dateTime": "2026-12-08T11:00:00", "timeZone": "UTC"],
            "attendees": [["type": "required", "emailAddress": ["name": "Bo", "address": "bo@example.com"]]],
        ])
        _ = try fixture.run()
    }

    /// A meeting Ada organises with one attendee, synced; then renamed in Outlook and here.
    static func conflictedMeeting() throws -> EngineFixture {
        let fixture = try EngineFixture()
        try Self.addMeeting(fixture)
        try fixture.standIn.changeEvent(id: "review", ["subject": "Review (Outlook)"])
        try fixture.editSummary("uid-review.ics", to: "Review (mine)")
        return fixture
    }

    @Test func theConflictShowsWhatDiffersOnBothSides() throws {
        let fixture = try SyncRunTests.conflicted()
        var shown: [SyncConflict] = []
        _ = try fixture.run(resolver: { conflict in
            shown.append(conflict)
            return .skip
        })
        #expect(shown.map(\.differences) == [[#"subject: "My lunch" here, "Outlook lunch" in Outlook"#]])
        #expect(shown.first?.attendeesMailed == 0)
    }

    @Test func aMeetingsConflictNamesTheWaysOutThatWork() throws {
        let fixture = try Self.conflictedMeeting()
        let report = try fixture.run()
        let line = try #require(report.lines.first, "\(report.items)")
        #expect(line.contains("--conflict graph keeps Outlook's version"), "\(line)")
        #expect(line.contains("--conflict local --as-meeting --yes, which mails its 1 attendee"), "\(line)")
        #expect(report.hasProblems)
    }

    @Test func keepingMineForAMeetingIsHeldOnceAndStaysSettled() throws {
        let fixture = try Self.conflictedMeeting()
        let mailed = fixture.standIn.sentUpdates.count  // the organizer's change in Outlook mailed Bo already
        let mine = try fixture.run { $0.conflicts = .local }
        #expect(EngineFixture.outcomes(mine) == ["uid-review.ics": .held(attendees: 1)], "\(mine.items)")
        #expect(!mine.hasProblems)
        for _ in 1...3 {
            let cron = try fixture.run()
            #expect(cron.items.isEmpty && !cron.hasProblems, "\(cron.items)")
            #expect(cron.heldBefore == 1 && cron.summary.contains("1 held as before"), "\(cron.summary)")
        }
        #expect(fixture.subject("review") == "Review (Outlook)", "nothing was sent")
        #expect(fixture.standIn.sentUpdates.count == mailed)
        let sent = try fixture.run {
            $0.conflicts = .local
            $0.notifiesAttendees = true
        }
        #expect(EngineFixture.outcomes(sent)["uid-review.ics"] == .pushed(.changed), "\(sent.items)")
        #expect(fixture.subject("review") == "Review (mine)" && fixture.standIn.sentUpdates.count == mailed + 1)
    }

    @Test func aHeldChangeIsReportedOncePerLocalChange() throws {
        let fixture = try EngineFixture()
        try Self.addMeeting(fixture)
        try fixture.editSummary("uid-review.ics", to: "Review 2")
        #expect(EngineFixture.outcomes(try fixture.run()) == ["uid-review.ics": .held(attendees: 1)])
        let again = try fixture.run()
        #expect(again.items.isEmpty && again.heldBefore == 1, "\(again.items)")
        try fixture.editSummary("uid-review.ics", to: "Review 3")
        #expect(EngineFixture.outcomes(try fixture.run()) == ["uid-review.ics": .held(attendees: 1)], "a new change")
    }

    @Test func discardReplacesAFileWithOutlooksVersionKeepingItsText() throws {
        let fixture = try EngineFixture()
        try fixture.base.addSingle("Lunch", day: 3, id: "lunch")
        _ = try fixture.run()
        try fixture.editSummary("uid-lunch.ics", to: "My lunch")
        let local = try fixture.folder.read("uid-lunch.ics").contents
        let report = try fixture.run { $0.discarding = ["uid-lunch.ics"] }
        let kept = fixture.stateDirectory + "/conflicts/uid-lunch.20261201T100005.local.ics"
        #expect(
            EngineFixture.outcomes(report) == ["uid-lunch.ics": .conflict(.graph, kept: kept, reason: nil)],
            "\(report.items)")
        #expect(try fixture.base.text("uid-lunch.ics").contains("SUMMARY:Lunch\r\n"))
        #expect(FileManager.default.contents(atPath: kept) == local)
        #expect(fixture.subject("lunch") == "Lunch", "nothing was sent")
        #expect(try fixture.run().items.isEmpty)
    }

    @Test func discardBringsBackAFileDeletedHere() throws {
        let fixture = try Self.conflictedMeeting()
        let report = try fixture.run { $0.discarding = ["uid-review.ics"] }
        #expect(!report.hasProblems, "\(report.items)")
        #expect(try fixture.base.text("uid-review.ics").contains("SUMMARY:Review (Outlook)"))
        try fixture.folder.delete("uid-review.ics")
        let restored = try fixture.run { $0.discarding = ["uid-review.ics"] }
        #expect(!restored.hasProblems, "\(restored.items)")
        #expect(try fixture.base.text("uid-review.ics").contains("SUMMARY:Review (Outlook)"))
        #expect(fixture.standIn.event(id: "review") != nil && fixture.standIn.sentCancellations.isEmpty)
    }
}
