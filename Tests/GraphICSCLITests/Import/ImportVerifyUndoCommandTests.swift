import Foundation
import GraphStandIn
import Synchronization
import Testing

/// `graph-ics import --verify`, `--undo`, URL inputs and the compact report, through the built binary.
@Suite struct ImportVerifyUndoCommandTests {
    private static func fixture(_ name: String) -> String {
        Package.fixture("import/" + name).path
    }

    private static func account() throws -> (account: StandInAccount, environment: [String: String]) {
        let account = try StandInAccount()
        account.standIn.addUser(
            displayName: "Alex Example", mail: "alex@contoso.example", mailboxTimeZone: "W. Europe Standard Time")
        return (account, account.tokenEnvironment())
    }

    private static func writes(_ standIn: GraphStandIn) -> Int {
        standIn.operations.filter { ["POST", "PATCH", "DELETE"].contains($0.method) }.count
    }

    // MARK: --verify

    @Test func verifyFindsAnEventOutlookMovedByAnHourAndExitsOne() throws {
        let (account, environment) = try Self.account()
        let files = ["concert.ics", "cinema-ticket.ics", "meetup-series.ics"].map(Self.fixture)
        let first = try account.run(["import", "--verify"] + files, environment: environment)
        #expect(first.status == 0, "stderr: \(first.err)")
        #expect(first.errLines.filter { $0.hasSuffix(": ok") }.count == 3, "stderr: \(first.err)")
        #expect(first.err.contains("note: verify: 3 ok, 0 missing, 0 outdated, 0 different, 0 failed"))

        let cinema = try #require(
            account.standIn.events().first { ($0["subject"] as? String)?.hasPrefix("Kino") == true }?["id"]
                as? String)
        try account.standIn.moveEvent(id: cinema, bySeconds: 3600)
        let writes = Self.writes(account.standIn)
        let second = try account.run(["import", "--verify", "--json"] + files, environment: environment)
        #expect(second.status == 1, "stderr: \(second.err)")
        #expect(Self.writes(account.standIn) == writes, "the import had nothing to do")
        let line = try #require(second.errLines.first { $0.contains(": different: ") }, "stderr: \(second.err)")
        #expect(line.hasPrefix("cinema-ticket.ics: \"Kino: Metropolis"), "\(line)")
        #expect(line.contains("start: 2027-01-22 19:15 UTC in the file, 2027-01-22 20:15 UTC in Outlook"), "\(line)")
        let object = try #require(try JSONSerialization.jsonObject(with: second.stdout) as? [String: Any])
        let verified = try #require(object["verify"] as? [[String: Any]])
        #expect(verified.map { $0["outcome"] as? String } == ["ok", "different", "ok"])
    }

    @Test func aDryRunVerifyImportsNothingAndCallsTheEventsMissing() throws {
        let (account, environment) = try Self.account()
        let result = try account.run(
            ["import", "--dry-run", "--verify", Self.fixture("train-ticket.ics")], environment: environment)
        #expect(result.status == 1, "stderr: \(result.err)")
        #expect(
            result.errLines.contains { $0.hasPrefix("train-ticket.ics: \"Train ES 9126") && $0.hasSuffix(": missing") })
        #expect(Self.writes(account.standIn) == 0)
        #expect(result.stdout.isEmpty)
    }

    // MARK: --undo

    @Test func undoRemovesTheImportedEventsAndLeavesTheRest() throws {
        let (account, environment) = try Self.account()
        let kept = try account.standIn.addEvent([
            "subject": "Dentist", "start": ["dateTime": "2027-01-22T08:00:00", "timeZone": "UTC"],
            "end": ["dateTime": "2027-01-22T09:00:00", "timeZone": "UTC"],
        ])
        let files = ["concert.ics", "meetup-series.ics"].map(Self.fixture)
        #expect(try account.run(["import"] + files, environment: environment).status == 0)

        let preview = try account.run(["import", "--undo", "--dry-run"] + files, environment: environment)
        #expect(preview.status == 0, "stderr: \(preview.err)")
        #expect(preview.errLines.filter { $0.hasSuffix(": would remove") }.count == 2, "stderr: \(preview.err)")
        #expect(account.standIn.events().count > 2)

        let undo = try account.run(["import", "--undo", "--json"] + files, environment: environment)
        #expect(undo.status == 0, "stderr: \(undo.err)")
        #expect(undo.errLines.filter { $0.hasSuffix(": removed") }.count == 2, "stderr: \(undo.err)")
        #expect(undo.err.contains("note: 2 file(s): 2 removed, 0 not in the calendar, 0 failed"), "\(undo.err)")
        #expect(account.standIn.events().map { $0["id"] as? String } == [kept])
        let object = try #require(try JSONSerialization.jsonObject(with: undo.stdout) as? [String: Any])
        #expect((object["events"] as? [[String: Any]])?.count == 2)
        #expect(account.standIn.sentCancellations.isEmpty)
    }

    @Test func undoOfAMeetingNeedsAsMeetingYes() throws {
        let (account, environment) = try Self.account()
        let invite = Self.fixture("invitation-request.ics")
        #expect(try account.run(["import", "--as-meeting", "--yes", invite], environment: environment).status == 0)
        let refused = try account.run(["import", "--undo", invite], environment: environment)
        #expect(refused.status == 1, "stderr: \(refused.err)")
        #expect(refused.err.contains("deleting it would make Graph mail them"), "\(refused.err)")
        #expect(account.standIn.eventCount == 1)
        let unconfirmed = try account.run(["import", "--undo", "--as-meeting", invite], environment: environment)
        #expect(unconfirmed.status == 64)
        let confirmed = try account.run(
            ["import", "--undo", "--as-meeting", "--yes", invite], environment: environment)
        #expect(confirmed.status == 0, "stderr: \(confirmed.err)")
        #expect(account.standIn.eventCount == 0)
    }

    // MARK: Messages

    @Test func theReportNamesFileSubjectAndTimeNotThePathOrUID() throws {
        let (account, environment) = try Self.account()
        let result = try account.run(["import", Self.fixture("concert.ics")], environment: environment)
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(
            result.errLines.contains(
                "concert.ics: \"Concert: Mahler Symphony No. 2 – Berliner Philharmoniker\" 2027-02-11 20:00: created"),
            "stderr: \(result.err)")
        #expect(!result.err.contains("evt-2027-0211-philharmonie-4481@eventim.example"))
        #expect(!result.err.contains("fixtures/import"))
    }

    @Test func asMeetingListsOnlyTheEventsItWillWrite() throws {
        let (account, environment) = try Self.account()
        let invite = Self.fixture("invitation-request.ics")
        let concert = Self.fixture("concert.ics")
        let first = try account.run(["import", "--as-meeting", "--yes", invite], environment: environment)
        #expect(first.status == 0, "stderr: \(first.err)")
        #expect(first.err.contains("note: --as-meeting: Graph will mail 3 attendee(s):"), "\(first.err)")

        // Already imported: skipped, so nobody is mailed and nobody is listed.
        let again = try account.run(["import", "--as-meeting", "--yes", invite, concert], environment: environment)
        #expect(again.status == 0, "stderr: \(again.err)")
        #expect(!again.err.contains("lee@contoso.example"), "\(again.err)")
        #expect(again.err.contains("--as-meeting: no event to create or change has attendees"), "\(again.err)")
        #expect(account.standIn.sentInvitations.count == 3)
    }

    @Test func libicalsNoteAboutADroppedEmptyPropertyIsShownOnlyWithVerbose() throws {
        let (account, environment) = try Self.account()
        let file = account.folder.appendingPathComponent("empty-location.ics")
        let text = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//tests//EN", "BEGIN:VEVENT", "UID:empty-location@tests.example",
            "DTSTAMP:20261201T100000Z", "DTSTART:20270301T100000Z", "DURATION:PT1H", "SUMMARY:Walk", "LOCATION:",
            "END:VEVENT", "END:VCALENDAR", "",
        ].joined(separator: "\r\n")
        try Data(text.utf8).write(to: file)
        let quiet = try account.run(["import", "--dry-run", "--tz", "UTC", file.path], environment: environment)
        #expect(quiet.status == 0, "stderr: \(quiet.err)")
        #expect(!quiet.err.contains("Removing entire property"), "stderr: \(quiet.err)")
        let verbose = try account.run(
            ["import", "--dry-run", "-v", "--tz", "UTC", file.path], environment: environment)
        #expect(verbose.err.contains("No value for LOCATION property"), "stderr: \(verbose.err)")
    }

    // MARK: URLs

    @Test func aTicketURLIsFetchedWithoutAnyGraphHeaderAndNamedInTheReport() throws {
        let (account, environment) = try Self.account()
        let ticket = try Data(contentsOf: URL(fileURLWithPath: Self.fixture("cinema-ticket.ics")))
        let seen = Mutex<[[(name: String, value: String)]]>([])
        let host = try LoopbackHTTPServer { request in
            seen.withLock { $0.append(request.headers) }
            guard request.path == "/orders/7731902/ticket.ics" else { return .respond(.text(404, "no such ticket")) }
            return .respond(.init(status: 200, headers: [("Content-Type", "text/calendar")], body: ticket))
        }
        defer { host.stop() }
        let url = host.baseURL + "/orders/7731902/ticket.ics?key=s3cret"
        let result = try account.run(["import", url], environment: environment)
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(
            result.errLines.contains { $0.hasPrefix(host.baseURL + "/orders/7731902/ticket.ics?…: \"Kino") },
            "stderr: \(result.err)")
        #expect(!result.err.contains("s3cret"))
        #expect(account.standIn.eventCount == 1)
        let headers = seen.withLock { $0 }
        #expect(headers.count == 1)
        let names = Set((headers.first ?? []).map { $0.name.lowercased() })
        #expect(names.isDisjoint(with: ["authorization", "client-request-id", "prefer", "return-client-request-id"]))
        let token = environment["GRAPH_ICS_ACCESS_TOKEN"] ?? "-"
        #expect(!(headers.first ?? []).contains { $0.value.contains(token) })
        // Graph itself was asked with the token, as always.
        #expect(account.standIn.requests.contains { $0.header("Authorization") == "Bearer \(token)" })

        let missing = try account.run(["import", host.baseURL + "/orders/1/ticket.ics"], environment: environment)
        #expect(missing.status == 66, "stderr: \(missing.err)")
        #expect(missing.err.contains("ticket.ics: cannot be fetched: the server answered HTTP 404"), "\(missing.err)")
    }

    @Test func plainHTTPToAnotherHostIsRefusedBeforeAnythingIsSent() throws {
        let (account, environment) = try Self.account()
        let result = try account.run(["import", "http://tickets.example/ticket.ics"], environment: environment)
        #expect(result.status == 66, "stderr: \(result.err)")
        #expect(result.err.contains("http://tickets.example/ticket.ics: cannot be fetched"), "\(result.err)")
        #expect(Self.writes(account.standIn) == 0)
    }
}
