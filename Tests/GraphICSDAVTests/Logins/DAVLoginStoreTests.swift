import Foundation
import TestSupport
import Testing

@testable import GraphICSDAV

@Suite struct DAVLoginStoreTests {
    let folder: TemporaryDirectory
    let store: DAVLoginStore

    init() throws {
        folder = try TemporaryDirectory()
        store = DAVLoginStore(path: DAVLoginStore.path(configDirectory: folder.file("config")))
    }

    static func login(_ user: String, password: String = "PASSWORD", account: String = "work") -> DAVLogin {
        DAVLogin(
            user: user, account: account, mailbox: "alex@contoso.example",
            calendars: [DAVLoginCalendar(id: "AAMk=", name: "Team")], readOnly: true, invitations: .send,
            pastDays: 7, futureDays: 60, passwordHash: DAVPassword.hash(password),
            created: Date(timeIntervalSince1970: 1_790_000_000))
    }

    func mode(_ path: String) throws -> Int? {
        try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
    }

    @Test func theFileIsConfigDavJSON() {
        #expect(
            DAVLoginStore.path(configDirectory: "/home/a/.config/graph-ics") == "/home/a/.config/graph-ics/dav.json")
    }

    @Test func noFileIsNoLogins() throws {
        #expect(try store.load().isEmpty)
    }

    @Test func savedLoginsComeBackFromA0600FileInA0700FolderWithoutThePassword() throws {
        let logins = [Self.login("phone", password: "SECRETPHONE"), Self.login("me@contoso.example")]
        let previous = umask(0o022)
        defer { umask(previous) }
        try store.save(logins)
        // Before any load, which would make a file open to others private.
        #expect(try mode(store.path) == 0o600)
        #expect(try mode(folder.file("config")) == 0o700)
        #expect(try store.load() == logins)
        let text = try String(contentsOfFile: store.path, encoding: .utf8)
        #expect(!text.contains("SECRETPHONE"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["version"] as? Int == 1)
        let stored = try #require((object["logins"] as? [[String: Any]])?.first)
        #expect(stored["user"] as? String == "phone" && stored["account"] as? String == "work")
        #expect(stored["passwordHash"] as? String == DAVPassword.hash("SECRETPHONE"))
        #expect(stored["created"] as? String == "2026-09-21T14:13:20Z")
        #expect(stored["invitations"] as? String == "send" && stored["readOnly"] as? Bool == true)
        #expect(try folder.names() == ["config"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.file("config")) == ["dav.json"])
    }

    @Test func updateChangesUnderTheLockAndWritesNothingWhenNothingChanged() throws {
        try store.update { $0.append(Self.login("phone")) }
        let before = try FileManager.default.attributesOfItem(atPath: store.path)[.systemFileNumber] as? Int
        let count = try store.update { $0.count }
        #expect(count == 1)
        #expect(try FileManager.default.attributesOfItem(atPath: store.path)[.systemFileNumber] as? Int == before)
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try store.update { logins in
                logins.removeAll(); throw Refused()
            }
        }
        #expect(try store.load().map(\.user) == ["phone"])
    }

    @Test(arguments: [
        ("{", "not JSON"),
        (#"{"version": 1}"#, "logins is missing"),
        (#"{"version": 2, "logins": []}"#, "written by a newer graph-ics (format 2)"),
        (#"{"version": 1, "logins": [{"user": "a"}]}"#, "logins[0].account is missing"),
    ])
    func aDamagedFileIsRefusedNamingItsFault(text: String, fault: String) throws {
        try FileManager.default.createDirectory(atPath: folder.file("config"), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: store.path))
        do {
            _ = try store.load()
            Issue.record("loaded \(text)")
        } catch {
            #expect(error.code == .damaged)
            #expect(error.message.contains(store.path) && error.message.contains(fault), "\(error.message)")
        }
    }

    @Test func aBadLoginOrTwoOfOneNameAreDamage() throws {
        var bad = Self.login("phone")
        bad.user = "a:b"
        try store.save([bad])
        #expect(throws: DAVLoginError.self) { try store.load() }
        try store.save([Self.login("phone"), Self.login("phone")])
        do {
            _ = try store.load()
            Issue.record("loaded two logins of one name")
        } catch {
            #expect(error.message.contains("a second login 'phone'"), "\(error.message)")
        }
    }

    @Test func aFileOpenToOthersIsMadePrivateWhenRead() throws {
        try store.save([Self.login("phone")])
        chmod(store.path, 0o644)
        #expect(try store.load().count == 1)
        #expect(try mode(store.path) == 0o600)
    }

    @Test func userNamesAreLettersDigitsDotUnderscoreDashAndAtUpTo64() {
        for good in ["phone", "me@contoso.example", "a.b_c-d", String(repeating: "x", count: 64), "A1"] {
            #expect(DAVLogin.isValidUser(good), "\(good)")
        }
        for bad in ["", "a:b", "a b", "a/b", "é", String(repeating: "x", count: 65), "a\u{0}", "../x"] {
            #expect(!DAVLogin.isValidUser(bad), "\(bad)")
        }
    }
}
