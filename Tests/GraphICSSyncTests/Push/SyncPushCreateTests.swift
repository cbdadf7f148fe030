import Foundation
import GraphICS
import Testing

@testable import GraphICSSync

@Suite struct SyncPushCreateTests {
    static let invitation = PushFixture.single(
        "khal-dentist", summary: "Dentist",
        extra: [
            "ORGANIZER;CN=Ada Lovelace:mailto:ada@contoso.example",
            "ATTENDEE;CN=Grace Hopper;RSVP=TRUE:mailto:grace@contoso.example",
            "ATTENDEE;CN=Alan Turing;RSVP=TRUE:mailto:alan@contoso.example",
        ])

    @Test func aNewFileIsCreatedWithoutItsAttendeesAndRecorded() throws {
        let fixture = try PushFixture()
        try fixture.write("khal-dentist.ics", Self.invitation)
        let plan = try fixture.push().plan()
        #expect(plan.actions.map(\.kind) == [.create] && plan.actions.map(\.uid) == ["khal-dentist"])
        #expect(plan.problems.isEmpty && plan.deletionCount == 0)
        #expect(fixture.standIn.operations.isEmpty, "planning reads only the folder and the state")

        let report = try fixture.push().apply(plan)
        #expect(report.items.map(\.outcome) == [.pushed(.new)])
        let events = fixture.events
        #expect(events.count == 1)
        let event = try #require(events.first)
        #expect(event["subject"] as? String == "Dentist")
        #expect((event["attendees"] as? [Any] ?? []).isEmpty)
        #expect(fixture.standIn.sentInvitations.isEmpty, "nobody is mailed")
        let record = try #require(try fixture.record("khal-dentist.ics"))
        #expect(record.graphID == event["id"] as? String && report.items.first?.graphID == record.graphID)
        #expect(record.changeKey == event["changeKey"] as? String && record.uid == "khal-dentist")
        let file = try fixture.folder.read("khal-dentist.ics")
        #expect(record.sha256 == file.sha256 && record.matches(file.entry))

        let again = try fixture.push().plan()
        #expect(again.actions.isEmpty && again.problems.isEmpty, "a re-plan right after apply plans nothing")
    }

    @Test func notifyingAttendeesSendsTheInvitation() throws {
        let fixture = try PushFixture()
        try fixture.write("khal-dentist.ics", Self.invitation)
        let report = try fixture.sync(notifiesAttendees: true)
        #expect(report.items.map(\.outcome) == [.pushed(.new)])
        #expect((fixture.events.first?["attendees"] as? [Any])?.count == 2)
        #expect(Set(fixture.standIn.sentInvitations) == ["grace@contoso.example", "alan@contoso.example"])
    }

    @Test func aCreateKilledBeforeRecordingIsFoundAgainNotMadeTwice() throws {
        let fixture = try PushFixture()
        try fixture.write("khal-dentist.ics", Self.invitation)
        struct Killed: Error {}
        var push = fixture.push()
        push.beforeRecording = { _ in throw Killed() }
        #expect(throws: Killed.self) { try push.apply(push.plan()) }
        #expect(fixture.events.count == 1)
        #expect(try fixture.record("khal-dentist.ics") == nil)

        let plan = try fixture.push().plan()
        #expect(plan.actions.map(\.kind) == [.create])
        let report = try fixture.push().apply(plan)
        #expect(report.items.map(\.outcome) == [.pushed(.new)])
        #expect(fixture.events.count == 1, "one event in Graph")
        #expect(try fixture.record("khal-dentist.ics")?.graphID == fixture.events.first?["id"] as? String)
        #expect(try fixture.push().plan().actions.isEmpty)
    }

    @Test func aFileEditedAfterAKilledCreateBringsTheEventToTheEdit() throws {
        let fixture = try PushFixture()
        try fixture.write("khal-dentist.ics", Self.invitation)
        struct Killed: Error {}
        var push = fixture.push()
        push.beforeRecording = { _ in throw Killed() }
        #expect(throws: Killed.self) { try push.apply(push.plan()) }
        try fixture.edit("khal-dentist.ics", replacing: "SUMMARY:", with: "SUMMARY:Dentist (moved)")

        let report = try fixture.sync()
        #expect(report.items.map(\.outcome) == [.pushed(.new)])
        #expect(fixture.events.count == 1 && fixture.events.first?["subject"] as? String == "Dentist (moved)")
        #expect(fixture.standIn.sentInvitations.isEmpty)
        #expect(try fixture.record("khal-dentist.ics")?.changeKey == fixture.events.first?["changeKey"] as? String)
        #expect(try fixture.push().plan().actions.isEmpty)
    }

    @Test func toDosAndOtherFilesAreLeftAlone() throws {
        let fixture = try PushFixture()
        try fixture.write(
            "todo.ics",
            [
                "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//todoman//EN", "BEGIN:VTODO", "UID:todo-1",
                "DTSTAMP:20261120T100000Z", "SUMMARY:Buy milk", "END:VTODO", "END:VCALENDAR",
            ])
        try fixture.write("notes.txt", ["not a calendar"])
        let plan = try fixture.push().plan()
        #expect(plan.actions.isEmpty && plan.problems.isEmpty && plan.diagnostics.isEmpty)
        #expect(try fixture.sync().items.isEmpty)
        #expect(fixture.events.isEmpty)
        #expect(try fixture.state.items(of: fixture.pairing).isEmpty)
    }

    @Test func aFileThatCannotBeReadFailsWithItsLineAndSendsNothing() throws {
        let fixture = try PushFixture()
        try fixture.write(
            "broken.ics",
            PushFixture.calendar(["UID:broken-1", "DTSTAMP:20261120T100000Z", "SUMMARY:No start"]))
        let plan = try fixture.push().plan()
        #expect(plan.actions.isEmpty)
        let problem = try #require(plan.problems.first)
        guard case .failed(let reason, nil) = problem.outcome else {
            Issue.record("not failed: \(problem.outcome)")
            return
        }
        #expect(reason.contains("line 4") && reason.contains("DTSTART"))
        #expect(problem.uid == "broken-1")
        #expect(plan.diagnostics.contains { $0.file?.hasSuffix("/broken.ics") == true && $0.line == 4 })
        #expect(try fixture.sync().items.map(\.outcome.name) == ["failed"])
        #expect(fixture.standIn.operations.isEmpty && fixture.events.isEmpty)
    }

    @Test func aFileWithSeveralUIDsIsRefused() throws {
        let fixture = try PushFixture()
        try fixture.write(
            "two.ics",
            PushFixture.calendar(
                ["UID:a", "DTSTAMP:20261120T100000Z", "DTSTART:20261205T140000Z", "SUMMARY:A"],
                ["UID:b", "DTSTAMP:20261120T100000Z", "DTSTART:20261206T140000Z", "SUMMARY:B"]))
        let report = try fixture.sync()
        guard case .refused(let reason)? = report.items.first?.outcome else {
            Issue.record("not refused: \(report.items)")
            return
        }
        #expect(reason.contains("2 events with different UIDs"))
        #expect(fixture.standIn.operations.isEmpty)
    }

    @Test(arguments: [
        "RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1", "RDATE:20261210T140000Z",
    ])
    func aRecurrenceGraphCannotHoldIsRefused(rule: String) throws {
        let fixture = try PushFixture()
        try fixture.write("rule.ics", PushFixture.single("rule-1", summary: "Payday", extra: [rule]))
        let plan = try fixture.push().plan()
        #expect(plan.actions.isEmpty)
        guard case .refused(let reason)? = plan.problems.first?.outcome else {
            Issue.record("not refused: \(plan.problems)")
            return
        }
        #expect(reason.contains("cannot be held by Graph") && !reason.contains("--strict"))
        #expect(plan.problems.first?.uid == "rule-1")
        #expect(try fixture.sync().items.map(\.outcome.name) == ["refused"])
        #expect(fixture.standIn.operations.isEmpty && fixture.events.isEmpty)
    }

    @Test func aCopyWithTheUIDOfASyncedFileIsRefused() throws {
        let fixture = try PushFixture()
        try fixture.write("khal-dentist.ics", Self.invitation)
        try fixture.sync()
        try fixture.write("copy.ics", Self.invitation)
        let plan = try fixture.push().plan()
        #expect(plan.actions.isEmpty)
        #expect(
            plan.problems.map(\.outcome) == [
                .refused(reason: "khal-dentist.ics has the same UID; a synced folder holds one file per UID")
            ])
    }

    @Test func aCancelledNewEventIsRefused() throws {
        let fixture = try PushFixture()
        try fixture.write("gone.ics", PushFixture.single("gone-1", summary: "Off", extra: ["STATUS:CANCELLED"]))
        #expect(try fixture.sync().items.map(\.outcome.name) == ["refused"])
        #expect(fixture.events.isEmpty)
    }
}
