import Foundation
import GraphStandIn
import Testing

/// `graph-ics sync DIR` asking about a conflict on a pseudo-terminal (standard input and error on it, as the
/// question needs), against the stand-in: "keep mine" on a meeting the user organises (issue 30, item 7).
@Suite struct SyncConflictTerminalTests {
    @Test func keepingMineForAMeetingYouOrganiseIsHeldOnceAndTheNextRunDoesNotAskAgain() throws {
        let fixture = try SyncCommandTests.Fixture()
        try fixture.addMeeting("Quarterly review", uid: "uid-quarterly", daysAhead: 3, hour: 10)
        let first = try fixture.sync()
        #expect(first.status == 0, "\(first.out) \(first.err)")
        let day = ISO8601DateFormatter.string(
            from: Date().addingTimeInterval(3 * 86_400), timeZone: .gmt, formatOptions: [.withFullDate])

        // Outlook renames and moves the meeting; the file gets another subject.
        let standIn = fixture.account.standIn
        let meeting = try #require(standIn.events().first { $0["subject"] as? String == "Quarterly review" })
        try standIn.changeEvent(
            id: try #require(meeting["id"] as? String),
            [
                "subject": "Quarterly review (Outlook)",
                "start": ["dateTime": "\(day)T12:00:00", "timeZone": "UTC"],
                "end": ["dateTime": "\(day)T13:00:00", "timeZone": "UTC"],
            ])
        let mailed = standIn.sentUpdates  // Outlook's own change told Bo
        let path = fixture.folder + "/uid-quarterly.ics"
        let mine = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(
            of: "SUMMARY:Quarterly review\r\n", with: "SUMMARY:Quarterly review (mine)\r\n")
        try Data(mine.utf8).write(to: URL(fileURLWithPath: path))
        var environment = fixture.environment
        environment["NO_COLOR"] = "1"

        let question =
            "Keep [m]ine (a meeting you organise: held until a run with --as-meeting --yes, which mails its 1 "
            + "attendee), keep [o]utlook's, or [s]kip (change neither)?"
        let run = try PseudoTerminalRun(["sync", fixture.folder], errorsOnTerminal: true, environment: environment)
        let shown = try run.waitFor(question)
        #expect(
            shown.contains(
                "conflict: uid-quarterly.ics \"Quarterly review (mine)\" was changed here and changed in Outlook since"
                    + " the last sync."), "\(shown)")
        #expect(
            shown.contains(#"  subject: "Quarterly review (mine)" here, "Quarterly review (Outlook)" in Outlook"#),
            "\(shown)")
        #expect(shown.contains(#"  start: "\#(day) 10:00 UTC" here, "\#(day) 12:00 UTC" in Outlook"#), "\(shown)")
        #expect(shown.contains(#"  end: "\#(day) 11:00 UTC" here, "\#(day) 13:00 UTC" in Outlook"#), "\(shown)")
        run.type("m\n")
        let kept = try run.finish()
        #expect(kept.status == 0, "\(kept.out) \(run.screenText)")
        #expect(
            kept.out
                == "held (would mail 1 attendee)  uid-quarterly.ics  Quarterly review (mine)\nsync: 1 held\n",
            "\(kept.out)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == mine, "the file keeps my version")
        let outlook = standIn.events().compactMap { $0["subject"] as? String }
        #expect(outlook.contains("Quarterly review (Outlook)"), "nothing was sent: \(outlook)")
        #expect(standIn.sentUpdates == mailed, "graph-ics mailed nobody")

        // The next run (from cron, or by hand on the terminal) asks nothing and counts the held item only.
        let again = try PseudoTerminalRun(["sync", fixture.folder], errorsOnTerminal: true, environment: environment)
        again.type("s\n")  // typed ahead: a question asked again would be skipped (exit 1), not wait for ever
        let quiet = try again.finish()
        #expect(quiet.status == 0, "\(quiet.out) \(again.screenText)")
        #expect(quiet.out == "sync: no changes; 1 held as before (--as-meeting --yes sends them)\n", "\(quiet.out)")
        #expect(!again.screenText.contains("conflict"), "\(again.screenText)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == mine)
        #expect(standIn.sentUpdates == mailed)
    }
}
