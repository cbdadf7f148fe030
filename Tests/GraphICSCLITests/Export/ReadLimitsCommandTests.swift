import Foundation
import GraphICS
import GraphStandIn
import TestSupport
import Testing

/// What export, agenda and whoami do at the edges of what Graph allows: an app registration with only
/// `Calendars.ReadWrite`, days Graph cannot answer for, ranges that take many requests, progress in a log.
@Suite struct ReadLimitsCommandTests {
    static let upn = "ada@contoso.example"

    static func account() throws -> StandInAccount {
        let account = try StandInAccount()
        account.standIn.addUser(displayName: "Ada Lovelace", mail: upn, mailboxTimeZone: "W. Europe Standard Time")
        return account
    }

    /// App-only access (client credentials) for a registration granted exactly `roles`.
    static func appOnly(_ account: StandInAccount, roles: [String]) -> [String: String] {
        account.standIn.registerApp(clientID: account.clientID, secret: "s3cr3t", roles: roles)
        var environment = account.baseEnvironment
        environment["GRAPH_ICS_TENANT"] = "contoso.example"
        environment["GRAPH_ICS_CLIENT_SECRET"] = "s3cr3t"
        return environment
    }

    // MARK: Item 1: permissions

    @Test(arguments: [["export", "-o", "-"], ["agenda"]])
    func withOnlyCalendarsReadWriteTheMailboxZoneIsRefusedNamingThePermissionAndTz(command: [String]) throws {
        let account = try Self.account()
        let environment = Self.appOnly(account, roles: ["Calendars.ReadWrite"])
        let refused = try account.run(command + ["--user", Self.upn], environment: environment)
        #expect(refused.status == 77, "stderr: \(refused.err)")
        #expect(refused.stdout.isEmpty)
        #expect(refused.errLines.count == 1, "stderr: \(refused.err)")
        let line = try #require(refused.errLines.first)
        #expect(line.hasPrefix("error: Graph refused reading the mailbox's time zone (mailboxSettings"))
        #expect(line.contains("HTTP 403 ErrorAccessDenied"))
        #expect(line.contains("the application permission MailboxSettings.Read"))
        #expect(line.contains("--tz ZONE, which avoids the call"))
        #expect(line.contains("[request-id "))
        // Nothing was fetched on a guessed zone.
        #expect(!account.standIn.requests.contains { $0.path.lowercased().hasSuffix("/calendarview") })

        let withZone = try account.run(
            command + ["--user", Self.upn, "--tz", "Europe/Berlin"], environment: environment)
        #expect(withZone.status == 0, "stderr: \(withZone.err)")
        #expect(!account.standIn.requests.contains { $0.path.hasSuffix("/mailboxSettings") && $0.status == 200 })
    }

    @Test func whoamiWithOnlyCalendarsReadWriteNamesUserReadAll() throws {
        let account = try Self.account()
        let environment = Self.appOnly(account, roles: ["Calendars.ReadWrite"])
        let refused = try account.run(["whoami", "--user", Self.upn], environment: environment)
        #expect(refused.status == 77, "stderr: \(refused.err)")
        #expect(refused.errLines.count == 1, "stderr: \(refused.err)")
        let line = try #require(refused.errLines.first)
        #expect(
            line.hasPrefix("error: Graph refused reading the user \(Self.upn) (HTTP 403 Authorization_RequestDenied)"))
        #expect(line.contains("the application permission User.Read.All"))
    }

    @Test func whoamiWithUserReadAllButNoMailboxSettingsNamesMailboxSettingsRead() throws {
        let account = try Self.account()
        let environment = Self.appOnly(account, roles: ["Calendars.ReadWrite", "User.Read.All"])
        let refused = try account.run(["whoami", "--user", Self.upn], environment: environment)
        #expect(refused.status == 77, "stderr: \(refused.err)")
        let line = try #require(refused.errLines.first)
        #expect(line.contains("the application permission MailboxSettings.Read"))
        // whoami shows the zone: --tz would not help it.
        #expect(!line.contains("--tz"))

        let granted = Self.appOnly(account, roles: ["Calendars.ReadWrite", "User.Read.All", "MailboxSettings.Read"])
        let shown = try account.run(["whoami", "--user", Self.upn], environment: granted)
        #expect(shown.status == 0, "stderr: \(shown.err)")
        #expect(shown.out.contains("time zone: W. Europe Standard Time (Europe/Berlin)"))
    }

    @Test func aDelegatedTokenWithoutMailboxSettingsReadNamesTheDelegatedPermission() throws {
        let account = try Self.account()
        var environment = account.baseEnvironment
        environment["GRAPH_ICS_ACCESS_TOKEN"] = account.standIn.issueAccessToken(scopes: ["Calendars.Read"])
        let refused = try account.run(["agenda"], environment: environment)
        #expect(refused.status == 77, "stderr: \(refused.err)")
        let line = try #require(refused.errLines.first)
        // A given token may be either kind.
        #expect(line.contains("the permission MailboxSettings.Read"))
        #expect(line.contains("--tz ZONE"))
    }

    /// Signed in (a saved sign-in, delegated) as Ada with `scopes`.
    static func signedIn(_ account: StandInAccount, scopes: [String]) throws -> [String: String] {
        let configuration = AuthConfiguration(
            authority: account.standIn.authority, tenant: "common", clientID: account.clientID,
            graphBaseURL: try #require(URL(string: account.standIn.baseURL)),
            configDirectory: account.configDirectory)
        try TokenStore(configuration: configuration).save(
            AccountTokens(
                authority: account.standIn.authority, tenant: "common", clientID: account.clientID,
                accessToken: account.standIn.issueAccessToken(user: upn, scopes: scopes),
                expiresAt: Date().addingTimeInterval(3600),
                refreshToken: account.standIn.issueRefreshToken(user: upn, scopes: scopes, clientID: account.clientID),
                scopes: ["offline_access"] + scopes))
        return account.baseEnvironment
    }

    @Test func aSignedInUserReadingASharedMailboxIsToldToGiveTz() throws {
        let account = try Self.account()
        account.standIn.addUser(displayName: "Bo Li", mail: "bo@contoso.example", mailboxTimeZone: "UTC")
        let environment = try Self.signedIn(
            account, scopes: ["User.Read", "MailboxSettings.Read", "Calendars.ReadWrite", "Calendars.Read.Shared"])
        let refused = try account.run(["agenda", "--user", "bo@contoso.example"], environment: environment)
        #expect(refused.status == 77, "stderr: \(refused.err)")
        let line = try #require(refused.errLines.first)
        #expect(
            line.contains(
                "reading another user's mailbox settings needs app-only access with the application permission "
                    + "MailboxSettings.Read; or give --tz ZONE"), "\(line)")
        let shown = try account.run(
            ["agenda", "--user", "bo@contoso.example", "--tz", "UTC"], environment: environment)
        #expect(shown.status == 0, "stderr: \(shown.err)")
        // Her own mailbox's settings are hers to read.
        #expect(try account.run(["agenda"], environment: environment).status == 0)
    }

    // MARK: Items 4 and 6: windows

    @Test func aLongAllDayEventAcrossAWindowBoundaryIsExportedAndShownOnce() throws {
        let account = try Self.account()
        // The first 31-day window from midnight in New York ends 2026-02-01T05:00Z; the holiday ends at
        // midnight in Los Angeles, 08:00Z, so Graph returns it in both windows.
        try account.standIn.addEvent([
            "subject": "Holiday", "isAllDay": true,
            "start": ["dateTime": "2026-01-20T00:00:00", "timeZone": "Pacific Standard Time"],
            "end": ["dateTime": "2026-02-01T00:00:00", "timeZone": "Pacific Standard Time"],
        ])
        let range = ["--tz", "America/New_York", "--from", "2026-01-01", "--to", "2026-03-01"]
        let exported = try account.run(["export", "-o", "-"] + range, environment: account.tokenEnvironment())
        #expect(exported.status == 0, "stderr: \(exported.err)")
        let events = ICalendarText.events(exported.out)
        #expect(events.count == 1)
        #expect(events.first?.line("DTSTART") == "DTSTART;VALUE=DATE:20260120")
        #expect(events.first?.line("DTEND") == "DTEND;VALUE=DATE:20260201")

        let agenda = try account.run(["agenda", "--json"] + range, environment: account.tokenEnvironment())
        #expect(agenda.status == 0, "stderr: \(agenda.err)")
        let shown = try JSONSerialization.jsonObject(with: agenda.stdout) as? [[String: Any]]
        #expect(shown?.compactMap { $0["subject"] as? String } == ["Holiday"])
    }

    @Test func aSeriesExportOverSevenYearsLooksItsOccurrencesUpInWindowsGraphAccepts() throws {
        let account = try Self.account()
        for event in StandInSeeds.sevenYearSeriesWithThreeOccurrences() { try account.standIn.addEvent(event) }
        let result = try account.run(
            [
                "export", "--recurrence", "series", "--tz", "UTC", "--from", "2020-01-01", "--to", "2027-01-01", "-o",
                "-",
            ],
            environment: account.tokenEnvironment())
        #expect(result.status == 0, "stderr: \(result.err)")
        let master = try #require(ICalendarText.events(result.out).first { $0.line("RRULE") != nil })
        #expect(master.lines.filter { $0.hasPrefix("EXDATE") }.count == 4)
        let lookups = account.standIn.requests.filter { $0.path.lowercased().hasSuffix("/instances") }
        #expect(lookups.count == 2 && lookups.allSatisfy { $0.status == 200 })
    }

    // MARK: Item 17: dates Graph can answer for, long ranges, progress

    @Test(arguments: [
        (["--from", "0001-01-01", "--to", "0001-02-01"], "--from 0001-01-01 is before 1601-01-02"),
        (["--from", "1601-01-01", "--to", "1601-02-01"], "--from 1601-01-01 is before 1601-01-02"),
        (["--from", "9999-12-01", "--to", "9999-12-31"], ""),
        (["--week", "0001-W01"], "--week '0001-W01' is outside the weeks Graph can answer for"),
    ])
    func daysGraphCannotAnswerForAreAUsageErrorBeforeAnyRequest(range: [String], message: String) throws {
        let account = try Self.account()
        let result = try account.run(
            ["export", "--tz", "UTC", "-o", "-"] + range, environment: account.tokenEnvironment())
        if message.isEmpty {
            #expect(result.status == 0, "stderr: \(result.err)")
            return
        }
        #expect(result.status == 64, "stderr: \(result.err)")
        #expect(result.errLines.first?.hasPrefix("error: " + message) == true, "stderr: \(result.err)")
        #expect(account.standIn.requests.isEmpty)
    }

    @Test func theEarliestDayIsAskedForAsItIs() throws {
        let account = try Self.account()
        let result = try account.run(
            ["export", "--tz", "UTC", "--from", "1601-01-02", "--to", "1601-01-09", "-o", "-"],
            environment: account.tokenEnvironment())
        #expect(result.status == 0, "stderr: \(result.err)")
        let view = try #require(account.standIn.requests.first { $0.path.lowercased().hasSuffix("/calendarview") })
        let query = Dictionary(view.query.map { ($0.key.lowercased(), $0.value) }) { first, _ in first }
        #expect(query["startdatetime"] == "1601-01-02T00:00:00Z")
        #expect(query["enddatetime"] == "1601-01-09T00:00:00Z")
    }

    @Test func aRangeOfElevenYearsIsWarnedAboutBeforeTheFirstRequestAndShowsProgressWithVerbose() throws {
        let account = try Self.account()
        let result = try account.run(
            ["export", "--tz", "UTC", "--from", "2000-01-01", "--to", "2011-01-01", "-v", "-y", "-o", "-"],
            environment: account.tokenEnvironment())
        #expect(result.status == 0, "stderr: \(result.err)")
        let lines = result.errLines
        let warning = try #require(lines.firstIndex { $0.hasPrefix("warning: ") })
        #expect(lines[warning].contains("2000-01-01 – 2010-12-31 (UTC) is about 11 years"))
        #expect(lines[warning].contains("130 calendarView requests"))
        let firstView = try #require(lines.firstIndex { $0.contains("calendarView") && !$0.hasPrefix("warning") })
        #expect(warning < firstView)
        #expect(account.standIn.requests.filter { $0.path.lowercased().hasSuffix("/calendarview") }.count == 130)
        // stderr is not a terminal: with -v, progress comes as notes.
        #expect(lines.contains("note: exporting: 130 pages, 0 events"), "stderr: \(result.err)")
    }

    @Test func aLongRangeOffATerminalWithoutYesExits64BeforeAnyCalendarRequest() throws {
        let account = try Self.account()
        let output = account.folder.appendingPathComponent("long.ics")
        let result = try account.run(
            ["export", "--tz", "UTC", "--from", "2000-01-01", "--to", "2011-01-01", "-o", output.path],
            environment: account.tokenEnvironment())
        #expect(result.status == 64, "stderr: \(result.err)")
        #expect(result.errLines.count == 2 && result.errLines[0].hasPrefix("warning: "), "stderr: \(result.err)")
        #expect(result.errLines[1].hasPrefix("error: not sending 130 calendarView requests without --yes"))
        #expect(!account.standIn.requests.contains { $0.path.lowercased().hasSuffix("/calendarview") })
        #expect(!FileManager.default.fileExists(atPath: output.path), "nothing written")
    }

    @Test func aLongRangeIsExportedAfterYesOnATerminalAndNotAfterNo() throws {
        let account = try Self.account()
        for (answer, status, requests) in [("n\n", Int32(0), 0), ("y\n", Int32(0), 130)] {
            let before = account.standIn.requests.count
            let run = try PseudoTerminalRun(
                ["export", "--tz", "UTC", "--from", "2000-01-01", "--to", "2011-01-01", "-o", "-"],
                environment: account.tokenEnvironment())
            let deadline = Date().addingTimeInterval(defaultTimeout)
            while !run.errorText.contains("Send 130 requests to Graph? [y/N]"), Date() < deadline { usleep(20_000) }
            run.type(answer)
            let result = try run.finish()
            #expect(result.status == status, "stderr: \(result.err)")
            let views = account.standIn.requests.dropFirst(before).filter {
                $0.path.lowercased().hasSuffix("/calendarview")
            }
            #expect(views.count == requests, "answer \(answer): stderr: \(result.err)")
        }
    }

    @Test func aRangeOfTenYearsIsNotWarnedAboutAndWithoutVerboseShowsNoProgress() throws {
        let account = try Self.account()
        let result = try account.run(
            ["export", "--tz", "UTC", "--from", "2000-01-01", "--to", "2009-01-01", "-o", "-"],
            environment: account.tokenEnvironment())
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(result.err.isEmpty, "stderr: \(result.err)")
    }

    @Test func agendaWarnsAboutALongRangeToo() throws {
        let account = try Self.account()
        let result = try account.run(
            ["agenda", "--json", "--tz", "UTC", "--from", "2000-01-01", "--to", "2012-01-01"],
            environment: account.tokenEnvironment())
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(result.errLines.count == 1 && result.errLines[0].hasPrefix("warning: "), "stderr: \(result.err)")
    }
}
