import Foundation
import GraphICS
import Testing

@testable import GraphICSSync

/// A push sends only what the file changed against the event Graph holds (``EventChange``, issue 28 item 2),
/// with the sync-file property every PATCH carries; a file that changes nothing Graph holds sends nothing.
@Suite struct SyncPushChangeTests {
    /// An event with an HTML body, a structured location and a reminder, pulled into `uid-review.ics`; with
    /// `attendees`, a meeting the user organises.
    static func pulledReview(attendees: [String] = []) throws -> PushFixture {
        let fixture = try PushFixture()
        var event: [String: Any] = [
            "id": "review", "subject": "Review", "iCalUId": "uid-review",
            "body": ["contentType": "html", "content": "<html><body><p>Agenda:<br>1. Budget</p></body></html>"],
            "start": ["dateTime": "2026-12-03T10:00:00", "timeZone": "UTC"],
            "end": ["dateTime": "2026-12-03T11:00:00", "timeZone": "UTC"],
            "location": [
                "displayName": "Room 1", "address": ["street": "Main St 1", "city": "Berlin", "postalCode": "10115"],
            ],
            "isReminderOn": true, "reminderMinutesBeforeStart": 15,
        ]
        if !attendees.isEmpty {
            event["isOrganizer"] = true
            event["attendees"] = attendees.map { ["emailAddress": ["address": $0], "type": "required"] }
        }
        try fixture.standIn.addEvent(event)
        try fixture.base.run()
        return fixture
    }

    static func patchKeys(_ fixture: PushFixture) throws -> Set<String> {
        let patch = try #require(fixture.standIn.operations.last { $0.method == "PATCH" })
        return Set((patch.jsonBody as? [String: Any])?.keys.map { $0 } ?? [])
    }

    @Test("a SUMMARY edit sends the subject alone (and the sync-file property); the structured location stays")
    func summaryOnly() throws {
        let fixture = try Self.pulledReview()
        try fixture.edit("uid-review.ics", replacing: "SUMMARY:", with: "SUMMARY:Budget review")
        let report = try fixture.push().apply(try fixture.push().plan())
        #expect(report.items.map(\.outcome) == [.pushed(.changed)])
        #expect(try Self.patchKeys(fixture) == ["subject", "singleValueExtendedProperties"])
        let patch = try #require(fixture.standIn.operations.last { $0.method == "PATCH" })
        let properties = (patch.jsonBody as? [String: Any])?["singleValueExtendedProperties"] as? [[String: Any]]
        #expect(properties?.contains { $0["id"] as? String == SyncPush.filePropertyID } == true)
        let event = try #require(fixture.standIn.event(id: "review"))
        #expect(event["subject"] as? String == "Budget review")
        let location = event["location"] as? [String: Any]
        #expect((location?["address"] as? [String: Any])?["street"] as? String == "Main St 1")
        #expect(((event["body"] as? [String: Any])?["content"] as? String)?.contains("Organizer") != true)
    }

    @Test("a change of line endings only sends nothing and records the file's new hash")
    func lineEndingsOnly() throws {
        let fixture = try Self.pulledReview()
        let text = try fixture.base.text("uid-review.ics")
        let path = fixture.folder.path + "/uid-review.ics"
        try Data(text.replacingOccurrences(of: "\r\n", with: "\n").utf8).write(to: URL(fileURLWithPath: path))
        let plan = try fixture.push().plan()
        #expect(plan.actions.map(\.kind) == [.update])
        let report = try fixture.push().apply(plan)
        #expect(report.items.map(\.outcome) == [.recorded], "reported as sending nothing")
        #expect(fixture.operations("PATCH").isEmpty)
        #expect(try fixture.record("uid-review.ics")?.sha256 == (try fixture.folder.read("uid-review.ics").sha256))
        #expect(try fixture.push().plan().actions.isEmpty)
    }

    @Test("a reminder change of a meeting one organises is sent without --as-meeting: it mails nobody")
    func reminderOnlyOfAMeeting() throws {
        let fixture = try Self.pulledReview(attendees: ["ann@contoso.example"])
        let text = try fixture.base.text("uid-review.ics")
        #expect(text.contains("TRIGGER:-PT15M"), "\(text)")
        try fixture.edit("uid-review.ics", replacing: "TRIGGER:", with: "TRIGGER:-PT30M")
        let report = try fixture.push().apply(try fixture.push().plan())
        #expect(report.items.map(\.outcome) == [.pushed(.changed)])
        #expect(
            try Self.patchKeys(fixture)
                == ["isReminderOn", "reminderMinutesBeforeStart", "singleValueExtendedProperties"])
        #expect(fixture.standIn.event(id: "review")?["reminderMinutesBeforeStart"] as? Int == 30)
        #expect(fixture.standIn.sentUpdates.isEmpty)
    }
}
