import Foundation
import Testing

/// `graph-ics feed add|list|remove|rotate` through the built binary: feeds.json in the configuration
/// folder, 0600, and what each action prints.
@Suite struct FeedCommandTests {
    let account: StandInAccount
    let environment: [String: String]

    init() throws {
        account = try StandInAccount()
        environment = account.baseEnvironment
    }

    func run(_ arguments: [String]) throws -> ProcessResult {
        try account.run(["feed"] + arguments, environment: environment)
    }

    var feedsFile: URL { account.configDirectory.appendingPathComponent("feeds.json") }

    func listed() throws -> [[String: Any]] {
        let result = try run(["list", "--json"])
        #expect(result.status == 0, "stderr: \(result.err)")
        return try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]])
    }

    @Test func addStoresTheFeedPrivatelyAndListShowsItsURL() throws {
        let added = try run(["add", "work"])
        #expect(added.status == 0, "stderr: \(added.err)")
        #expect(added.errLines == ["added feed work (limited, default calendar); its URL: graph-ics feed list"])
        #expect(added.out.isEmpty)
        let mode = try FileManager.default.attributesOfItem(atPath: feedsFile.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let feeds = try listed()
        #expect(feeds.count == 1)
        let feed = try #require(feeds.first)
        #expect(feed["name"] as? String == "work" && feed["detail"] as? String == "limited")
        #expect(feed["showPrivate"] as? Bool == false && feed["calendar"] is NSNull && feed["user"] is NSNull)
        #expect(feed["pastDays"] as? Int == 30 && feed["futureDays"] as? Int == 365)
        let url = try #require(feed["url"] as? String)
        let match = try #require(url.wholeMatch(of: /http:\/\/127\.0\.0\.1:8080\/([0-9a-f]{64})\/work\.ics/))
        #expect(!added.err.contains(String(match.1)), "add prints no secret")
        let table = try run(["list"])
        let lines = table.out.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(
            lines.first?.split(separator: " ", omittingEmptySubsequences: true) == [
                "NAME", "CALENDAR", "DETAIL", "URL",
            ])
        #expect(
            lines.last?.split(separator: " ", omittingEmptySubsequences: true) == [
                "work", "(default)", "limited", Substring(url),
            ])
    }

    @Test func addTakesTheCalendarUserDetailAndWindow() throws {
        let added = try run([
            "add", "team", "--calendar", "Team", "--user", "ann@contoso.example", "--detail", "busy", "--show-private",
            "--past", "7", "--future", "60",
        ])
        #expect(added.status == 0, "stderr: \(added.err)")
        #expect(added.err.contains("added feed team (busy, calendar Team of ann@contoso.example)"))
        let feed = try #require(try listed().first)
        #expect(feed["calendar"] as? String == "Team" && feed["user"] as? String == "ann@contoso.example")
        #expect(feed["detail"] as? String == "busy" && feed["showPrivate"] as? Bool == true)
        #expect(feed["pastDays"] as? Int == 7 && feed["futureDays"] as? Int == 60)
    }

    @Test func rotateGivesANewSecretAndPrintsNone() throws {
        _ = try run(["add", "work"])
        let before = try #require(try listed().first?["url"] as? String)
        let rotated = try run(["rotate", "work"])
        #expect(rotated.status == 0, "stderr: \(rotated.err)")
        #expect(rotated.out.isEmpty)
        let after = try #require(try listed().first?["url"] as? String)
        #expect(after != before)
        let secret = try #require(after.split(separator: "/").dropLast().last)
        #expect(!rotated.err.contains(String(secret)))
    }

    @Test func removeDropsTheFeed() throws {
        _ = try run(["add", "work"])
        _ = try run(["add", "home"])
        let removed = try run(["remove", "work"])
        #expect(removed.status == 0, "stderr: \(removed.err)")
        #expect(try listed().map { $0["name"] as? String } == ["home"])
    }

    @Test func aTakenNameIsRefusedAndTheFileKept() throws {
        _ = try run(["add", "work", "--detail", "full"])
        let again = try run(["add", "work"])
        #expect(again.status == 1)
        #expect(again.err.contains("a feed named 'work' exists already"))
        #expect(try listed().first?["detail"] as? String == "full")
    }

    @Test(arguments: [
        ["add", "../x"], ["add", ".hidden"], ["add", String(repeating: "a", count: 65)], ["add"], ["add", "a", "b"],
        ["list", "--detail", "busy"], ["remove", "x", "--calendar", "Work"], ["add", "x", "--json"], ["frobnicate"],
        [], ["add", "x", "--past", "-1"],
    ])
    func usageErrorsExit64(arguments: [String]) throws {
        let result = try run(arguments)
        #expect(result.status == 64, "\(arguments): \(result.err)")
        #expect(result.err.hasPrefix("error: "))
        #expect(!FileManager.default.fileExists(atPath: feedsFile.path))
    }

    @Test func anUnknownFeedIs66() throws {
        _ = try run(["add", "work"])
        for action in ["remove", "rotate"] {
            let result = try run([action, "home"])
            #expect(result.status == 66)
            #expect(result.errLines == ["error: no feed named 'home' (see 'graph-ics feed list')"])
        }
    }

    @Test func anEmptyListSaysHowToAddOne() throws {
        let result = try run(["list"])
        #expect(result.status == 0)
        #expect(result.out.isEmpty)
        #expect(result.err.contains("graph-ics feed add NAME"))
        #expect(try listed().isEmpty)
    }

    @Test func aCalendarNameIsCheckedWhenSignedInAndAnUnknownOneIs66WithTheList() throws {
        account.standIn.addUser(displayName: "Megan Bowen", mail: "megan@contoso.example", mailboxTimeZone: "UTC")
        account.standIn.addCalendar(name: "Team")
        let signedIn = account.tokenEnvironment()
        let typo = try account.run(["feed", "add", "team", "--calendar", "Taem"], environment: signedIn)
        #expect(typo.status == 66, "stderr: \(typo.err)")
        #expect(typo.errLines.count == 1 && typo.err.contains("no calendar named 'Taem' (there are: "), "\(typo.err)")
        #expect(typo.err.contains("'Team'"), "stderr: \(typo.err)")
        #expect(!FileManager.default.fileExists(atPath: feedsFile.path), "nothing added")
        let right = try account.run(["feed", "add", "team", "--calendar", "team"], environment: signedIn)
        #expect(right.status == 0, "stderr: \(right.err)")
        #expect(!right.err.contains("warning"), "stderr: \(right.err)")
        #expect(try listed().map { $0["calendar"] as? String } == ["team"])
    }

    @Test func withoutASignInTheFeedIsAddedWithAWarningThatTheCalendarWasNotChecked() throws {
        let result = try run(["add", "team", "--calendar", "Taem"])
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(result.err.contains("warning: the calendar 'Taem' was not checked ("), "stderr: \(result.err)")
        #expect(try listed().map { $0["name"] as? String } == ["team"])
    }
}
