import Foundation
import GraphICS
import GraphStandIn
import Testing

/// Several saved sign-ins: `--account`, `graph-ics accounts` (and `accounts default`), `logout --all`,
/// `login --name`, against the stand-in with two users in one temporary configuration folder.
@Suite struct AccountsCommandTests {
    static let megan = "megan@contoso.onmicrosoft.example"
    static let alex = "alex@contoso.onmicrosoft.example"

    /// A stand-in with Megan (mailbox in Berlin) and Alex (in New York), no sign-in saved yet.
    static func twoUsers() throws -> StandInAccount {
        let account = try StandInAccount()
        account.standIn.addUser(
            displayName: "Megan Bowen", mail: "megan@contoso.example", userPrincipalName: megan,
            mailboxTimeZone: "W. Europe Standard Time")
        account.standIn.addUser(
            displayName: "Alex Wilber", mail: "alex@contoso.example", userPrincipalName: alex,
            mailboxTimeZone: "Eastern Standard Time")
        return account
    }

    /// Saves a sign-in for `user` as `graph-ics login` does (its key names the user).
    static func save(_ user: String, name: String? = nil, in account: StandInAccount, expired: Bool = false) throws {
        var tokens = AccountTokens(
            authority: account.standIn.authority, tenant: "common", clientID: account.clientID,
            accessToken: account.standIn.issueAccessToken(user: user),
            expiresAt: Date().addingTimeInterval(expired ? -60 : 3600),
            refreshToken: account.standIn.issueRefreshToken(user: user, clientID: account.clientID),
            scopes: ["offline_access", "User.Read", "MailboxSettings.Read", "Calendars.ReadWrite"], userName: user)
        tokens.name = name
        tokens.keyUser = user
        try TokenStore(directory: account.configDirectory).save(tokens)
    }

    /// Saves a sign-in of `user` named `name` made in another tenant (`contoso.example`) than the tests' logins.
    static func saveInOtherTenant(_ user: String, name: String, in account: StandInAccount) throws {
        var tokens = AccountTokens(
            authority: account.standIn.authority, tenant: "contoso.example", clientID: account.clientID,
            accessToken: "a", expiresAt: Date().addingTimeInterval(3600), refreshToken: nil, scopes: [],
            userName: user)
        tokens.name = name
        tokens.keyUser = user
        try TokenStore(directory: account.configDirectory).save(tokens)
    }

    /// Waits until `logout` asks which sign-in to remove (on standard error, a pipe here).
    static func waitForQuestion(_ run: PseudoTerminalRun) {
        let deadline = Date().addingTimeInterval(defaultTimeout)
        while !run.errorText.contains("Remove which?"), Date() < deadline { usleep(20_000) }
    }

    /// ``twoUsers()``, with the device-code sign-in signing in `user` at once.
    static func signingIn(_ user: String) throws -> StandInAccount {
        let account = try twoUsers()
        account.standIn.deviceCodeInterval = 1
        account.standIn.signInUser = user
        return account
    }

    static func twoSignIns() throws -> StandInAccount {
        let account = try twoUsers()
        try save(megan, name: "work", in: account)
        try save(alex, in: account)
        return account
    }

    @Test("with two sign-ins and no default, whoami says which there are and points at --account")
    func twoSignInsNeedAChoice() throws {
        let account = try Self.twoSignIns()
        let result = try account.run(["whoami"], environment: account.baseEnvironment)
        #expect(result.status == 77, "stderr: \(result.err)")
        #expect(result.errLines.count == 1, "stderr: \(result.err)")
        #expect(result.err.contains("2 saved sign-ins ('\(Self.alex)', 'work')"), "stderr: \(result.err)")
        #expect(result.err.contains("--account NAME") && result.err.contains("graph-ics accounts default"))
        #expect(account.standIn.operations.isEmpty)
    }

    @Test("--account takes a sign-in's name or its user, ignoring case; an unknown one lists those saved")
    func accountChoosesTheSignIn() throws {
        let account = try Self.twoSignIns()
        let alex = try account.run(
            ["whoami", "--account", "ALEX@contoso.onmicrosoft.example"], environment: account.baseEnvironment)
        #expect(alex.status == 0, "stderr: \(alex.err)")
        #expect(alex.out.hasPrefix("Alex Wilber <alex@contoso.example>\n"), "stdout: \(alex.out)")
        let work = try account.run(["whoami", "--account", "work"], environment: account.baseEnvironment)
        #expect(work.status == 0, "stderr: \(work.err)")
        #expect(work.out.hasPrefix("Megan Bowen <megan@contoso.example>\n"), "stdout: \(work.out)")

        let unknown = try account.run(["whoami", "--account", "home"], environment: account.baseEnvironment)
        #expect(unknown.status == 77)
        #expect(
            unknown.errLines == [
                "error: no saved sign-in is named 'home' (there are: '\(Self.alex)', 'work'); see `graph-ics accounts`."
            ])
    }

    @Test("accounts lists both; 'accounts default' writes defaults.account, which whoami then uses and accounts marks")
    func defaultAccount() throws {
        let account = try Self.twoSignIns()
        let environment = account.baseEnvironment
        let before = try account.run(["accounts"], environment: environment)
        #expect(before.status == 0, "stderr: \(before.err)")
        let rows = before.out.split(separator: "\n").map(String.init)
        #expect(rows.count == 2, "stdout: \(before.out)")
        #expect(rows.allSatisfy { $0.hasPrefix("  ") && $0.contains("tenant common") }, "stdout: \(before.out)")
        #expect(rows.contains { $0.contains("work (\(Self.megan))") && $0.contains("Calendars.ReadWrite") })
        #expect(rows.allSatisfy { $0.hasSuffix("refresh token not used yet") }, "stdout: \(before.out)")

        let choose = try account.run(["accounts", "default", Self.alex], environment: environment)
        #expect(choose.status == 0, "stderr: \(choose.err)")
        let config = try String(
            contentsOf: account.configDirectory.appendingPathComponent("config"), encoding: .utf8)
        #expect(config == "[defaults]\naccount = \(Self.alex)\n")

        let whoami = try account.run(["whoami"], environment: environment)
        #expect(whoami.status == 0, "stderr: \(whoami.err)")
        #expect(whoami.out.hasPrefix("Alex Wilber <alex@contoso.example>\n"))
        let overridden = try account.run(["whoami", "--account", "work"], environment: environment)
        #expect(overridden.out.hasPrefix("Megan Bowen"), "the command line wins over the config file")

        let after = try account.run(["accounts"], environment: environment)
        let marked = after.out.split(separator: "\n").filter { $0.hasPrefix("* ") }
        #expect(marked.count == 1 && marked[0].contains(Self.alex), "stdout: \(after.out)")

        let json = try account.run(["accounts", "--json"], environment: environment)
        #expect(json.status == 0, "stderr: \(json.err)")
        let objects = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [[String: Any]])
        #expect(objects.count == 2)
        let alex = try #require(objects.first { $0["user"] as? String == Self.alex })
        #expect(alex["default"] as? Bool == true && alex["tenant"] as? String == "common")
        #expect((alex["scopes"] as? [String])?.contains("Calendars.ReadWrite") == true)
        let megan = try #require(objects.first { $0["name"] as? String == "work" })
        #expect(megan["default"] as? Bool == false)
        for saved in try TokenStore(directory: account.configDirectory).list() {
            #expect(!json.out.contains(saved.accessToken) && !after.out.contains(saved.accessToken))
        }

        let missing = try account.run(["accounts", "default", "nobody"], environment: environment)
        #expect(missing.status == 64)
        #expect(missing.err.contains("no saved sign-in is named 'nobody'"), "stderr: \(missing.err)")
    }

    @Test("accounts shows when a refresh token was last used")
    func refreshTokenLastUsed() throws {
        let account = try Self.twoUsers()
        try Self.save(Self.megan, in: account, expired: true)
        let whoami = try account.run(["whoami"], environment: account.baseEnvironment)
        #expect(whoami.status == 0, "stderr: \(whoami.err)")
        let list = try account.run(["accounts"], environment: account.baseEnvironment)
        #expect(list.out.hasPrefix("* \(Self.megan)"), "the only sign-in is the default: \(list.out)")
        #expect(list.out.contains("refresh token last used 20"), "stdout: \(list.out)")
        let saved = try #require(try TokenStore(directory: account.configDirectory).list().first)
        let used = try #require(saved.refreshTokenUsedAt)
        #expect(abs(used.timeIntervalSinceNow) < 120)
    }

    @Test("logout with several sign-ins and no terminal stops; --account removes one, --all the rest")
    func logout() throws {
        let account = try Self.twoSignIns()
        let environment = account.baseEnvironment
        let store = TokenStore(directory: account.configDirectory)
        let ambiguous = try account.run(["logout"], environment: environment)
        #expect(ambiguous.status == 64, "stderr: \(ambiguous.err)")
        #expect(ambiguous.err.contains("--account NAME") && ambiguous.err.contains("--all"), "\(ambiguous.err)")
        #expect(try store.list().count == 2)

        let one = try account.run(["logout", "--account", "work"], environment: environment)
        #expect(one.status == 0, "stderr: \(one.err)")
        #expect(try store.list().map(\.userName) == [Self.alex])

        try Self.save(Self.megan, in: account)
        let all = try account.run(["logout", "--all"], environment: environment)
        #expect(all.status == 0, "stderr: \(all.err)")
        #expect(all.err.contains("removed 2 saved sign-ins"), "stderr: \(all.err)")
        #expect(try store.list().isEmpty)
    }

    @Test("a second login with the same app registration and tenant keeps the first; --name names it")
    func secondLoginKeepsTheFirst() throws {
        let account = try Self.signingIn(Self.megan)
        let standIn = account.standIn
        let first = try account.run(["login"], environment: account.baseEnvironment)
        #expect(first.status == 0, "stderr: \(first.err)")
        standIn.signInUser = Self.alex
        let second = try account.run(["login", "--name", "shared"], environment: account.baseEnvironment)
        #expect(second.status == 0, "stderr: \(second.err)")
        let saved = try TokenStore(directory: account.configDirectory).list()
        #expect(Set(saved.map(\.userName)) == [Self.megan, Self.alex])
        #expect(saved.first { $0.userName == Self.alex }?.name == "shared")

        let renewed = try account.run(["login", "--name", "shared"], environment: account.baseEnvironment)
        #expect(renewed.status == 0, "the same user signs in again under its name: \(renewed.err)")
        standIn.signInUser = Self.megan
        let taken = try account.run(["login", "--name", "shared"], environment: account.baseEnvironment)
        #expect(taken.status == 64, "a name is given to one sign-in only: \(taken.err)")
        #expect(try TokenStore(directory: account.configDirectory).list().count == 2)
        let shared = try account.run(["whoami", "--account", "shared"], environment: account.baseEnvironment)
        #expect(shared.out.hasPrefix("Alex Wilber"), "stdout: \(shared.out) stderr: \(shared.err)")
    }

    // MARK: Newcomer fixes (issue 30)

    @Test("logout of the default sign-in unsets defaults.account, so the other one is used at once")
    func logoutUnsetsTheDefault() throws {
        let account = try Self.twoSignIns()
        let environment = account.baseEnvironment
        let choose = try account.run(["accounts", "default", "work"], environment: environment)
        #expect(choose.status == 0, "stderr: \(choose.err)")
        let logout = try account.run(["logout", "--account", "work"], environment: environment)
        #expect(logout.status == 0, "stderr: \(logout.err)")
        #expect(logout.err.contains("defaults.account named 'work'; it is unset now"), "stderr: \(logout.err)")
        let config = try String(contentsOf: account.configDirectory.appendingPathComponent("config"), encoding: .utf8)
        #expect(!config.contains("account"), "config: \(config)")
        let whoami = try account.run(["whoami"], environment: environment)
        #expect(whoami.status == 0, "the remaining sign-in is used: \(whoami.err)")
        #expect(whoami.out.hasPrefix("Alex Wilber"), "stdout: \(whoami.out)")
    }

    @Test("logout of another sign-in leaves defaults.account alone")
    func logoutKeepsAnotherDefault() throws {
        let account = try Self.twoSignIns()
        let environment = account.baseEnvironment
        _ = try account.run(["accounts", "default", "work"], environment: environment)
        let logout = try account.run(["logout", "--account", Self.alex], environment: environment)
        #expect(logout.status == 0, "stderr: \(logout.err)")
        #expect(!logout.err.contains("defaults.account"), "stderr: \(logout.err)")
        let config = try String(contentsOf: account.configDirectory.appendingPathComponent("config"), encoding: .utf8)
        #expect(config == "[defaults]\naccount = work\n")
    }

    @Test("a second --name for a user already signed in under a name is refused with 64, naming that name")
    func secondNameForTheSameUserIsRefused() throws {
        let account = try Self.signingIn(Self.alex)
        let first = try account.run(["login", "--name", "shared"], environment: account.baseEnvironment)
        #expect(first.status == 0, "stderr: \(first.err)")
        let second = try account.run(["login", "--name", "mine"], environment: account.baseEnvironment)
        #expect(second.status == 64, "stderr: \(second.err)")
        #expect(second.errLines.last?.contains("already signed in as 'shared'") == true, "stderr: \(second.err)")
        let plain = try account.run(["login"], environment: account.baseEnvironment)
        #expect(plain.status == 0, "stderr: \(plain.err)")
        let saved = try TokenStore(directory: account.configDirectory).list()
        #expect(saved.map(\.name) == ["shared"], "signing in again without --name keeps the name")
        let shared = try account.run(["whoami", "--account", "shared"], environment: account.baseEnvironment)
        #expect(shared.status == 0 && shared.out.hasPrefix("Alex Wilber"), "stderr: \(shared.err)")
    }

    @Test("login refuses a name another tenant's sign-in has before the browser step")
    func nameClashIsFoundBeforeTheBrowser() throws {
        let account = try Self.twoUsers()
        account.standIn.deviceCodeInterval = 1
        try Self.saveInOtherTenant(Self.megan, name: "work", in: account)
        let login = try account.run(["login", "--name", "work"], environment: account.baseEnvironment)
        #expect(login.status == 64, "stderr: \(login.err)")
        #expect(login.err.contains("is already named 'work'"), "stderr: \(login.err)")
        #expect(!login.err.contains("devicelogin"), "no sign-in was started: \(login.err)")
        #expect(account.standIn.devicePollTimes.isEmpty)
    }

    @Test("login refuses a configuration folder it cannot create before the browser step (73)")
    func unwritableConfigFolderIsFoundBeforeTheBrowser() throws {
        let account = try Self.twoUsers()
        account.standIn.deviceCodeInterval = 1
        let file = account.folder.appendingPathComponent("not-a-folder")
        try Data("x".utf8).write(to: file)
        var environment = account.baseEnvironment
        environment["GRAPH_ICS_CONFIG_DIR"] = file.appendingPathComponent("graph-ics").path
        let login = try account.run(["login"], environment: environment)
        #expect(login.status == 73, "stderr: \(login.err)")
        #expect(login.errLines.count == 1 && login.err.contains("Nothing was signed in"), "stderr: \(login.err)")
        #expect(!login.err.contains("devicelogin"), "no sign-in was started: \(login.err)")
        #expect(account.standIn.devicePollTimes.isEmpty)
    }

    @Test("with two sign-ins for one user, --account UPN lists their names, not their keys")
    func ambiguousUserListsNames() throws {
        let account = try Self.twoUsers()
        try Self.save(Self.megan, name: "work", in: account)
        try Self.saveInOtherTenant(Self.megan, name: "home", in: account)
        let result = try account.run(["whoami", "--account", Self.megan], environment: account.baseEnvironment)
        #expect(result.status == 77, "stderr: \(result.err)")
        #expect(result.err.contains("2 saved sign-ins answer to '\(Self.megan)'"), "stderr: \(result.err)")
        #expect(result.err.contains("'home'") && result.err.contains("'work'"), "stderr: \(result.err)")
        #expect(!result.err.contains(account.clientID), "no account keys: \(result.err)")
    }

    @Test("plain logout with two sign-ins asks which on a terminal, and removes the one chosen")
    func logoutAsksOnATerminal() throws {
        let account = try Self.twoSignIns()
        let run = try PseudoTerminalRun(["logout"], environment: account.baseEnvironment)
        Self.waitForQuestion(run)
        #expect(run.errorText.contains("  2  work (\(Self.megan)), tenant common"), "stderr: \(run.errorText)")
        run.type("work\n")
        let result = try run.finish()
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(result.err.contains("removed 1 saved sign-in"), "stderr: \(result.err)")
        #expect(try TokenStore(directory: account.configDirectory).list().map(\.userName) == [Self.alex])
    }

    @Test("plain logout on a terminal removes nothing when the answer is empty")
    func logoutOnATerminalKeepsThemOnEnter() throws {
        let account = try Self.twoSignIns()
        let run = try PseudoTerminalRun(["logout"], environment: account.baseEnvironment)
        Self.waitForQuestion(run)
        run.type("\n")
        let result = try run.finish()
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(result.err.contains("nothing removed"), "stderr: \(result.err)")
        #expect(try TokenStore(directory: account.configDirectory).list().count == 2)
    }

    @Test("accounts --json is written as every --json: keys sorted, two-space indent, absent values null")
    func accountsJSONShape() throws {
        let account = try Self.twoSignIns()
        let json = try account.run(["accounts", "--json"], environment: account.baseEnvironment)
        #expect(json.status == 0, "stderr: \(json.err)")
        #expect(json.out.hasPrefix("[\n  {\n    \"authority\": "), "stdout: \(json.out)")
        #expect(json.out.contains("\"name\": null") && json.out.contains("\"refreshTokenLastUsed\": null"))
        #expect(!json.out.contains("\" : "), "stdout: \(json.out)")
        let objects = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [[String: Any]])
        #expect(objects.allSatisfy { $0.count == 9 }, "every key in every object: \(json.out)")
    }
}
