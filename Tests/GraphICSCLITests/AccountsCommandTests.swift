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

    @Test("logout with several sign-ins asks which; --account removes one, --all the rest")
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
        let account = try Self.twoUsers()
        let standIn = account.standIn
        standIn.deviceCodeInterval = 1
        standIn.signInUser = Self.megan
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
}
