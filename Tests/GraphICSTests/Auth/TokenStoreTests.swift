import Foundation
import Testing

@testable import GraphICS

#if canImport(Glibc)
    import Glibc
#endif

/// Serialized: one test changes the process umask for a moment.
@Suite(.serialized) struct TokenStoreTests {
    static func mode(_ path: String) -> mode_t {
        var info = stat()
        guard stat(path, &info) == 0 else { return 0o7777 }
        return info.st_mode & 0o7777
    }

    static func sample(_ access: String = AuthFixtures.accessToken, _ refresh: String = AuthFixtures.refreshToken)
        -> AccountTokens
    {
        AuthFixtures.account(
            accessToken: access, refreshToken: refresh, expiresAt: Date(timeIntervalSince1970: 1_750_003_600))
    }

    @Test("directory 0700 and file 0600 whatever the umask, missing parents created private")
    func permissionsIgnoreUmask() throws {
        let root = try AuthFixtures.temporaryDirectory("store")
        defer { try? FileManager.default.removeItem(at: root) }
        for (index, mask) in [mode_t(0o000), 0o077, 0o022, 0o277].enumerated() {
            let directory = root.appendingPathComponent("home\(index)/.config/graph-ics", isDirectory: true)
            let store = TokenStore(directory: directory)
            let previous = umask(mask)
            let saved = Result { try store.save(Self.sample()) }
            umask(previous)
            try saved.get()
            #expect(Self.mode(directory.path) == 0o700, "umask \(String(mask, radix: 8))")
            #expect(Self.mode(directory.deletingLastPathComponent().path) == 0o700)
            let file = store.fileURL(forAccountKey: Self.sample().accountKey).path
            #expect(Self.mode(file) == 0o600, "umask \(String(mask, radix: 8))")
        }
    }

    @Test("an existing directory open to others is tightened to 0700, a loose token file to 0600")
    func looseDirectoryAndFileAreTightened() throws {
        let directory = try AuthFixtures.temporaryDirectory("store")
        defer { try? FileManager.default.removeItem(at: directory) }
        chmod(directory.path, 0o755)
        let store = TokenStore(directory: directory)
        try store.save(Self.sample())
        #expect(Self.mode(directory.path) == 0o700)
        let file = store.fileURL(forAccountKey: Self.sample().accountKey).path
        chmod(file, 0o644)
        chmod(directory.path, 0o711)
        #expect(try store.load(accountKey: Self.sample().accountKey) == Self.sample())
        #expect(Self.mode(file) == 0o600)
        #expect(Self.mode(directory.path) == 0o700)
    }

    @Test(
        "a shared (world-writable or sticky) directory is refused and left as it was",
        arguments: [
            mode_t(0o1777), 0o777, 0o1755,
        ])
    func sharedDirectoryIsRefused(mode: mode_t) throws {
        let directory = try AuthFixtures.temporaryDirectory("store")
        defer { try? FileManager.default.removeItem(at: directory) }
        chmod(directory.path, mode)
        let thrown = #expect(throws: AuthError.self) { try TokenStore(directory: directory).save(Self.sample()) }
        #expect(thrown?.code == .insecureConfiguration)
        #expect(thrown?.message.contains("GRAPH_ICS_CONFIG_DIR") == true)
        #expect(Self.mode(directory.path) == mode)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test("save, load, list, delete and deleteAll round-trip accounts")
    func roundTrip() throws {
        let directory = try AuthFixtures.temporaryDirectory("store")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = TokenStore(directory: directory)
        var first = Self.sample()
        first.userName = "ada@contoso.com"
        var second = Self.sample(AuthFixtures.accessToken2, AuthFixtures.refreshToken2)
        second.clientID = "ffffffff-0000-0000-0000-000000000000"
        try store.save(first)
        try store.save(second)
        #expect(try store.load(accountKey: first.accountKey) == first)
        #expect(try store.list() == [first, second].sorted { $0.accountKey < $1.accountKey })
        #expect(
            store.fileURL(forAccountKey: first.accountKey).lastPathComponent
                == "account-login.microsoftonline.com%2Fcontoso.onmicrosoft.com%2F\(AuthFixtures.clientID).json")
        #expect(try store.delete(accountKey: first.accountKey))
        #expect(try store.delete(accountKey: first.accountKey) == false)
        #expect(try store.load(accountKey: first.accountKey) == nil)
        #expect(try store.deleteAll() == 1)
        #expect(try store.list().isEmpty)
    }

    @Test("a store directory that does not exist reads as empty and is not created by reading")
    func missingDirectoryReadsEmpty() throws {
        let root = try AuthFixtures.temporaryDirectory("store")
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = root.appendingPathComponent("absent")
        let store = TokenStore(directory: directory)
        #expect(try store.list().isEmpty)
        #expect(try store.load(accountKey: "x/y/z") == nil)
        #expect(try store.deleteAll() == 0)
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }

    @Test("a write that fails half-way leaves the old file intact and no temporary file behind")
    func failedWriteKeepsOldFile() throws {
        let directory = try AuthFixtures.temporaryDirectory("store")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = TokenStore(directory: directory)
        try store.save(Self.sample())
        var failing = store
        failing.failWritesAfterBytes = 40
        let thrown = try #require(
            #expect(throws: AuthError.self) {
                try failing.save(Self.sample(AuthFixtures.accessToken2, AuthFixtures.refreshToken2))
            })
        #expect(thrown.code == .storeFailure)
        AuthFixtures.expectNoSecrets(in: thrown.description)
        #expect(try store.load(accountKey: Self.sample().accountKey) == Self.sample())
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(names == [store.fileURL(forAccountKey: Self.sample().accountKey).lastPathComponent])
    }

    @Test("replacing a file swaps the whole content: a reader sees the old or the new account, never a mix")
    func replacementIsWholeFile() throws {
        let directory = try AuthFixtures.temporaryDirectory("store")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = TokenStore(directory: directory)
        let old = Self.sample()
        let new = Self.sample(AuthFixtures.accessToken2, AuthFixtures.refreshToken2)
        try store.save(old)
        let path = store.fileURL(forAccountKey: old.accountKey).path
        let before = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
        try store.save(new)
        let after = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
        #expect(before != after, "a new inode was renamed into place")
        #expect(try store.load(accountKey: old.accountKey) == new)
    }

    @Test("a damaged token file is an error naming the file, not its content")
    func damagedFile() throws {
        let directory = try AuthFixtures.temporaryDirectory("store")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = TokenStore(directory: directory)
        let url = store.fileURL(forAccountKey: "a/b/c")
        try Data("{\"accessToken\": \"\(AuthFixtures.accessToken)\"".utf8).write(to: url)
        let thrown = try #require(#expect(throws: AuthError.self) { try store.load(accountKey: "a/b/c") })
        #expect(thrown.code == .storeFailure)
        #expect(thrown.message.contains(url.lastPathComponent))
        AuthFixtures.expectNoSecrets(in: thrown.description)
        #expect(try store.deleteAll() == 1)
    }

    @Test("a file where the store directory should be is a clear error")
    func storePathIsAFile() throws {
        let root = try AuthFixtures.temporaryDirectory("store")
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("graph-ics")
        try Data().write(to: file)
        let thrown = #expect(throws: AuthError.self) { try TokenStore(directory: file).save(Self.sample()) }
        #expect(thrown?.code == .storeFailure)
        #expect(thrown?.message.contains("not a directory") == true)
    }

    @Test("the stored JSON holds the tokens only in the file, whose mode is 0600")
    func fileContentIsTheAccount() throws {
        let directory = try AuthFixtures.temporaryDirectory("store")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = TokenStore(directory: directory)
        try store.save(Self.sample())
        let url = store.fileURL(forAccountKey: Self.sample().accountKey)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        #expect(object["refreshToken"] as? String == AuthFixtures.refreshToken)
        #expect(object["clientId"] as? String == AuthFixtures.clientID)
        #expect(object["expiresAt"] as? String == "2025-06-15T16:06:40Z")
    }
}
