import Foundation
import GraphICS
import Testing

/// `graph-ics dav add|list|remove|rotate` through the built binary: dav.json in the configuration folder
/// (0600, no password in it), what each action prints, and every exit status.
@Suite struct DavCommandTests {
    let account: StandInAccount
    let environment: [String: String]

    init() throws {
        account = try StandInAccount()
        account.standIn.addUser(displayName: "Alex Example", mail: "alex@contoso.example")
        environment = try account.savedSignInEnvironment()
    }

    func run(_ arguments: [String], environment: [String: String]? = nil) throws -> ProcessResult {
        try account.run(["dav"] + arguments, environment: environment ?? self.environment)
    }

    var davFile: URL { account.configDirectory.appendingPathComponent("dav.json") }

    func mode(_ path: String) throws -> Int? {
        try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
    }

    func listed() throws -> [[String: Any]] {
        let result = try run(["list", "--json"])
        #expect(result.status == 0, "stderr: \(result.err)")
        return try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]])
    }

    func stored() throws -> [[String: Any]] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: davFile)) as? [String: Any]
        #expect(object?["version"] as? Int == 1)
        return try #require(object?["logins"] as? [[String: Any]])
    }

    /// The `url:`, `user:` and `password:` lines of add and rotate.
    func printed(_ result: ProcessResult) throws -> [String: String] {
        let lines = result.out.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(result.out)")
        var fields: [String: String] = [:]
        for line in lines {
            let parts = line.split(separator: ":", maxSplits: 1)
            fields[String(parts[0])] = parts.count == 2 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        }
        #expect(lines.map { String($0.prefix { $0 != ":" }) } == ["url", "user", "password"])
        return fields
    }

    static func isPassword(_ text: String) -> Bool {
        text.wholeMatch(of: /[A-Z2-7]{26}/) != nil
    }

    @Test func addBindsTheLoginToTheSignInAndShowsThePasswordOnlyThen() throws {
        let added = try run(["add", "phone"])
        #expect(added.status == 0, "stderr: \(added.err)")
        let fields = try printed(added)
        #expect(fields["url"] == "http://127.0.0.1:8080/dav/" && fields["user"] == "phone")
        let password = try #require(fields["password"])
        #expect(Self.isPassword(password), "\(password)")
        #expect(!added.err.contains(password))
        #expect(added.err.contains("added CalDAV login phone for alex@contoso.example"), "\(added.err)")
        #expect(try mode(davFile.path) == 0o600)
        #expect(try mode(account.configDirectory.path) == 0o700)
        let text = try String(contentsOf: davFile, encoding: .utf8)
        #expect(!text.contains(password), "dav.json holds no password")
        let login = try #require(try stored().first)
        #expect(login["passwordHash"] as? String == "sha256:" + SHA256.hexDigest(password.utf8))
        #expect(login["mailbox"] as? String == "alex@contoso.example")
        let boundTo = try #require(login["account"] as? String)
        #expect(boundTo.lowercased() == "alex@contoso.example", "the saved sign-in, by its user")
        let listedLogin = try #require(try listed().first)
        #expect(listedLogin["user"] as? String == "phone" && listedLogin["account"] as? String == boundTo)
        #expect(listedLogin["mailbox"] as? String == "alex@contoso.example" && listedLogin["calendars"] is NSNull)
        #expect(listedLogin["readOnly"] as? Bool == false && listedLogin["invitations"] as? String == "refuse")
        #expect(listedLogin["pastDays"] as? Int == 365 && listedLogin["futureDays"] as? Int == 730)
        #expect(listedLogin["url"] as? String == "http://127.0.0.1:8080/dav/")
        #expect(listedLogin["passwordHash"] == nil && listedLogin["password"] == nil)
        let table = try run(["list"])
        #expect(table.status == 0)
        #expect(!table.out.contains(password) && !table.out.contains("sha256:"))
        let rows = table.out.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        #expect(rows.count == 2)
        #expect(rows.first == ["USER", "ACCOUNT", "CALENDARS", "ACCESS", "INVITATIONS", "URL"])
        #expect(
            rows.last == ["phone", Substring(boundTo), "(all)", "read-write", "refuse", "http://127.0.0.1:8080/dav/"])
        let json = try run(["list", "--json"])
        #expect(!json.out.contains(password) && !json.out.contains("sha256:"))
    }

    @Test func addWithJSONPrintsAnObjectOfURLUserAndPassword() throws {
        let added = try run(["add", "me@contoso.example", "--json"])
        #expect(added.status == 0, "stderr: \(added.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: added.stdout) as? [String: String])
        #expect(Set(object.keys) == ["url", "user", "password"])
        #expect(object["url"] == "http://127.0.0.1:8080/dav/" && object["user"] == "me@contoso.example")
        #expect(Self.isPassword(object["password"] ?? ""))
    }

    @Test func addTakesCalendarsAccessInvitationsAndWindow() throws {
        let team = account.standIn.addCalendar(name: "Team")
        let added = try run([
            "add", "laptop", "--calendar", "team", "--calendar", "Calendar", "--calendar", team, "--read-only",
            "--invitations", "send", "--past", "7", "--future", "60",
        ])
        #expect(added.status == 0, "stderr: \(added.err)")
        let login = try #require(try listed().first)
        let calendars = try #require(login["calendars"] as? [[String: String]])
        #expect(calendars.map { $0["name"] } == ["Team", "Calendar"], "resolved once each, with Graph's names")
        #expect(calendars.first?["id"] == team)
        #expect(login["readOnly"] as? Bool == true && login["invitations"] as? String == "send")
        #expect(login["pastDays"] as? Int == 7 && login["futureDays"] as? Int == 60)
        #expect(try run(["list"]).out.contains("Team,Calendar  read-only  send"))
    }

    @Test func anUnknownCalendarIs66WithTheListAndNothingIsAdded() throws {
        account.standIn.addCalendar(name: "Team")
        let typo = try run(["add", "laptop", "--calendar", "Taem"])
        #expect(typo.status == 66, "stderr: \(typo.err)")
        #expect(typo.err.contains("no calendar named 'Taem' (there are: ") && typo.err.contains("'Team'"))
        #expect(typo.out.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: davFile.path))
    }

    @Test func aTakenNameIs1AndTheLoginKeepsItsPassword() throws {
        _ = try run(["add", "phone"])
        let hash = try #require(try stored().first?["passwordHash"] as? String)
        let again = try run(["add", "phone", "--read-only"])
        #expect(again.status == 1)
        #expect(again.out.isEmpty)
        #expect(again.errLines.count == 1 && again.err.contains("a CalDAV login named 'phone' exists already"))
        #expect(try stored().first?["passwordHash"] as? String == hash)
        #expect(try stored().first?["readOnly"] as? Bool == false)
    }

    @Test func withoutASavedSignInAddIs77NamingLogin() throws {
        let signedOut = try StandInAccount()
        signedOut.standIn.addUser(displayName: "Alex Example", mail: "alex@contoso.example")
        let result = try signedOut.run(["dav", "add", "phone"], environment: signedOut.baseEnvironment)
        #expect(result.status == 77, "stderr: \(result.err)")
        #expect(result.err.contains("graph-ics login"))
        #expect(result.out.isEmpty)
        #expect(
            !FileManager.default.fileExists(atPath: signedOut.configDirectory.appendingPathComponent("dav.json").path))
    }

    @Test func aGivenTokenOrAppOnlyUserIs64() throws {
        var token = environment
        token["GRAPH_ICS_ACCESS_TOKEN"] = account.standIn.issueAccessToken()
        let given = try run(["add", "phone"], environment: token)
        #expect(given.status == 64, "stderr: \(given.err)")
        #expect(given.err.contains("GRAPH_ICS_ACCESS_TOKEN"))
        var appOnly = environment
        appOnly["GRAPH_ICS_CLIENT_SECRET"] = "s3cret"
        let user = try run(["add", "phone", "--user", "alex@contoso.example"], environment: appOnly)
        #expect(user.status == 64, "stderr: \(user.err)")
        #expect(user.err.contains("app-only --user"))
        #expect(!FileManager.default.fileExists(atPath: davFile.path))
    }

    @Test(arguments: [
        ["add", "a b"], ["add", "a:b"], ["add", "a/b"], ["add", String(repeating: "a", count: 65)], ["add"],
        ["add", "a", "b"], ["list", "x"], ["list", "--calendar", "Team"], ["remove", "x", "--read-only"],
        ["rotate", "x", "--past", "3"], ["remove", "x", "--json"], ["add", "x", "--invitations", "maybe"],
        ["add", "x", "--past", "-1"], ["frobnicate"], [],
    ])
    func usageErrorsExit64(arguments: [String]) throws {
        let result = try run(arguments)
        #expect(result.status == 64, "\(arguments): \(result.err)")
        #expect(result.err.hasPrefix("error: "))
        #expect(!FileManager.default.fileExists(atPath: davFile.path))
    }

    @Test func anUnknownLoginIs66() throws {
        _ = try run(["add", "phone"])
        for action in ["remove", "rotate"] {
            let result = try run([action, "tablet"])
            #expect(result.status == 66)
            #expect(result.errLines == ["error: no CalDAV login named 'tablet' (see 'graph-ics dav list')"])
            #expect(result.out.isEmpty)
        }
    }

    @Test func rotateGivesANewPasswordShownOnce() throws {
        let first = try #require(try printed(try run(["add", "phone"]))["password"])
        let rotated = try run(["rotate", "phone"])
        #expect(rotated.status == 0, "stderr: \(rotated.err)")
        let fields = try printed(rotated)
        let second = try #require(fields["password"])
        #expect(fields["user"] == "phone" && fields["url"] == "http://127.0.0.1:8080/dav/")
        #expect(Self.isPassword(second) && second != first)
        #expect(try stored().first?["passwordHash"] as? String == "sha256:" + SHA256.hexDigest(second.utf8))
        let json = try run(["rotate", "phone", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: String])
        #expect(Set(object.keys) == ["url", "user", "password"] && object["password"] != second)
        let text = try String(contentsOf: davFile, encoding: .utf8)
        #expect(![first, second, object["password"] ?? "-"].contains { text.contains($0) })
    }

    @Test func removeDropsTheLogin() throws {
        _ = try run(["add", "phone"])
        _ = try run(["add", "tablet"])
        let removed = try run(["remove", "phone"])
        #expect(removed.status == 0, "stderr: \(removed.err)")
        #expect(try listed().map { $0["user"] as? String } == ["tablet"])
    }

    @Test func anEmptyListSaysHowToAddOne() throws {
        let result = try run(["list"])
        #expect(result.status == 0)
        #expect(result.out.isEmpty)
        #expect(result.err.contains("graph-ics dav add USER"))
        #expect(try listed().isEmpty)
    }

    @Test func theURLFollowsServesBaseURL() throws {
        try FileManager.default.createDirectory(at: account.configDirectory, withIntermediateDirectories: true)
        try Data(#"{"baseURL": "https://cal.example.com/outlook/", "feeds": []}"#.utf8)
            .write(to: account.configDirectory.appendingPathComponent("feeds.json"))
        let added = try run(["add", "phone"])
        #expect(try printed(added)["url"] == "https://cal.example.com/outlook/dav/")
        #expect(try listed().first?["url"] as? String == "https://cal.example.com/outlook/dav/")
    }

    @Test(arguments: ["{", #"{"version": 9, "logins": []}"#])
    func aDavJSONThatCannotBeReadIs74(text: String) throws {
        try FileManager.default.createDirectory(at: account.configDirectory, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: davFile)
        for arguments in [["list"], ["add", "phone"], ["remove", "phone"], ["rotate", "phone"]] {
            let result = try run(arguments)
            #expect(result.status == 74, "\(arguments): \(result.err)")
            #expect(result.err.contains(davFile.path), "\(result.err)")
            #expect(result.out.isEmpty)
        }
        #expect(try String(contentsOf: davFile, encoding: .utf8) == text, "left as it was")
    }

    @Test func aDavJSONThatCannotBeWrittenIs74() throws {
        _ = try run(["add", "phone"])
        let hash = try stored().first?["passwordHash"] as? String
        // A folder where the lock file goes: the change cannot be made (root included).
        let lock = account.configDirectory.appendingPathComponent("dav.json.lock")
        try FileManager.default.removeItem(at: lock)
        try FileManager.default.createDirectory(at: lock, withIntermediateDirectories: false)
        for arguments in [["rotate", "phone"], ["add", "tablet"], ["remove", "phone"]] {
            let result = try run(arguments)
            #expect(result.status == 74, "\(arguments): \(result.err)")
            #expect(result.err.contains("dav.json.lock"), "\(result.err)")
            #expect(result.out.isEmpty, "no password shown for a change that did not happen")
        }
        #expect(try stored().map { $0["passwordHash"] as? String } == [hash])
    }

    @Test func logoutOfAnAccountThatLoginsUseWarnsNamingThem() throws {
        _ = try run(["add", "phone"])
        _ = try run(["add", "tablet"])
        let out = try account.run(["logout"], environment: environment)
        #expect(out.status == 0, "stderr: \(out.err)")
        #expect(out.err.contains("signed out"))
        let warning = try #require(out.errLines.first { $0.hasPrefix("warning: ") })
        #expect(warning.contains("the CalDAV logins 'phone' (sign-in "), "\(warning)")
        #expect(warning.contains("'tablet' (sign-in ") && warning.contains("graph-ics login"), "\(warning)")
        #expect(try listed().count == 2, "the logins stay")
    }

    @Test func logoutWithoutLoginsDoesNotWarn() throws {
        let out = try account.run(["logout"], environment: environment)
        #expect(out.status == 0, "stderr: \(out.err)")
        #expect(!out.err.contains("warning"), "\(out.err)")
    }
}
