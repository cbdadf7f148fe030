import Foundation
import GraphICS
import Testing

@testable import GraphICSSync

@Suite struct SyncRunTests {
    @Test func aFirstRunPullsOutlooksEventsAndPushesTheFoldersNewFiles() throws {
        let fixture = try EngineFixture()
        try fixture.base.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.push.write("khal-dentist.ics", PushFixture.single("khal-dentist", summary: "Dentist"))

        let report = try fixture.run()
        #expect(report.round == .first && !report.hasProblems)
        let outcomes = EngineFixture.outcomes(report)
        #expect(outcomes["uid-lunch.ics"] == .pulled(.new) && outcomes["khal-dentist.ics"] == .pushed(.new))
        #expect(fixture.subjects() == ["Lunch", "Dentist"])
        #expect(try fixture.folder.scan().map(\.name) == ["khal-dentist.ics", "uid-lunch.ics"])

        let again = try fixture.run()
        #expect(again.items.isEmpty && again.round == .changes, "\(again.items)")
        #expect(fixture.standIn.events().count == 2, "nothing created twice")
    }

    @Test func changesTravelBothWays() throws {
        let fixture = try EngineFixture()
        try fixture.base.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.push.write("khal-dentist.ics", PushFixture.single("khal-dentist", summary: "Dentist"))
        _ = try fixture.run()
        try fixture.standIn.changeEvent(id: "lunch", ["subject": "Long lunch"])
        try fixture.editSummary("khal-dentist.ics", to: "Dentist (moved)")

        let report = try fixture.run()
        let outcomes = EngineFixture.outcomes(report)
        #expect(outcomes["uid-lunch.ics"] == .pulled(.changed) && outcomes["khal-dentist.ics"] == .pushed(.changed))
        #expect(try fixture.base.text("uid-lunch.ics").contains("SUMMARY:Long lunch"))
        #expect(fixture.subjects() == ["Long lunch", "Dentist (moved)"])
        #expect(!report.hasProblems)
    }

    /// Lunch synced, then changed in Outlook ("Outlook lunch") and here ("My lunch").
    static func conflicted() throws -> EngineFixture {
        let fixture = try EngineFixture()
        try fixture.base.addSingle("Lunch", day: 3, id: "lunch")
        _ = try fixture.run()
        try fixture.standIn.changeEvent(id: "lunch", ["subject": "Outlook lunch"])
        try fixture.editSummary("uid-lunch.ics", to: "My lunch")
        return fixture
    }

    @Test func aConflictWonByGraphKeepsTheLocalTextInTheArchive() throws {
        let fixture = try Self.conflicted()
        let local = try fixture.folder.read("uid-lunch.ics").contents
        let report = try fixture.run { $0.conflicts = .graph }

        let kept = fixture.stateDirectory + "/conflicts/uid-lunch.20261201T100005.local.ics"
        #expect(
            report.items == [
                .init(
                    fileName: "uid-lunch.ics", uid: "uid-lunch", subject: "My lunch",
                    outcome: .conflict(.graph, kept: kept, reason: nil))
            ])
        #expect(!report.hasProblems)
        #expect(FileManager.default.contents(atPath: kept) == local)
        #expect(try fixture.base.text("uid-lunch.ics").contains("SUMMARY:Outlook lunch"))
        #expect(fixture.subject("lunch") == "Outlook lunch")
        #expect(try fixture.run().items.isEmpty, "settled: the next run has nothing to do")
    }

    @Test func aConflictWonLocallyKeepsOutlooksTextInTheArchive() throws {
        let fixture = try Self.conflicted()
        let report = try fixture.run { $0.conflicts = .local }

        let kept = fixture.stateDirectory + "/conflicts/uid-lunch.20261201T100005.graph.ics"
        #expect(EngineFixture.outcomes(report)["uid-lunch.ics"] == .conflict(.local, kept: kept, reason: nil))
        #expect(!report.hasProblems, "\(report.items)")
        let archived = String(decoding: FileManager.default.contents(atPath: kept) ?? Data(), as: UTF8.self)
        #expect(archived.contains("SUMMARY:Outlook lunch") && archived.contains("UID:uid-lunch"))
        #expect(fixture.subject("lunch") == "My lunch")
        #expect(try fixture.base.text("uid-lunch.ics").contains("SUMMARY:My lunch"))
        let next = try fixture.run()
        #expect(!next.hasProblems && next.items.allSatisfy { $0.outcome == .pulled(.changed) }, "\(next.items)")
        #expect(fixture.subject("lunch") == "My lunch")
        #expect(try fixture.base.text("uid-lunch.ics").contains("My lunch"))
        #expect(try fixture.run().items.isEmpty, "settled")
    }

    @Test func anUnsettledConflictChangesNeitherSide() throws {
        let fixture = try Self.conflicted()
        let before = try fixture.folderBytes()
        let report = try fixture.run()  // --conflict ask, no terminal

        #expect(EngineFixture.outcomes(report)["uid-lunch.ics"] == .conflict(.skip, kept: nil, reason: nil))
        #expect(report.hasProblems)
        #expect(try fixture.folderBytes() == before)
        #expect(fixture.subject("lunch") == "Outlook lunch")
        #expect(!FileManager.default.fileExists(atPath: fixture.stateDirectory + "/conflicts"))
        #expect(
            EngineFixture.outcomes(try fixture.run())["uid-lunch.ics"] == .conflict(.skip, kept: nil, reason: nil),
            "still a conflict next time")
    }

    @Test func askingTheResolverSettlesTheConflictItsWay() throws {
        let fixture = try Self.conflicted()
        var asked: [SyncConflict] = []
        let report = try fixture.run(resolver: { conflict in
            asked.append(conflict)
            return .local
        })
        #expect(
            asked == [
                SyncConflict(
                    fileName: "uid-lunch.ics", uid: "uid-lunch", subject: "My lunch", local: .changed,
                    graph: .changed, differences: [#"subject: "My lunch" here, "Outlook lunch" in Outlook"#])
            ])
        #expect(fixture.subject("lunch") == "My lunch")
        #expect(!report.hasProblems)
    }

    @Test func aChangeToAMeetingYouOrganiseIsHeldUnlessAttendeesMayBeMailed() throws {
        let fixture = try EngineFixture()
        try fixture.standIn.addEvent([
            "id": "review", "subject": "Review", "iCalUId": "uid-review", "isOrganizer": true,
            "organizer": ["emailAddress": ["name": "Ada Lovelace", "address": "ada@contoso.example"]],
            "attendees": [
                ["emailAddress": ["name": "Grace Hopper", "address": "grace@contoso.example"], "type": "required"],
                ["emailAddress": ["name": "Alan Turing", "address": "alan@contoso.example"], "type": "required"],
            ],
            "start": ["dateTime": "2026-12-10T10:00:00", "timeZone": "UTC"],
            "end": ["dateTime": "2026-12-10T11:00:00", "timeZone": "UTC"],
        ])
        _ = try fixture.run()
        try fixture.editSummary("uid-review.ics", to: "Review (moved)")

        let held = try fixture.run()
        #expect(EngineFixture.outcomes(held)["uid-review.ics"] == .held(attendees: 2))
        #expect(!held.hasProblems, "held items end the run with 0")
        #expect(held.lines.contains("held (would mail 2 attendees)  uid-review.ics  Review (moved)"), "\(held.lines)")
        #expect(fixture.subject("review") == "Review" && fixture.standIn.sentInvitations.isEmpty)

        let sent = try fixture.run { $0.notifiesAttendees = true }
        #expect(EngineFixture.outcomes(sent)["uid-review.ics"] == .pushed(.changed))
        #expect(fixture.subject("review") == "Review (moved)")
    }

    @Test func anEventDeletedInOutlookAndChangedHereIsAConflictEitherSideCanWin() throws {
        for side in [SyncOptions.ConflictPolicy.graph, .local] {
            let fixture = try EngineFixture()
            try fixture.base.addSingle("Lunch", day: 3, id: "lunch")
            _ = try fixture.run()
            try fixture.standIn.removeEvent(id: "lunch")
            try fixture.editSummary("uid-lunch.ics", to: "My lunch")
            let local = try fixture.folder.read("uid-lunch.ics").contents

            let report = try fixture.run { $0.conflicts = side }
            let outcome = EngineFixture.outcomes(report)["uid-lunch.ics"]
            #expect(!report.hasProblems, "\(side): \(report.items)")
            if side == .graph {
                let kept = fixture.stateDirectory + "/conflicts/uid-lunch.20261201T100005.local.ics"
                #expect(outcome == .conflict(.graph, kept: kept, reason: nil))
                #expect(FileManager.default.contents(atPath: kept) == local)
                #expect(try fixture.folder.entry("uid-lunch.ics") == nil)
            } else {
                #expect(outcome == .conflict(.local, kept: nil, reason: nil))
                #expect(fixture.subjects() == ["My lunch"], "made again from the file")
            }
        }
    }

    @Test func aWindowPastTheStoredOneIsReadAgainAndTheSummarySaysSo() throws {
        let fixture = try EngineFixture()
        try fixture.base.addSingle("Lunch", day: 3, id: "lunch")
        _ = try fixture.run()
        let report = try fixture.run { $0.window.end += 40 * 86_400 }
        #expect(report.round == .reanchored && report.items.isEmpty)
        #expect(report.summary.contains("re-read the window"))
    }

    @Test func startingOverFromAnEmptyFolderPullsEverythingAgainAndDeletesNothingInOutlook() throws {
        let fixture = try Self.eightSynced()
        for entry in try fixture.folder.scan() { try fixture.folder.delete(entry.name) }
        let report = try fixture.run { $0.startsOver = true }
        #expect(report.refusal == nil && report.round == .first)
        #expect(report.items.count == 8 && report.items.allSatisfy { $0.outcome == .pulled(.new) })
        #expect(fixture.standIn.events().count == 8)
        #expect(try fixture.folder.scan().count == 8)
    }

    /// Eight events pulled into the folder.
    static func eightSynced() throws -> EngineFixture {
        let fixture = try EngineFixture()
        for day in 1...8 { try fixture.base.addSingle("Event \(day)", day: day + 1, id: "e\(day)") }
        _ = try fixture.run()
        return fixture
    }

    @Test func anEmptiedFolderDeletesNothingInOutlookUnlessAllowed() throws {
        let fixture = try Self.eightSynced()
        for entry in try fixture.folder.scan() { try fixture.folder.delete(entry.name) }
        let records = try fixture.state.items(of: fixture.base.pairing)

        let refused = try fixture.run()
        #expect(refused.refusal == MassDeletionGuard.Refusal(side: .outlook, deletions: 8, items: 8))
        #expect(refused.hasProblems && refused.items.isEmpty)
        #expect(fixture.standIn.events().count == 8)
        #expect(try fixture.state.items(of: fixture.base.pairing) == records)

        let allowed = try fixture.run { $0.allowsMassDeletion = true }
        #expect(allowed.items.filter { $0.outcome == .pushed(.deleted) }.count == 8)
        #expect(fixture.standIn.events().isEmpty)
    }

    @Test func anEmptiedCalendarDeletesNoFileUnlessAllowed() throws {
        let fixture = try Self.eightSynced()
        for day in 1...8 { try fixture.standIn.removeEvent(id: "e\(day)") }
        let before = try fixture.folderBytes()

        let refused = try fixture.run()
        #expect(refused.refusal == MassDeletionGuard.Refusal(side: .folder, deletions: 8, items: 8))
        #expect(try fixture.folderBytes() == before)

        let allowed = try fixture.run { $0.allowsMassDeletion = true }
        #expect(allowed.items.filter { $0.outcome == .pulled(.deleted) }.count == 8)
        #expect(try fixture.folder.scan().isEmpty)
    }

    @Test func aDryRunReportsThePlanAndChangesNothing() throws {
        let fixture = try EngineFixture()
        try fixture.base.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.push.write("khal-dentist.ics", PushFixture.single("khal-dentist", summary: "Dentist"))
        _ = try fixture.run()
        try fixture.standIn.changeEvent(id: "lunch", ["subject": "Long lunch"])
        try fixture.editSummary("khal-dentist.ics", to: "Dentist (moved)")
        try fixture.push.write("khal-new.ics", PushFixture.single("khal-new", summary: "New"))
        let bytes = try fixture.folderBytes()
        let stateFile = fixture.stateDirectory + "/state.sqlite3"
        let stateBytes = FileManager.default.contents(atPath: stateFile)
        let events = fixture.standIn.events().map {
            "\($0["id"] ?? "") \($0["changeKey"] ?? "") \($0["subject"] ?? "")"
        }

        let report = try fixture.run { $0.dryRun = true }
        #expect(report.isDryRun)
        let outcomes = EngineFixture.outcomes(report)
        #expect(outcomes["uid-lunch.ics"] == .pulled(.changed))
        #expect(outcomes["khal-dentist.ics"] == .pushed(.changed) && outcomes["khal-new.ics"] == .pushed(.new))
        #expect(report.lines.contains("would pull changed  uid-lunch.ics  Long lunch"), "\(report.lines)")
        #expect(try fixture.folderBytes() == bytes)
        #expect(FileManager.default.contents(atPath: stateFile) == stateBytes)
        #expect(
            fixture.standIn.events().map { "\($0["id"] ?? "") \($0["changeKey"] ?? "") \($0["subject"] ?? "")" }
                == events)
    }

    @Test func pullOnlyAndPushOnlyMoveOneWay() throws {
        let fixture = try EngineFixture()
        try fixture.base.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.push.write("khal-dentist.ics", PushFixture.single("khal-dentist", summary: "Dentist"))
        _ = try fixture.run()
        try fixture.standIn.changeEvent(id: "lunch", ["subject": "Long lunch"])
        try fixture.editSummary("khal-dentist.ics", to: "Dentist (moved)")

        let pulled = try fixture.run { $0.direction = .pullOnly }
        #expect(pulled.items.map(\.outcome) == [.pulled(.changed)])
        #expect(try fixture.base.text("uid-lunch.ics").contains("SUMMARY:Long lunch"))
        #expect(fixture.subjects() == ["Long lunch", "Dentist"], "nothing sent")
        #expect(pulled.unsentLocalChanges == 1 && pulled.summary.contains("1 local change not sent (--pull-only)"))

        try fixture.standIn.changeEvent(id: "lunch", ["subject": "Short lunch"])
        let pushed = try fixture.run { $0.direction = .pushOnly }
        #expect(pushed.items.map(\.outcome) == [.pushed(.changed)] && pushed.round == nil)
        #expect(fixture.subjects() == ["Short lunch", "Dentist (moved)"])
        #expect(try fixture.base.text("uid-lunch.ics").contains("SUMMARY:Long lunch"), "nothing pulled")
    }
}
