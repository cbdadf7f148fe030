import Foundation
import ICalBridge
import TestSupport
import Testing

@testable import GraphICSServe

@Suite struct FeedStoreTests {
    private struct Refused: Error {}

    @Test func noFileIsAnEmptyConfiguration() throws {
        let folder = try FeedTestDirectory()
        let store = FeedStore(directory: folder.url.appendingPathComponent("config"))
        #expect(try store.load() == FeedConfiguration())
        #expect(store.stamp() == nil)
        #expect(!FileManager.default.fileExists(atPath: folder.path("config")), "reading creates nothing")
    }

    @Test func anUpdateWritesThePrivateFileTheNextLoadReads() throws {
        let folder = try FeedTestDirectory()
        let store = FeedStore(directory: folder.url.appendingPathComponent("config/graph-ics"))
        let previous = umask(0)
        defer { umask(previous) }
        let team = FeedDefinition(
            name: "team", calendar: "Team", user: "ada@contoso.example",
            selection: EventSelection(detail: .busy, showPrivate: false, excludeDeclined: true, categories: ["Work"]),
            pastDays: 7, futureDays: 90)
        let added = try store.update { configuration in
            configuration.feeds.append(team)
            return configuration.feeds.count
        }
        #expect(added == 1)
        #expect(try store.load() == FeedConfiguration(feeds: [team]))
        #expect(folder.mode("config/graph-ics/feeds.json") == 0o600)
        #expect(folder.mode("config/graph-ics") == 0o700 && folder.mode("config") == 0o700)
        #expect(folder.mode("config/graph-ics/feeds.json.lock") == 0o600)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path("config/graph-ics")).sorted()
        #expect(names == ["feeds.json", "feeds.json.lock"], "no temporary file is left")
    }

    @Test func aFolderOpenToOthersIsMadePrivate() throws {
        let folder = try FeedTestDirectory()
        try FileManager.default.createDirectory(atPath: folder.path("config"), withIntermediateDirectories: false)
        chmod(folder.path("config"), 0o755)
        let store = FeedStore(directory: folder.url.appendingPathComponent("config"))
        try store.update { $0.feeds.append(FeedDefinition(name: "me")) }
        #expect(folder.mode("config") == 0o700)
    }

    @Test func twoUpdatesAtOnceBothLand() throws {
        let folder = try FeedTestDirectory()
        let store = FeedStore(directory: folder.url)
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 24) { index in
            do {
                try store.update { $0.feeds.append(FeedDefinition(name: "feed-\(index)")) }
            } catch {
                failures.mutate { $0 += 1 }
            }
        }
        #expect(failures.value == 0)
        let names = try store.load().feeds.map(\.name)
        #expect(Set(names) == Set((0..<24).map { "feed-\($0)" }) && names.count == 24)
    }

    @Test func aChangeThatThrowsWritesNothing() throws {
        let folder = try FeedTestDirectory()
        let store = FeedStore(directory: folder.url)
        try store.update { $0.feeds.append(FeedDefinition(name: "kept")) }
        let stamp = store.stamp()
        #expect(throws: Refused.self) {
            try store.update { configuration in
                configuration.feeds.removeAll()
                throw Refused()
            }
        }
        #expect(try store.load().feeds.map(\.name) == ["kept"] && store.stamp() == stamp)
    }

    @Test func aChangeMakingTwoFeedsOfOneNameIsRefused() throws {
        let folder = try FeedTestDirectory()
        let store = FeedStore(directory: folder.url)
        try store.update { $0.feeds.append(FeedDefinition(name: "team")) }
        let error = #expect(throws: FeedStoreError.self) {
            try store.update { $0.feeds.append(FeedDefinition(name: "team")) }
        }
        #expect(error?.code == .invalid)
        #expect(error?.message.contains("feeds[1].name") == true, "\(String(describing: error))")
        #expect(try store.load().feeds.count == 1)
    }

    @Test func theStampChangesWithEveryWriteAndOnlyThen() throws {
        let folder = try FeedTestDirectory()
        let store = FeedStore(directory: folder.url)
        try store.update { $0.feeds.append(FeedDefinition(name: "a")) }
        let first = store.stamp()
        #expect(first != nil && store.stamp() == first)
        try store.update { _ in }
        #expect(store.stamp() == first, "a change that changes nothing writes nothing")
        try store.update { $0.feeds[0].secret = FeedSecret.generate() }
        #expect(store.stamp() != first, "a rename gives the file a new inode even at the same size and time")
    }

    @Test(arguments: [
        ("{\n  \"feeds\": [\n    {\"name\": \"team\", \"secret\": x}\n  ]\n}", "line 3, column 32"),
        (#"{"feeds": [{"name": "team"}]}"#, "feeds[0].secret is missing"),
        (#"{"feeds": [{"name": "team", "secret": 7}]}"#, "feeds[0].secret is not a string"),
        (#"{"feeds": {"name": "team"}}"#, "feeds is not a list"),
        (#"{"feeds": [{"name": "a b", "secret": "00"}]}"#, "feeds[0].name 'a b' is not a feed name"),
        (#"{"feeds": [{"name": "team", "secret": "00"}]}"#, "feeds[0].secret is not 64 lowercase hex digits"),
        (#"{"feeds": [{"name": "t", "secret": "SECRET", "pastDays": -1}]}"#, "feeds[0].pastDays is -1"),
        (#"{"feeds": [{"name": "t", "secret": "SECRET", "selection": {"detail": "some"}}]}"#, "feeds[0].selection"),
        ("", "not JSON"),
    ])
    func aDamagedFileIsAnErrorNamingItAndWhere(text: String, expected: String) throws {
        let folder = try FeedTestDirectory()
        let store = FeedStore(directory: folder.url)
        let secret = String(repeating: "ab", count: 32)
        try Data(text.replacingOccurrences(of: "SECRET", with: "\(secret)").utf8).write(to: store.fileURL)
        let error = #expect(throws: FeedStoreError.self) { try store.load() }
        #expect(error?.code == .damaged)
        let message = error?.message ?? ""
        #expect(message.hasPrefix(store.fileURL.path + " is damaged: ") && message.contains(expected), "\(message)")
        #expect(!message.contains("\n"))
        #expect(throws: FeedStoreError.self) { try store.update { _ in } }
    }

    @Test func aFileWrittenByHandGetsTheDefaultsOfWhatItLeavesOut() throws {
        let folder = try FeedTestDirectory()
        let store = FeedStore(directory: folder.url)
        let secret = FeedSecret.generate()
        try Data(#"{"feeds": [{"name": "me", "secret": "\#(secret)"}]}"#.utf8).write(to: store.fileURL)
        let feed = try #require(try store.load().feeds.first)
        #expect(feed == FeedDefinition(name: "me", secret: secret))
        #expect(feed.selection == EventSelection(detail: .limited, showPrivate: false))
        #expect(feed.pastDays == 30 && feed.futureDays == 365 && feed.calendar == nil && feed.user == nil)
    }

    @Test func aFileReadableByOthersIsMadePrivateWhenRead() throws {
        let folder = try FeedTestDirectory()
        let store = FeedStore(directory: folder.url)
        try store.update { $0.feeds.append(FeedDefinition(name: "me")) }
        chmod(store.fileURL.path, 0o644)
        _ = try store.load()
        #expect(folder.mode("feeds.json") == 0o600)
    }

    @Test func aFeedsURLIsTheBaseTheSecretAndTheName() {
        let feed = FeedDefinition(name: "team", secret: String(repeating: "0f", count: 32))
        #expect(
            FeedConfiguration(feeds: [feed]).url(of: feed)
                == "http://127.0.0.1:8080/\(feed.secret)/team.ics")
        #expect(
            FeedConfiguration(baseURL: "https://cal.example.org/feeds/", feeds: [feed]).url(of: feed)
                == "https://cal.example.org/feeds/\(feed.secret)/team.ics")
    }

    @Test(arguments: [
        ("team", true), ("Team-2026_a.b", true), ("0", true), (String(repeating: "x", count: 64), true),
        ("", false), (".hidden", false), ("-x", false), ("..", false), ("a/b", false), ("a b", false),
        ("caf\u{e9}", false), (String(repeating: "x", count: 65), false), ("a%2F", false),
    ])
    func feedNames(name: String, valid: Bool) {
        #expect(FeedDefinition.isValidName(name) == valid)
    }

    @Test func aWindowLongerThanGraphAnswersIsRefused() {
        #expect(FeedDefinition(name: "a", pastDays: 30, futureDays: 1794).problem() == nil)
        #expect(FeedDefinition(name: "a", pastDays: 30, futureDays: 1795).problem()?.key == "futureDays")
        #expect(FeedDefinition(name: "a", pastDays: -1).problem()?.key == "pastDays")
    }
}
