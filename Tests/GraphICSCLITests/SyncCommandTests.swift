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
        #expect(lines.contains("pulled new  uid-lunch.ics  uid-lunch"), "\(lines)")
        #expect(lines.last?.hasPrefix("sync: pulled 2 (2 new); first sync: read the whole window") == true, "\(lines)")
        let name = try String(contentsOfFile: fixture.folder + "/displayname", encoding: .utf8)
        #expect(name == "Calendar")
        let lunch = try String(contentsOfFile: fixture.folder + "/uid-lunch.ics", encoding: .utf8)
        #expect(lunch.contains("SUMMARY:Lunch") && lunch.contains("UID:uid-lunch"))
        #expect(FileManager.default.fileExists(atPath: fixture.state + "/" + SyncState.fileName))
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
