import Foundation
import GraphICS
import Testing

@testable import GraphICSSync

@Suite struct SyncPushSeriesTests {
    /// The occurrences and exceptions of the series `master` in the stand-in, by their original start
    /// (`2026-12-14T09:00:00Z`): type and subject.
    static func instances(_ fixture: PushFixture, of master: String) -> [String: (type: String, subject: String)] {
        var found: [String: (type: String, subject: String)] = [:]
        for event in fixture.events where event["seriesMasterId"] as? String == master {
            let start = String((event["originalStart"] as? String ?? "").prefix(19))
            found[start] = (event["type"] as? String ?? "", event["subject"] as? String ?? "")
        }
        return found
    }

    static let override = [
        "BEGIN:VEVENT", "UID:uid-standup", "RECURRENCE-ID:20261221T090000Z", "DTSTAMP:20261120T100000Z",
        "DTSTART:20261221T100000Z", "DTEND:20261221T103000Z", "SUMMARY:Standup (moved)", "END:VEVENT",
    ]

    @Test func aNewExdateDeletesTheOccurrenceAndANewOverridePatchesOne() throws {
        let fixture = try PushFixture()
        try fixture.base.addSeries()
        try fixture.base.run()
        let name = "uid-standup.ics"
        let before = try #require(try fixture.record(name))
        var lines = try fixture.base.text(name).components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let rrule = try #require(lines.firstIndex { $0.hasPrefix("RRULE:") }, "\(lines)")
        lines.insert("EXDATE:20261214T090000Z", at: rrule + 1)
        let end = try #require(lines.lastIndex(of: "END:VCALENDAR"))
        lines.insert(contentsOf: Self.override, at: end)
        try fixture.write(name, lines)

        let plan = try fixture.push().plan()
        #expect(plan.actions.map(\.kind) == [.update] && plan.problems.isEmpty, "\(plan.problems.map(\.outcome))")
        let report = try fixture.push().apply(plan)
        #expect(report.items.map(\.outcome) == [.pushed(.changed)], "\(report.items.map(\.outcome))")

        let instances = Self.instances(fixture, of: "standup")
        #expect(instances["2026-12-14T09:00:00"] == nil, "the EXDATE's occurrence is deleted: \(instances)")
        #expect(instances["2026-12-21T09:00:00"]?.type == "exception")
        #expect(instances["2026-12-21T09:00:00"]?.subject == "Standup (moved)")
        #expect(instances["2026-12-07T09:00:00"]?.type == "occurrence" && instances.count == 3)
        #expect(fixture.operations("PATCH", "/events/standup").count == 1)

        let record = try #require(try fixture.record(name))
        let master = try #require(fixture.standIn.event(id: "standup"))
        #expect(record.changeKey == master["changeKey"] as? String && record.changeKey != before.changeKey)
        for event in fixture.events where event["seriesMasterId"] as? String == "standup" {
            let id = try #require(event["id"] as? String)
            #expect(try fixture.state.fileName(ofOccurrence: id, in: fixture.pairing) == name, "\(id)")
        }
        #expect(try fixture.push().plan().actions.isEmpty, "a re-plan right after apply plans nothing")
    }

    @Test func aNewSeriesIsCreatedWithItsExdatesAndOverrides() throws {
        let fixture = try PushFixture()
        try fixture.write(
            "weekly.ics",
            ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//pimutils//khal//EN"]
                + [
                    "BEGIN:VEVENT", "UID:uid-standup", "DTSTAMP:20261120T100000Z", "DTSTART:20261207T090000Z",
                    "DTEND:20261207T093000Z", "RRULE:FREQ=WEEKLY;COUNT=4", "EXDATE:20261214T090000Z",
                    "SUMMARY:Standup", "END:VEVENT",
                ] + Self.override + ["END:VCALENDAR"])
        let report = try fixture.sync()
        #expect(report.items.map(\.outcome) == [.pushed(.new)], "\(report.items.map(\.outcome))")
        let master = try #require(fixture.events.first { $0["type"] as? String == "seriesMaster" })
        let id = try #require(master["id"] as? String)
        let instances = Self.instances(fixture, of: id)
        #expect(instances["2026-12-14T09:00:00"] == nil && instances.count == 3, "\(instances)")
        #expect(instances["2026-12-21T09:00:00"]?.subject == "Standup (moved)")
        let record = try #require(try fixture.record("weekly.ics"))
        #expect(record.graphID == id && record.changeKey == master["changeKey"] as? String)
        #expect(try fixture.push().plan().actions.isEmpty)
    }

    @Test func anOverrideOfNoOccurrenceIsRefused() throws {
        let fixture = try PushFixture()
        try fixture.write(
            "weekly.ics",
            ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//pimutils//khal//EN"]
                + [
                    "BEGIN:VEVENT", "UID:uid-standup", "DTSTAMP:20261120T100000Z", "DTSTART:20261207T090000Z",
                    "DTEND:20261207T093000Z", "RRULE:FREQ=WEEKLY;COUNT=4", "SUMMARY:Standup", "END:VEVENT",
                    "BEGIN:VEVENT", "UID:uid-standup", "RECURRENCE-ID:20261222T090000Z", "DTSTAMP:20261120T100000Z",
                    "DTSTART:20261222T100000Z", "DTEND:20261222T103000Z", "SUMMARY:Stray", "END:VEVENT",
                    "END:VCALENDAR",
                ])
        let plan = try fixture.push().plan()
        guard case .refused(let reason)? = plan.problems.first?.outcome else {
            Issue.record("not refused: \(plan.problems.map(\.outcome)) \(plan.actions.map(\.kind))")
            return
        }
        #expect(reason.contains("names no occurrence"))
        #expect(plan.actions.isEmpty)
    }

    @Test func aSeriesUpdateKilledBeforeRecordingFinishesOnTheNextRun() throws {
        let fixture = try PushFixture()
        try fixture.base.addSeries()
        try fixture.base.run()
        let name = "uid-standup.ics"
        try fixture.edit(name, replacing: "EXDATE", with: "EXDATE:20261228T090000Z", after: "RRULE:")
        struct Killed: Error {}
        var push = fixture.push()
        push.beforeRecording = { _ in throw Killed() }
        #expect(throws: Killed.self) { try push.apply(push.plan()) }
        #expect(Self.instances(fixture, of: "standup")["2026-12-28T09:00:00"] == nil)

        let report = try fixture.sync()
        #expect(report.items.map(\.outcome) == [.pushed(.changed)], "\(report.items.map(\.outcome))")
        #expect(fixture.operations("PATCH", "/events/standup").count == 1, "the master is not sent again")
        #expect(Self.instances(fixture, of: "standup").count == 3)
        #expect(try fixture.record(name)?.changeKey == fixture.standIn.event(id: "standup")?["changeKey"] as? String)
        #expect(try fixture.push().plan().actions.isEmpty)
    }
}
