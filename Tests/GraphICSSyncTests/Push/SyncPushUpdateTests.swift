import Foundation
import GraphICS
import Testing

@testable import GraphICSSync

@Suite struct SyncPushUpdateTests {
    /// A fixture with the single event "Lunch" (`lunch`, 3 December) pulled into `uid-lunch.ics`.
    static func pulledLunch(attendees: [String] = []) throws -> PushFixture {
        let fixture = try PushFixture()
        var event: [String: Any] = [
            "id": "lunch", "subject": "Lunch", "iCalUId": "uid-lunch",
            "start": ["dateTime": "2026-12-03T10:00:00", "timeZone": "UTC"],
            "end": ["dateTime": "2026-12-03T11:00:00", "timeZone": "UTC"],
        ]
        if !attendees.isEmpty {
            event["isOrganizer"] = true
            event["attendees"] = attendees.map { ["emailAddress": ["address": $0], "type": "required"] }
        }
        try fixture.standIn.addEvent(event)
        try fixture.base.run()
        return fixture
    }

    @Test func aChangedFileIsPatchedWithIfMatchAndItsChangeKeyRecorded() throws {
        let fixture = try Self.pulledLunch()
        let before = try #require(try fixture.record("uid-lunch.ics"))
        try fixture.edit("uid-lunch.ics", replacing: "SUMMARY:", with: "SUMMARY:Long lunch")
        let plan = try fixture.push().plan()
        #expect(plan.actions.map(\.kind) == [.update] && plan.actions.first?.graphID == "lunch")
        #expect(plan.actions.first?.uid == "uid-lunch" && plan.actions.first?.subject == "Long lunch")

        let report = try fixture.push().apply(plan)
        #expect(report.items.map(\.outcome) == [.pushed(.changed)])
        let event = try #require(fixture.standIn.event(id: "lunch"))
        #expect(event["subject"] as? String == "Long lunch")
        let patch = try #require(fixture.standIn.operations.last { $0.method == "PATCH" })
        #expect(patch.path.hasSuffix("/events/lunch"))
        #expect(patch.headers.first { $0.name.lowercased() == "if-match" }?.value == "W/\"\(before.changeKey ?? "")\"")
        let record = try #require(try fixture.record("uid-lunch.ics"))
        #expect(record.changeKey == event["changeKey"] as? String && record.changeKey != before.changeKey)
        #expect(record.sha256 == (try fixture.folder.read("uid-lunch.ics").sha256))
        #expect(try fixture.push().plan().actions.isEmpty, "a re-plan right after apply plans nothing")
    }

    @Test func aDeletedFileDeletesTheEventWithIfMatch() throws {
        let fixture = try Self.pulledLunch()
        try FileManager.default.removeItem(atPath: fixture.folder.path + "/uid-lunch.ics")
        let plan = try fixture.push().plan()
        #expect(plan.actions.map(\.kind) == [.delete] && plan.deletionCount == 1)
        let report = try fixture.push().apply(plan)
        #expect(report.items.map(\.outcome) == [.pushed(.deleted)])
        #expect(fixture.standIn.event(id: "lunch") == nil)
        let delete = try #require(fixture.standIn.operations.last { $0.method == "DELETE" })
        #expect(delete.headers.contains { $0.name.lowercased() == "if-match" })
        #expect(try fixture.state.items(of: fixture.pairing).isEmpty)
        #expect(try fixture.push().plan().actions.isEmpty)
    }

    @Test func aDeletedFileWhoseEventIsGoneJustDropsTheRecord() throws {
        let fixture = try Self.pulledLunch()
        try FileManager.default.removeItem(atPath: fixture.folder.path + "/uid-lunch.ics")
        let plan = try fixture.push().plan()
        try fixture.standIn.removeEvent(id: "lunch")
        #expect(try fixture.push().apply(plan).items.map(\.outcome) == [.pushed(.deleted)])
        #expect(fixture.operations("DELETE").isEmpty)
        #expect(try fixture.state.items(of: fixture.pairing).isEmpty)
    }

    @Test func aMeetingTheUserOrganisesIsHeldUnlessNotifying() throws {
        let fixture = try Self.pulledLunch(attendees: ["grace@contoso.example", "alan@contoso.example"])
        try fixture.edit("uid-lunch.ics", replacing: "SUMMARY:", with: "SUMMARY:Long lunch")
        let held = try fixture.sync()
        #expect(held.items.map(\.outcome) == [.held(attendees: 2)])
        #expect(held.items.first.map { "\($0.outcome)" } == "held (would mail 2 attendees)")
        #expect(fixture.operations("PATCH").isEmpty)
        #expect(fixture.standIn.event(id: "lunch")?["subject"] as? String == "Lunch")
        #expect(try fixture.push().plan().actions.map(\.kind) == [.update], "still to send")

        try FileManager.default.removeItem(atPath: fixture.folder.path + "/uid-lunch.ics")
        #expect(try fixture.sync().items.map(\.outcome) == [.held(attendees: 2)])
        #expect(fixture.operations("DELETE").isEmpty && fixture.standIn.sentCancellations.isEmpty)
        #expect(fixture.standIn.event(id: "lunch") != nil)

        #expect(try fixture.sync(notifiesAttendees: true).items.map(\.outcome) == [.pushed(.deleted)])
        #expect(Set(fixture.standIn.sentCancellations) == ["grace@contoso.example", "alan@contoso.example"])
    }

    @Test func aChangeInOutlookSinceTheLastSyncIsAConflict() throws {
        let fixture = try Self.pulledLunch()
        let before = try fixture.record("uid-lunch.ics")
        try fixture.edit("uid-lunch.ics", replacing: "SUMMARY:", with: "SUMMARY:Long lunch")
        let plan = try fixture.push().plan()
        try fixture.standIn.changeEvent(id: "lunch", ["subject": "Business lunch"])
        let report = try fixture.push().apply(plan)
        guard case .conflict(let reason)? = report.items.first?.outcome else {
            Issue.record("not a conflict: \(report.items)")
            return
        }
        #expect(reason.contains("changed in Outlook since the last sync"))
        #expect(report.conflicts.map(\.fileName) == ["uid-lunch.ics"])
        #expect(fixture.operations("PATCH").isEmpty)
        #expect(fixture.standIn.event(id: "lunch")?["subject"] as? String == "Business lunch")
        #expect(try fixture.record("uid-lunch.ics") == before, "the record stays as the last sync left it")

        // The local version wins: sent with If-Match on Graph's current etag.
        let current = try #require(fixture.standIn.event(id: "lunch")?["changeKey"] as? String)
        let won = try fixture.push().apply(try fixture.push().plan(), overriding: ["uid-lunch.ics"])
        #expect(won.items.map(\.outcome) == [.pushed(.changed)])
        #expect(fixture.standIn.event(id: "lunch")?["subject"] as? String == "Long lunch")
        let patch = try #require(fixture.standIn.operations.last { $0.method == "PATCH" })
        #expect(patch.headers.first { $0.name.lowercased() == "if-match" }?.value == "W/\"\(current)\"")
    }

    @Test func anEventDeletedInOutlookAndChangedHereIsAConflictThatTheLocalVersionWinsByMakingItAgain() throws {
        let fixture = try Self.pulledLunch()
        try fixture.edit("uid-lunch.ics", replacing: "SUMMARY:", with: "SUMMARY:Long lunch")
        try fixture.standIn.removeEvent(id: "lunch")
        let report = try fixture.sync()
        #expect(
            report.items.map(\.outcome) == [
                .conflict(reason: "deleted in Outlook since the last sync, and changed here")
            ])
        #expect(fixture.events.isEmpty)

        let push = fixture.push()
        let won = try push.apply(try push.plan(), overriding: ["uid-lunch.ics"])
        #expect(won.items.map(\.outcome) == [.pushed(.new)])
        let event = try #require(fixture.events.first)
        #expect(fixture.events.count == 1 && event["subject"] as? String == "Long lunch")
        #expect(won.items.first?.graphID == event["id"] as? String)
        #expect(try fixture.record("uid-lunch.ics")?.graphID == event["id"] as? String)
        #expect(try fixture.push().plan().actions.isEmpty)
    }

    @Test func aChangeInOutlookWhileSendingIsAConflictBy412() throws {
        let fixture = try Self.pulledLunch()
        try fixture.edit("uid-lunch.ics", replacing: "SUMMARY:", with: "SUMMARY:Long lunch")
        var push = fixture.push()
        let standIn = fixture.standIn
        push.beforeWriting = { _ in try standIn.changeEvent(id: "lunch", ["subject": "Business lunch"]) }
        let report = try push.apply(try push.plan())
        guard case .conflict(let reason)? = report.items.first?.outcome else {
            Issue.record("not a conflict: \(report.items)")
            return
        }
        #expect(reason.contains("412"))
        #expect(fixture.operations("PATCH").count == 1, "sent once, refused")
        #expect(fixture.standIn.event(id: "lunch")?["subject"] as? String == "Business lunch")
    }

    @Test func skippedItemsAreNotSent() throws {
        let fixture = try Self.pulledLunch()
        try fixture.edit("uid-lunch.ics", replacing: "SUMMARY:", with: "SUMMARY:Long lunch")
        let push = fixture.push()
        let report = try push.apply(try push.plan(), skipping: ["uid-lunch.ics"])
        #expect(report.items.isEmpty && fixture.operations("PATCH").isEmpty)
        #expect(fixture.standIn.operations.allSatisfy { $0.method == "GET" })
    }

    @Test func anUpdateKilledBeforeRecordingIsRecognisedAsItsOwnNotAConflict() throws {
        let fixture = try Self.pulledLunch()
        try fixture.edit("uid-lunch.ics", replacing: "SUMMARY:", with: "SUMMARY:Long lunch")
        struct Killed: Error {}
        var push = fixture.push()
        push.beforeRecording = { _ in throw Killed() }
        #expect(throws: Killed.self) { try push.apply(push.plan()) }
        #expect(fixture.operations("PATCH").count == 1)

        let report = try fixture.sync()
        #expect(report.items.map(\.outcome) == [.pushed(.changed)])
        #expect(fixture.operations("PATCH").count == 1, "not sent again")
        #expect(
            try fixture.record("uid-lunch.ics")?.changeKey == fixture.standIn.event(id: "lunch")?["changeKey"]
                as? String)
        #expect(try fixture.push().plan().actions.isEmpty)
    }

    @Test func aRenamedFileUpdatesItsItemInsteadOfDeletingAndCreating() throws {
        let fixture = try Self.pulledLunch()
        try FileManager.default.moveItem(
            atPath: fixture.folder.path + "/uid-lunch.ics", toPath: fixture.folder.path + "/lunch.ics")
        let plan = try fixture.push().plan()
        #expect(plan.actions.map(\.kind) == [.update] && plan.deletionCount == 0)
        #expect(try fixture.push().apply(plan).items.map(\.outcome) == [.recorded], "nothing Outlook holds changed")
        #expect(try fixture.state.items(of: fixture.pairing).map(\.fileName) == ["lunch.ics"])
        #expect(fixture.standIn.event(id: "lunch") != nil && fixture.operations("POST").isEmpty)
    }

    @Test func aFileWhoseUIDChangedIsRefused() throws {
        let fixture = try Self.pulledLunch()
        try fixture.edit("uid-lunch.ics", replacing: "UID:", with: "UID:something-else")
        let plan = try fixture.push().plan()
        #expect(plan.actions.isEmpty && plan.deletionCount == 0)
        guard case .refused(let reason)? = plan.problems.first?.outcome else {
            Issue.record("not refused: \(plan.problems.map(\.outcome))")
            return
        }
        #expect(reason.contains("UID changed from uid-lunch"))
    }

    @Test func aSeriesFileThatBecameSingleIsRefused() throws {
        let fixture = try PushFixture()
        try fixture.base.addSeries()
        try fixture.base.run()
        var lines = try fixture.base.text("uid-standup.ics").components(separatedBy: "\r\n").filter { !$0.isEmpty }
        lines.removeAll { $0.hasPrefix("RRULE:") }
        try fixture.write("uid-standup.ics", lines)
        let report = try fixture.sync()
        #expect(report.items.map(\.outcome.name) == ["refused"], "\(report.items.map(\.outcome))")
        #expect(fixture.operations("PATCH").isEmpty)
    }

    @Test func theReportEncodesEveryKey() throws {
        let item = PushedItem(
            fileName: "a.ics", uid: "a", subject: nil, graphID: "x",
            outcome: .failed(reason: "no", requestID: "r-1"))
        let object = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(item)) as? [String: Any])
        #expect(
            Set(object.keys) == [
                "file", "uid", "subject", "graphId", "outcome", "action", "attendees", "reason", "requestId", "note",
            ])
        #expect(object["outcome"] as? String == "failed" && object["requestId"] as? String == "r-1")
        #expect("\(item.outcome)" == "failed: no [request-id r-1]")
    }
}
