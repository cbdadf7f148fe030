import Foundation
import GraphICS
import GraphStandIn
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `graph-ics login`, `logout`, `whoami` and `calendars` against the Graph stand-in and its sign-in endpoints.
@Suite struct AccountCommandTests {
    /// A stand-in whose first user is Megan Bowen, mailbox in "W. Europe Standard Time".
    static func account() throws -> StandInAccount {
        let account = try StandInAccount()
        account.standIn.addUser(
            displayName: "Megan Bowen", mail: "megan@contoso.example",
            userPrincipalName: "megan@contoso.onmicrosoft.example", mailboxTimeZone: "W. Europe Standard Time")
        return account
    }

    static func store(_ account: StandInAccount) -> TokenStore {
        TokenStore(directory: account.configDirectory)
    }

    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o777
    }

    // MARK: whoami

    @Test("whoami shows the name, the address, the UPN and the time zone as Windows and IANA name")
    func whoami() throws {
        let account = try Self.account()
        let result = try account.run(["whoami"], environment: account.tokenEnvironment())
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(
            result.out == """
                Megan Bowen <megan@contoso.example>
                user principal name: megan@contoso.onmicrosoft.example
                time zone: W. Europe Standard Time (Europe/Berlin)

                """)
        #expect(result.stderr.isEmpty, "stderr: \(result.err)")
    }

    @Test("whoami --json prints one object with the same facts")
    func whoamiJSON() throws {
        let account = try Self.account()
        let result = try account.run(["whoami", "--json"], environment: account.tokenEnvironment())
        #expect(result.status == 0, "stderr: \(result.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        #expect(object["displayName"] as? String == "Megan Bowen")
        #expect(object["mail"] as? String == "megan@contoso.example")
        #expect(object["userPrincipalName"] as? String == "megan@contoso.onmicrosoft.example")
        #expect(object["timeZone"] as? String == "W. Europe Standard Time")
        #expect(object["ianaTimeZone"] as? String == "Europe/Berlin")
        #expect((object["id"] as? String)?.isEmpty == false)
    }

    // MARK: calendars

    @Test("calendars lists name, default, read-only and id; --json gives Graph's objects")
    func calendars() throws {
        let account = try Self.account()
        let standIn = account.standIn
        let holidays = standIn.addCalendar(name: "Holidays in Bavaria", canEdit: false)
        let team = standIn.addCalendar(name: "Team")
        let defaultID = try #require(standIn.defaultCalendarID())
        let environment = account.tokenEnvironment()

        let table = try account.run(["calendars"], environment: environment)
        #expect(table.status == 0, "stderr: \(table.err)")
        let rows = table.out.split(separator: "\n").map(String.init)
        #expect(rows.count == 3, "stdout: \(table.out)")
        let calendarRow = try #require(rows.first { $0.hasPrefix("Calendar ") })
        #expect(calendarRow.contains("default") && calendarRow.hasSuffix(defaultID))
        let holidayRow = try #require(rows.first { $0.hasPrefix("Holidays in Bavaria ") })
        #expect(holidayRow.contains("read-only") && holidayRow.hasSuffix(holidays))
        let teamRow = try #require(rows.first { $0.hasPrefix("Team ") })
        #expect(!teamRow.contains("default") && !teamRow.contains("read-only") && teamRow.hasSuffix(team))

        let json = try account.run(["calendars", "--json"], environment: environment)
        #expect(json.status == 0, "stderr: \(json.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        let value = try #require(object["value"] as? [[String: Any]])
        #expect(Set(value.compactMap { $0["id"] as? String }) == [defaultID, holidays, team])
        let holiday = try #require(value.first { $0["id"] as? String == holidays })
        #expect(holiday["name"] as? String == "Holidays in Bavaria")
        #expect(holiday["canEdit"] as? Bool == false)
        // As every --json: every key, null where Graph gave none, keys sorted, "key": value.
        #expect(
            value.allSatisfy { Set($0.keys) == ["id", "name", "isDefaultCalendar", "canEdit", "owner", "hexColor"] })
        #expect(json.out.hasPrefix("{\n  \"value\": [\n    {\n      \"canEdit\": "), "stdout: \(json.out)")
        #expect(!json.out.contains("\" : "), "stdout: \(json.out)")
    }

    @Test("calendars does not cut long names, so they can be given to --calendar as shown")
    func longCalendarName() throws {
        let account = try Self.account()
        let name = "Shared calendar of the facilities management team, Munich office"
        account.standIn.addCalendar(name: name)
        let result = try account.run(["calendars"], environment: account.tokenEnvironment())
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(result.out.contains(name + " "), "stdout: \(result.out)")
    }

    // MARK: Signing in and out

    @Test("without a sign-in, commands exit 77 and tell the user to run graph-ics login")
    func notSignedIn() throws {
        let account = try Self.account()
        for command in [["whoami"], ["calendars"], ["agenda"]] {
            let result = try account.run(command, environment: account.baseEnvironment)
            #expect(result.status == 77, "\(command): \(result.err)")
            #expect(result.stdout.isEmpty)
            #expect(result.errLines.count == 1 && result.err.contains("graph-ics login"), "stderr: \(result.err)")
        }
        #expect(account.standIn.operations.isEmpty)
    }

    @Test("login runs the device code flow, saves the account privately, never prints a token; logout removes it")
    func loginAndLogout() throws {
        let account = try Self.account()
        let standIn = account.standIn
        standIn.deviceCodeInterval = 1
        standIn.deviceCodeScript = [.authorizationPending, .success]
        let environment = account.baseEnvironment

        let login = try account.run(["login"], environment: environment)
        #expect(login.status == 0, "stderr: \(login.err)")
        #expect(login.stdout.isEmpty, "stdout: \(login.out)")
        #expect(login.err.contains("https://microsoft.com/devicelogin"), "stderr: \(login.err)")
        #expect(login.err.contains("signed in as megan@contoso.onmicrosoft.example"), "stderr: \(login.err)")
        #expect(standIn.devicePollTimes.count == 2)

        let saved = try Self.store(account).list()
        #expect(saved.count == 1)
        let tokens = try #require(saved.first)
        #expect(tokens.userName == "megan@contoso.onmicrosoft.example")
        let refreshToken = try #require(tokens.refreshToken)
        for secret in [tokens.accessToken, refreshToken] {
            #expect(!login.out.contains(secret) && !login.err.contains(secret), "a token was printed")
        }
        #expect(Self.mode(account.configDirectory.path) == 0o700)
        let files = try FileManager.default.contentsOfDirectory(atPath: account.configDirectory.path)
        #expect(files.count == 1, "\(files)")
        for file in files {
            #expect(Self.mode(account.configDirectory.appendingPathComponent(file).path) == 0o600, "\(file)")
        }

        let whoami = try account.run(["whoami"], environment: environment)
        #expect(whoami.status == 0, "stderr: \(whoami.err)")
        #expect(whoami.out.hasPrefix("Megan Bowen <megan@contoso.example>\n"))

        let logout = try account.run(["logout"], environment: environment)
        #expect(logout.status == 0, "stderr: \(logout.err)")
        #expect(logout.err.contains("removed 1 saved sign-in"), "stderr: \(logout.err)")
        #expect(try Self.store(account).list().isEmpty)
        let after = try account.run(["whoami"], environment: environment)
        #expect(after.status == 77)
        #expect(after.err.contains("graph-ics login"))
    }

    @Test("a declined sign-in exits 77 and saves nothing")
    func loginDeclined() throws {
        let account = try Self.account()
        account.standIn.deviceCodeInterval = 1
        account.standIn.deviceCodeScript = [.authorizationDeclined]
        let result = try account.run(["login"], environment: account.baseEnvironment)
        #expect(result.status == 77, "stderr: \(result.err)")
        #expect(result.errLines.last?.hasPrefix("error: The sign-in request was declined;") == true, "\(result.err)")
        #expect(!result.err.contains("AADSTS"), "one sentence, without the identity platform's details")
        #expect(try Self.store(account).list().isEmpty)
    }

    @Test("an expired access token is renewed silently with the saved refresh token, which is replaced")
    func expiredAccessTokenRecovers() throws {
        let account = try Self.account()
        let environment = try account.savedSignInEnvironment(accessTokenExpired: true)
        let before = try #require(try Self.store(account).list().first)
        let result = try account.run(["whoami"], environment: environment)
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(result.out.hasPrefix("Megan Bowen <megan@contoso.example>\n"))
        #expect(result.stderr.isEmpty, "stderr: \(result.err)")
        let after = try #require(try Self.store(account).list().first)
        #expect(after.refreshToken != nil && after.refreshToken != before.refreshToken)
        #expect(after.accessToken != before.accessToken)
        #expect(after.expiresAt > Date())
    }

    @Test("a revoked saved sign-in exits 77 and tells the user to sign in again")
    func revokedSignIn() throws {
        let account = try Self.account()
        let environment = try account.savedSignInEnvironment(accessTokenExpired: true)
        account.standIn.revokeAllTokens()
        let result = try account.run(["whoami"], environment: environment)
        #expect(result.status == 77, "stderr: \(result.err)")
        #expect(result.stdout.isEmpty)
        #expect(result.errLines.count == 1 && result.err.contains("graph-ics login"), "stderr: \(result.err)")
        #expect(result.err.hasSuffix("has expired or was revoked; run `graph-ics login`.\n"), "\(result.err)")
    }

    @Test("a revoked GRAPH_ICS_ACCESS_TOKEN exits 77 in one sentence that names it")
    func revokedEnvironmentToken() throws {
        let account = try Self.account()
        let environment = account.tokenEnvironment()
        let token = try #require(environment["GRAPH_ICS_ACCESS_TOKEN"])
        account.standIn.revokeAllTokens()
        let result = try account.run(["whoami"], environment: environment)
        #expect(result.status == 77, "stderr: \(result.err)")
        #expect(result.stdout.isEmpty)
        #expect(result.errLines.count == 1, "stderr: \(result.err)")
        #expect(result.err.contains("GRAPH_ICS_ACCESS_TOKEN"), "stderr: \(result.err)")
        #expect(!result.err.contains(token))
    }
}
