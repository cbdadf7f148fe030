import Foundation
import GraphICS
import ICalBridge
import Testing

@testable import GraphICSSync

/// What a sync's report says of items that are not simply pulled or pushed: a dry run and the run decide a
/// file alike, a refusal stays one short line, a local file's error is its item's line only, and items
/// whose file is gone are named by their subject.
@Suite struct SyncRunReportTests {
    @Test func aCancelledNewFileIsRefusedAlikeInADryRunAndInTheRun() throws {
        let fixture = try EngineFixture()
        try fixture.push.write(
            "cancelled.ics",
            ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//x//EN", "METHOD:CANCEL"]
                + Array(PushFixture.single("cancelled", summary: "Cancelled show").dropFirst(3)))
        let dry = try fixture.run { $0.dryRun = true }
        let run = try fixture.run()
        let refused = "the event is cancelled (STATUS:CANCELLED or METHOD:CANCEL): nothing to create"
        #expect(EngineFixture.outcomes(dry) == ["cancelled.ics": .refused(reason: refused)], "\(dry.items)")
        #expect(EngineFixture.outcomes(run) == ["cancelled.ics": .refused(reason: refused)], "\(run.items)")
        #expect(fixture.subjects().isEmpty, "nothing was created")
    }

    @Test func aFileWithHundredsOfUIDsIsRefusedInOneShortLine() throws {
        let fixture = try EngineFixture()
        let events = (1...306).map { index in
            [
                "UID:many-\(index)", "DTSTAMP:20261120T100000Z", "DTSTART:20261205T140000Z",
                "DTEND:20261205T150000Z", "SUMMARY:Item \(index)",
            ]
        }
        let lines =
            ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//x//EN"]
            + events.flatMap { ["BEGIN:VEVENT"] + $0 + ["END:VEVENT"] } + ["END:VCALENDAR"]
        try fixture.push.write("many.ics", lines)
        let report = try fixture.run()
        let line = try #require(report.lines.first { $0.hasPrefix("refused: ") }, "\(report.lines)")
        #expect(line.contains("306 events with different UIDs (many-1, many-10, many-100, …)"), "\(line)")
        #expect(line.count < 250, "\(line.count) characters")
    }

    @Test func aLocalFilesErrorIsItsItemsLineOnlyAndNotCountedAsGraphs() throws {
        let fixture = try EngineFixture()
        try fixture.push.write(
            "broken.ics",
            PushFixture.calendar([
                "UID:broken", "DTSTAMP:20261120T100000Z", "DTSTART:20261305T140000Z", "SUMMARY:Broken",
            ]))
        let report = try fixture.run()
        #expect(report.items.count == 1, "\(report.items)")
        if case .failed = report.items.first?.outcome {} else { Issue.record("not failed: \(report.items)") }
        #expect(!report.diagnostics.contains { $0.severity == .error }, "printed once, as the item's line")
        #expect(!report.summary.contains("Graph sent"), "\(report.summary)")
        #expect(report.summary.contains("1 failed") && report.hasProblems, "\(report.summary)")
    }

    @Test func aFileDeletedByThePullAndAHeldDeletionAreNamedBySubject() throws {
        let fixture = try EngineFixture()
        try fixture.base.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.standIn.addEvent([
            "id": "review", "subject": "Quarterly review", "iCalUId": "uid-review", "isOrganizer": true,
            "start": ["dateTime": "2026-12-08T10:00:00", "timeZone": "UTC"],
            "end": ["dateTime": "2026-12-08T11:00:00", "timeZone": "UTC"],
            "attendees": [
                [
                    "type": "required", "status": ["response": "none", "time": "0001-01-01T00:00:00Z"],
                    "emailAddress": ["name": "Bo", "address": "bo@example.com"],
                ]
            ],
        ])
        _ = try fixture.run()
        try fixture.standIn.removeEvent(id: "lunch")
        try fixture.folder.delete("uid-review.ics")
        let report = try fixture.run()
        #expect(report.lines.contains("pulled deleted  uid-lunch.ics  Lunch"), "\(report.lines)")
        #expect(
            report.lines.contains("held (would mail 1 attendee)  uid-review.ics  Quarterly review"), "\(report.lines)")
    }
}

/// Sync's push under the one mail rule: a change to a meeting with an attendee is held when the user
/// organises it or Graph did not say (`isOrganizer` missing), and sent, mailing nobody, for the user's copy
/// of someone else's meeting.
@Suite struct SyncPushMailingRuleTests {
    @Test(arguments: [(true as Bool?, true), (nil, true), (false, false)])
    func aChangedMeetingIsHeldOnlyWhenGraphWouldMail(isOrganizer: Bool?, held: Bool) throws {
        let fixture = try EngineFixture()
        var event: [String: Any] = [
            "id": "review", "subject": "Review", "iCalUId": "uid-review",
            "start": ["dateTime": "2026-12-08T10:00:00", "timeZone": "UTC"],
            "end": ["dateTime": "2026-12-08T11:00:00", "timeZone": "UTC"],
            "attendees": [["type": "required", "emailAddress": ["name": "Bo", "address": "bo@example.com"]]],
        ]
        if let isOrganizer { event["isOrganizer"] = isOrganizer }
        try fixture.standIn.addEvent(event)
        _ = try fixture.run()
        try fixture.editSummary("uid-review.ics", to: "Review (new room)")
        fixture.standIn.omitsIsOrganizer = isOrganizer == nil
        let report = try fixture.run()
        fixture.standIn.omitsIsOrganizer = false
        let outcome = EngineFixture.outcomes(report)["uid-review.ics"]
        #expect(outcome == (held ? .held(attendees: 1) : .pushed(.changed)), "\(report.items)")
        #expect(fixture.subject("review") == (held ? "Review" : "Review (new room)"))
        #expect(fixture.standIn.sentUpdates.isEmpty)
    }
}

/// Sync's push never sends the body of an online meeting: Graph would turn the meeting off for everybody.
@Suite struct SyncPushOnlineMeetingTests {
    @Test func anEditedOnlineMeetingKeepsItsMeeting() throws {
        let fixture = try EngineFixture()
        try fixture.standIn.addEvent([
            "id": "standup", "subject": "Team call", "iCalUId": "uid-call", "isOnlineMeeting": true,
            "onlineMeetingProvider": "teamsForBusiness",
            "body": ["contentType": "html", "content": "<html><body>Join the call</body></html>"],
            "start": ["dateTime": "2026-12-08T10:00:00", "timeZone": "UTC"],
            "end": ["dateTime": "2026-12-08T11:00:00", "timeZone": "UTC"],
        ])
        _ = try fixture.run()
        try fixture.editSummary("uid-call.ics", to: "Team call (agenda)")
        let report = try fixture.run()
        #expect(EngineFixture.outcomes(report)["uid-call.ics"] == .pushed(.changed), "\(report.items)")
        #expect(fixture.subject("standup") == "Team call (agenda)")
        #expect(fixture.standIn.disabledOnlineMeetings.isEmpty, "the online meeting is still on")
        #expect(fixture.standIn.event(id: "standup")?["isOnlineMeeting"] as? Bool == true)
    }

    @Test func aChangedDescriptionOfAnOnlineMeetingIsRefusedAndNothingIsSent() throws {
        let fixture = try EngineFixture()
        try fixture.standIn.addEvent([
            "id": "standup", "subject": "Team call", "iCalUId": "uid-call", "isOnlineMeeting": true,
            "onlineMeetingProvider": "teamsForBusiness",
            "body": ["contentType": "html", "content": "<html><body>Join the call</body></html>"],
            "start": ["dateTime": "2026-12-08T10:00:00", "timeZone": "UTC"],
            "end": ["dateTime": "2026-12-08T11:00:00", "timeZone": "UTC"],
        ])
        _ = try fixture.run()
        try fixture.push.edit(
            "uid-call.ics", replacing: "DESCRIPTION:", with: "DESCRIPTION:Agenda: the release", after: "SUMMARY:")
        let before = fixture.standIn.operations.filter { $0.method == "PATCH" }.count
        let dry = try fixture.run { $0.dryRun = true }
        #expect(
            EngineFixture.outcomes(dry)["uid-call.ics"] == .refused(reason: OnlineMeetingBody.refusal),
            "a dry run decides as the run: \(dry.items)")
        let report = try fixture.run()
        #expect(
            EngineFixture.outcomes(report)["uid-call.ics"] == .refused(reason: OnlineMeetingBody.refusal),
            "\(report.items)")
        #expect(fixture.standIn.operations.filter { $0.method == "PATCH" }.count == before, "nothing sent")
        #expect(fixture.standIn.disabledOnlineMeetings.isEmpty)
    }
}
