import Foundation
import GraphICSSync
import GraphStandIn
import Testing

/// `graph-ics sync DIR` through the built binary against the stand-in: a first sync, a second run with
/// nothing to do, the lock, `--json`.
@Suite struct SyncCommandTests {
    /// A mailbox with two single events in the next days (the sync's window moves with today) and a
    /// saved sign-in; `folder` is the synced DIR (not created yet), `state` the state directory.
    final class Fixture {
        let account: StandInAccount
        let environment: [String: String]
        var folder: String { account.folder.appendingPathComponent("calendar").path }
        var state: String { account.folder.appendingPathComponent("state").path }

        init() throws {
            account = try StandInAccount()
            account.standIn.addUser(displayName: "Ada Lovelace", mail: "ada@contoso.example", mailboxTimeZone: "UTC")
            var environment = try account.savedSignInEnvironment()
            environment["GRAPH_ICS_STATE_DIR"] = account.folder.appendingPathComponent("state").path
            self.environment = environment
            try addEvent("Lunch", daysAhead: 2, uid: "uid-lunch")
            try addEvent("Review", daysAhead: 5, uid: "uid-review")
        }

        @discardableResult
        func addEvent(_ subject: String, daysAhead: Int, uid: String) throws -> String {
            let day = Date().addingTimeInterval(TimeInterval(daysAhead * 86_400))
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withFullDate]
            let date = formatter.string(from: day)
            return try account.standIn.addEvent([
                "subject": subject, "iCalUId": uid,
                "start": ["dateTime": "\(date)T10:00:00", "timeZone": "UTC"],
                "end": ["dateTime": "\(date)T11:00:00", "timeZone": "UTC"],
            ])
        }

        /// A meeting the user organises with one attendee (Graph would mail Bo about a change), an hour from
        /// `hour`:00 UTC `daysAhead` days from now.
        func addMeeting(_ subject: String, uid: String, daysAhead: Int = 3, hour: Int = 10) throws {
            let day = ISO8601DateFormatter.string(
                from: Date().addingTimeInterval(TimeInterval(daysAhead * 86_400)), timeZone: .gmt,
                formatOptions: [.withFullDate])
            try account.standIn.addEvent([
                "subject": subject, "iCalUId": uid, "isOrganizer": true,
                "start": ["dateTime": "\(day)T\(hour):00:00", "timeZone": "UTC"],
                "end": ["dateTime": "\(day)T\(hour + 1):00:00", "timeZone": "UTC"],
                "attendees": [
                    [
                        "type": "required", "status": ["response": "none", "time": "0001-01-01T00:00:00Z"],
                        "emailAddress": ["name": "Bo", "address": "bo@example.com"],
                    ]
                ],
            ])
        }

        func sync(_ arguments: [String] = []) throws -> ProcessResult {
            try account.run(["sync", folder] + arguments, environment: environment)
        }

        var itemNames: [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".ics") }
                .sorted()
        }
    }

    @Test func aFirstSyncCreatesTheFolderWritesOneFilePerEventAndTheCalendarsName() throws {
        let fixture = try Fixture()
        let result = try fixture.sync()
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(fixture.itemNames == ["uid-lunch.ics", "uid-review.ics"])
        let lines = result.out.split(separator: "\n").map(String.init)
        #expect(lines.contains("pulled new  uid-lunch.ics  Lunch"), "\(lines)")
        #expect(lines.last?.hasPrefix("sync: pulled 2 (2 new); first sync: read the whole window") == true, "\(lines)")
        let name = try String(contentsOfFile: fixture.folder + "/displayname", encoding: .utf8)
        #expect(name == "Calendar")
        #expect(!FileManager.default.fileExists(atPath: fixture.folder + "/color"), "a calendar with no colour")
        let lunch = try String(contentsOfFile: fixture.folder + "/uid-lunch.ics", encoding: .utf8)
        #expect(lunch.contains("SUMMARY:Lunch") && lunch.contains("UID:uid-lunch"))
        #expect(FileManager.default.fileExists(atPath: fixture.state + "/" + SyncState.fileName))
    }

    @Test func anotherCalendarIsSyncedWithItsNameAndColour() throws {
        let fixture = try Fixture()
        let standIn = fixture.account.standIn
        let work = standIn.addCalendar(name: "Work", hexColor: "#FF8C00")
        let day = ISO8601DateFormatter.string(
            from: Date().addingTimeInterval(86_400), timeZone: .gmt, formatOptions: [.withFullDate])
        try standIn.addEvent(
            [
                "subject": "Planning", "iCalUId": "uid-planning",
                "start": ["dateTime": "\(day)T09:00:00", "timeZone": "UTC"],
                "end": ["dateTime": "\(day)T10:00:00", "timeZone": "UTC"],
            ], calendar: work)
        let result = try fixture.sync(["--calendar", "Work"])
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(fixture.itemNames == ["uid-planning.ics"])
        #expect(try String(contentsOfFile: fixture.folder + "/displayname", encoding: .utf8) == "Work")
        #expect(try String(contentsOfFile: fixture.folder + "/color", encoding: .utf8) == "#FF8C00")
    }

    @Test func aSecondRunWithNothingToDoSaysSoAfterOneGraphRequest() throws {
        let fixture = try Fixture()
        #expect(try fixture.sync().status == 0)
        let before = fixture.account.standIn.operations.count
        let result = try fixture.sync()
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(result.out == "sync: no changes\n")
        let requests = fixture.account.standIn.operations.dropFirst(before).map(\.path)
        #expect(requests.count == 1 && requests.first?.hasSuffix("/calendarView/delta") == true, "\(requests)")
    }

    @Test func withAGivenTokenASecondRunWithNothingToDoSendsOneRequestAndA401ForgetsTheUser() throws {
        let fixture = try Fixture()
        var environment = fixture.account.tokenEnvironment()
        environment["GRAPH_ICS_STATE_DIR"] = fixture.state
        let token = try #require(environment["GRAPH_ICS_ACCESS_TOKEN"])
        let sync = { try fixture.account.run(["sync", fixture.folder], environment: environment) }
        let first = try sync()
        #expect(first.status == 0, "stderr: \(first.err)")
        let before = fixture.account.standIn.operations.count
        let second = try sync()
        #expect(second.status == 0 && second.out == "sync: no changes\n", "\(second.out) \(second.err)")
        let requests = fixture.account.standIn.operations.dropFirst(before).map(\.path)
        #expect(requests.count == 1 && requests.first?.hasSuffix("/calendarView/delta") == true, "\(requests)")

        let remembered = try FileManager.default.contentsOfDirectory(atPath: fixture.state).filter {
            $0.hasPrefix("user-") && $0.hasSuffix(".upn")
        }
        #expect(remembered.count == 1, "\(remembered)")
        let text = try String(contentsOfFile: fixture.state + "/" + (remembered.first ?? ""), encoding: .utf8)
        #expect(text.hasPrefix("ada@contoso.example\n") && !text.contains(token), "the token is never stored")

        fixture.account.standIn.revokeAllTokens()
        let refused = try sync()
        #expect(refused.status == 77, "\(refused.out) \(refused.err)")
        #expect(!FileManager.default.fileExists(atPath: fixture.state + "/" + (remembered.first ?? "")))
    }

    @Test func aBrokenLocalFileIsReportedOnceAndNotAsGraphsEvent() throws {
        let fixture = try Fixture()
        #expect(try fixture.sync().status == 0)
        let text = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//x//EN", "BEGIN:VEVENT", "UID:broken",
            "DTSTAMP:20261120T100000Z", "DTSTART:20261305T140000Z", "SUMMARY:Broken", "END:VEVENT", "END:VCALENDAR", "",
        ].joined(separator: "\r\n")
        try text.write(toFile: fixture.folder + "/broken.ics", atomically: true, encoding: .utf8)
        let result = try fixture.sync()
        #expect(result.status == 1, "\(result.out) \(result.err)")
        let mentions = (result.out + result.err).components(separatedBy: "\n").filter { $0.contains("broken.ics") }
        #expect(mentions.count == 1 && mentions.first?.hasPrefix("failed: ") == true, "\(mentions)")
        #expect(!result.out.contains("Graph sent") && result.out.contains("sync: 1 failed"), "\(result.out)")
    }

    /// A calendar file of one or more VEVENTs, each given by its own lines (UID, times, SUMMARY…).
    static func calendarText(method: String? = nil, _ events: [[String]]) -> String {
        let header = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//x//EN"] + (method.map { ["METHOD:\($0)"] } ?? [])
        let body = events.flatMap { ["BEGIN:VEVENT", "DTSTAMP:20261120T100000Z"] + $0 + ["END:VEVENT"] }
        return (header + body + ["END:VCALENDAR", ""]).joined(separator: "\r\n")
    }

    /// `DTSTART`/`DTEND` lines of an hour at 14:00 UTC `daysAhead` days from now (inside the sync's window).
    static func hour(daysAhead: Int) -> [String] {
        let day = ISO8601DateFormatter.string(
            from: Date().addingTimeInterval(TimeInterval(daysAhead * 86_400)), timeZone: .gmt,
            formatOptions: [.withYear, .withMonth, .withDay])
        return ["DTSTART:\(day)T140000Z", "DTEND:\(day)T150000Z"]
    }

    @Test func aCancelledNewFileIsRefusedByTheDryRunAsByTheRun() throws {
        let fixture = try Fixture()
        #expect(try fixture.sync().status == 0)
        let text = Self.calendarText(
            method: "CANCEL", [["UID:cancelled-show", "SUMMARY:Cancelled show"] + Self.hour(daysAhead: 3)])
        try text.write(toFile: fixture.folder + "/cancelled.ics", atomically: true, encoding: .utf8)
        let refused =
            "refused: the event is cancelled (STATUS:CANCELLED or METHOD:CANCEL): nothing to create  cancelled.ics"
        let dryRun = try fixture.sync(["--dry-run"])
        #expect(dryRun.status == 1, "\(dryRun.out) \(dryRun.err)")
        #expect(dryRun.out.contains(refused) && !dryRun.out.contains("would push"), "\(dryRun.out)")
        let run = try fixture.sync()
        #expect(run.status == 1, "\(run.out) \(run.err)")
        #expect(run.out.contains(refused), "\(run.out)")
        let subjects = fixture.account.standIn.events().compactMap { $0["subject"] as? String }
        #expect(!subjects.contains("Cancelled show"), "nothing was created: \(subjects)")
    }

    @Test func aDryRunHoldsAChangedOrDeletedMeetingAsTheRunDoes() throws {
        let fixture = try Fixture()
        try fixture.addMeeting("Quarterly review", uid: "uid-quarterly", hour: 10)
        try fixture.addMeeting("Budget round", uid: "uid-budget", hour: 13)
        #expect(try fixture.sync().status == 0)
        let review = fixture.folder + "/uid-quarterly.ics"
        let text = try String(contentsOfFile: review, encoding: .utf8)
        try text.replacingOccurrences(of: "SUMMARY:Quarterly review", with: "SUMMARY:Quarterly review moved")
            .write(toFile: review, atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(atPath: fixture.folder + "/uid-budget.ics")
        let held = [
            "held (would mail 1 attendee)  uid-budget.ics  Budget round",
            "held (would mail 1 attendee)  uid-quarterly.ics  Quarterly review moved",
        ]
        let dryRun = try fixture.sync(["--dry-run"])
        #expect(dryRun.status == 0, "\(dryRun.out) \(dryRun.err)")
        let heldLines = { (text: String) in text.components(separatedBy: "\n").filter { $0.hasPrefix("held") }.sorted()
        }
        #expect(heldLines(dryRun.out) == held, "\(dryRun.out)")
        #expect(!dryRun.out.contains("would push"), "\(dryRun.out)")
        let run = try fixture.sync()
        #expect(run.status == 0, "\(run.out) \(run.err)")
        #expect(heldLines(run.out) == held, "\(run.out)")
        // Held once per local change: the next dry run, as the next run, counts them in the summary only.
        let again = try fixture.sync(["--dry-run"])
        #expect(again.status == 0, "\(again.out) \(again.err)")
        #expect(again.out.hasPrefix("sync: no changes; 2 held as before"), "\(again.out)")
        let subjects = fixture.account.standIn.events().compactMap { $0["subject"] as? String }
        #expect(subjects.contains("Quarterly review") && subjects.contains("Budget round"), "nothing sent: \(subjects)")
    }

    @Test func aFileWithHundredsOfUIDsIsRefusedInOneShortLineWithTheirCount() throws {
        let fixture = try Fixture()
        #expect(try fixture.sync().status == 0)
        let events = (1...306).map { ["UID:many-\($0)", "SUMMARY:Item \($0)"] + Self.hour(daysAhead: 3) }
        try Self.calendarText(events).write(toFile: fixture.folder + "/many.ics", atomically: true, encoding: .utf8)
        let result = try fixture.sync()
        #expect(result.status == 1, "\(result.out) \(result.err)")
        let refusals = result.out.components(separatedBy: "\n").filter { $0.hasPrefix("refused: ") }
        #expect(refusals.count == 1, "\(result.out)")
        let line = refusals.first ?? ""
        #expect(line.contains("306 events with different UIDs (many-1, many-10, many-100, …)"), "\(line)")
        #expect(line.count < 250 && !line.contains("many-2,"), "\(line.count) characters: \(line)")
    }

    @Test func aFileDeletedByThePullAndAHeldDeletionAreNamedBySubject() throws {
        let fixture = try Fixture()
        try fixture.addMeeting("Quarterly review", uid: "uid-quarterly")
        #expect(try fixture.sync().status == 0)
        let lunch = try #require(
            fixture.account.standIn.events().first { $0["subject"] as? String == "Lunch" }?["id"] as? String)
        try fixture.account.standIn.removeEvent(id: lunch)
        try FileManager.default.removeItem(atPath: fixture.folder + "/uid-quarterly.ics")
        let result = try fixture.sync()
        #expect(result.status == 0, "\(result.out) \(result.err)")
        let lines = result.out.components(separatedBy: "\n")
        #expect(lines.contains("pulled deleted  uid-lunch.ics  Lunch"), "\(result.out)")
        #expect(lines.contains("held (would mail 1 attendee)  uid-quarterly.ics  Quarterly review"), "\(result.out)")
    }

    @Test func discardReplacesAnEditedFileAndRefusesAFileNeverSynced() throws {
        let fixture = try Fixture()
        #expect(try fixture.sync().status == 0)
        let path = fixture.folder + "/uid-lunch.ics"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        try text.replacingOccurrences(of: "SUMMARY:Lunch\r\n", with: "SUMMARY:My lunch\r\n").write(
            toFile: path, atomically: true, encoding: .utf8)
        let unknown = try fixture.sync(["--discard", "no-such.ics"])
        #expect(unknown.status == 64 && unknown.err.contains("--discard no-such.ics"), "\(unknown.err)")
        let discarded = try fixture.sync(["--discard", path])
        #expect(discarded.status == 0, "\(discarded.out) \(discarded.err)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text, "Outlook's version is back")
        #expect(discarded.out.contains("yours is kept under"), "\(discarded.out)")
    }

    @Test func aServerSideChangeArrivesAndQuietPrintsNothing() throws {
        let fixture = try Fixture()
        #expect(try fixture.sync().status == 0)
        try fixture.addEvent("Retro", daysAhead: 3, uid: "uid-retro")
        let result = try fixture.sync(["--quiet"])
        #expect(result.status == 0 && result.out.isEmpty, "stdout: \(result.out) stderr: \(result.err)")
        #expect(fixture.itemNames == ["uid-lunch.ics", "uid-retro.ics", "uid-review.ics"])
    }

    @Test func aSecondSyncOfTheFolderWhileOneRunsExits75NamingTheProcess() throws {
        let fixture = try Fixture()
        #expect(try fixture.sync().status == 0)
        let lock = try SyncLock(directory: fixture.state, folder: try VdirFolder(path: fixture.folder).path)
        defer { lock.release() }
        let result = try fixture.sync()
        #expect(result.status == 75)
        #expect(result.err.contains("another graph-ics sync (process \(getpid())) is working on"), "\(result.err)")
        #expect(result.out.isEmpty)
    }

    @Test func aConflictWithoutATerminalChangesNeitherSideAndExits1() throws {
        let fixture = try Fixture()
        #expect(try fixture.sync().status == 0)
        let lunch = try #require(fixture.account.standIn.events().first { $0["subject"] as? String == "Lunch" })
        try fixture.account.standIn.changeEvent(id: try #require(lunch["id"] as? String), ["subject": "Outlook lunch"])
        let path = fixture.folder + "/uid-lunch.ics"
        let mine = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(
            of: "SUMMARY:Lunch", with: "SUMMARY:My lunch")
        try Data(mine.utf8).write(to: URL(fileURLWithPath: path))

        let result = try fixture.sync()
        #expect(result.status == 1, "stderr: \(result.err)")
        #expect(result.out.contains("conflict  uid-lunch.ics  My lunch (changed here and in Outlook"), "\(result.out)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == mine)
        #expect(fixture.account.standIn.events().contains { $0["subject"] as? String == "Outlook lunch" })

        let settled = try fixture.sync(["--conflict", "graph"])
        #expect(settled.status == 0, "stderr: \(settled.err)")
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("SUMMARY:Outlook lunch"))
        let kept = try FileManager.default.contentsOfDirectory(atPath: fixture.state + "/conflicts")
        #expect(kept.count == 1 && kept.first?.hasSuffix(".local.ics") == true && settled.out.contains(kept[0]))
    }

    @Test func aDryRunChangesNothing() throws {
        let fixture = try Fixture()
        #expect(try fixture.sync().status == 0)
        try fixture.addEvent("Retro", daysAhead: 3, uid: "uid-retro")
        let result = try fixture.sync(["--dry-run"])
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(result.out.contains("would pull new  uid-retro.ics"), "\(result.out)")
        #expect(result.out.hasSuffix("; dry run: nothing was changed\n"))
        #expect(fixture.itemNames == ["uid-lunch.ics", "uid-review.ics"])
    }

    @Test func anEmptiedFolderIsRefusedWithExit1AndChangesNothing() throws {
        let fixture = try Fixture()
        for day in 0..<6 { try fixture.addEvent("Event \(day)", daysAhead: 6 + day, uid: "uid-e\(day)") }
        #expect(try fixture.sync().status == 0)
        for name in fixture.itemNames { try FileManager.default.removeItem(atPath: fixture.folder + "/" + name) }
        let result = try fixture.sync()
        #expect(result.status == 1)
        #expect(result.err.contains("error: this sync would delete 8 of the 8 items in Outlook"), "\(result.err)")
        #expect(result.err.contains("--allow-mass-delete"))
        #expect(fixture.account.standIn.events().count == 8)
    }

    @Test func withoutASignInItExits77AndCreatesNothing() throws {
        let fixture = try Fixture()
        var environment = fixture.account.baseEnvironment
        environment["GRAPH_ICS_STATE_DIR"] = fixture.state
        environment["GRAPH_ICS_CONFIG_DIR"] = fixture.account.folder.appendingPathComponent("no-sign-in").path
        let result = try fixture.account.run(["sync", fixture.folder], environment: environment)
        #expect(result.status == 77, "\(result.err)")
        #expect(!FileManager.default.fileExists(atPath: fixture.folder))
        #expect(!FileManager.default.fileExists(atPath: fixture.state))
    }

    @Test func resetStartsOverOnlyFromAnEmptyFolder() throws {
        let fixture = try Fixture()
        #expect(try fixture.sync().status == 0)
        let refused = try fixture.sync(["--reset"])
        #expect(refused.status == 64 && refused.err.contains("move its .ics files away first"), "\(refused.err)")
        for name in fixture.itemNames { try FileManager.default.removeItem(atPath: fixture.folder + "/" + name) }
        let result = try fixture.sync(["--reset"])
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(fixture.itemNames == ["uid-lunch.ics", "uid-review.ics"])
        #expect(fixture.account.standIn.events().count == 2)
    }

    @Test func aDryRunOfAFolderNeverSyncedCreatesNeitherTheFolderNorTheState() throws {
        let fixture = try Fixture()
        let result = try fixture.sync(["--dry-run"])
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(result.out.contains("would pull new  uid-lunch.ics  Lunch"), "\(result.out)")
        #expect(!FileManager.default.fileExists(atPath: fixture.folder))
        #expect(!FileManager.default.fileExists(atPath: fixture.state + "/" + SyncState.fileName))
        #expect(try fixture.sync().status == 0, "the real first sync afterwards")
        #expect(fixture.itemNames == ["uid-lunch.ics", "uid-review.ics"])
    }

    @Test func theJSONReportParses() throws {
        let fixture = try Fixture()
        let result = try fixture.sync(["--json"])
        #expect(result.status == 0, "stderr: \(result.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let items = try #require(object["items"] as? [[String: Any]])
        #expect(items.compactMap { $0["file"] as? String }.sorted() == ["uid-lunch.ics", "uid-review.ics"])
        #expect(object["round"] as? String == "first" && object["dryRun"] as? Bool == false)
    }

    @Test func usageMistakesExit64() throws {
        let fixture = try Fixture()
        for arguments in [
            ["--pull-only", "--push-only"], ["--as-meeting"], ["--yes"], ["--past", "-1"], ["--future", "x"],
        ] {
            let result = try fixture.sync(arguments)
            #expect(result.status == 64, "\(arguments): \(result.err)")
            #expect(result.err.hasPrefix("error: "))
        }
        #expect(!FileManager.default.fileExists(atPath: fixture.folder), "nothing created on a usage error")
    }
}
