import Foundation
import GraphStandIn
import TestSupport
import Testing

@testable import GraphICS

#if canImport(Glibc)
    import Glibc
#endif

/// Refreshes serialised across processes: the account's file lock, held from re-reading the store to
/// writing the renewed tokens. Two `TokenStore` opens of one lock file exclude each other as two processes
/// do (`flock` locks belong to the open file), so two token sources here stand for two graph-ics processes.
@Suite struct TokenRefreshLockTests {
    @Test("the account's lock file is private, next to the account file, and not an account")
    func lockFileIsPrivateAndNotListed() throws {
        let directory = try AuthFixtures.temporaryDirectory("lock")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = TokenStore(directory: directory)
        let account = AuthFixtures.account(expiresAt: Date().addingTimeInterval(3600))
        let previous = umask(0o000)
        let ran = Result {
            try store.withLock(accountKey: account.accountKey) { () throws(AuthError) in try store.save(account) }
        }
        umask(previous)
        try ran.get()
        let lock = store.lockFileURL(forAccountKey: account.accountKey)
        #expect(lock.lastPathComponent == store.fileURL(forAccountKey: account.accountKey).lastPathComponent + ".lock")
        #expect(TokenStoreTests.mode(lock.path) == 0o600)
        #expect(try store.list().map(\.accountKey) == [account.accountKey])
    }

    @Test("a second holder waits for the first; one that waits too long is told who holds the lock")
    func secondHolderWaits() throws {
        let directory = try AuthFixtures.temporaryDirectory("lock")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = TokenStore(directory: directory)
        let key = AuthFixtures.account(expiresAt: Date()).accountKey
        let order = Locked<[String]>([])
        let holding = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        Thread {
            try? store.withLock(accountKey: key) {
                holding.signal()
                Thread.sleep(forTimeInterval: 0.3)
                order.mutate { $0.append("first done") }
            }
            done.signal()
        }.start()
        holding.wait()
        let thrown = #expect(throws: AuthError.self) {
            try store.withLock(accountKey: key, timeout: .milliseconds(50)) { order.mutate { $0.append("early") } }
        }
        #expect(thrown?.code == .storeFailure)
        #expect(thrown?.message.contains("renewing the sign-in for \(key)") == true, "\(thrown?.message ?? "")")
        try store.withLock(accountKey: key) { order.mutate { $0.append("second") } }
        done.wait()
        #expect(order.value == ["first done", "second"])
    }

    @Test("a refresh uses the newest refresh token in the store, not the one in memory another process spent")
    func refreshUsesStoredRefreshToken() throws {
        let directory = try AuthFixtures.temporaryDirectory("lock")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualAuthClock()
        let store = TokenStore(directory: directory)
        // Another process renewed (refresh token one → two) and its new access token is itself near expiry.
        try store.save(
            AuthFixtures.account(
                accessToken: AuthFixtures.accessToken2, refreshToken: AuthFixtures.refreshToken2,
                expiresAt: clock.now.addingTimeInterval(60)))
        let transport = FakeTransport()
        transport.enqueue(AuthFixtures.tokenReply(access: "access-three", refresh: "refresh-three"))
        let source = RefreshingTokenSource(
            account: AuthFixtures.account(expiresAt: clock.now.addingTimeInterval(60)), store: store,
            transport: transport, clock: clock.clock)
        #expect(try source.accessToken() == "access-three")
        #expect(transport.requests.map { $0.formFields["refresh_token"] } == [AuthFixtures.refreshToken2])
        let stored = try #require(try store.load(accountKey: source.currentAccount.accountKey))
        #expect(stored.accessToken == "access-three" && stored.refreshToken == "refresh-three")
    }

    @Test("recording the user's name keeps tokens another process renewed meanwhile")
    func recordUserNameKeepsRenewedTokens() throws {
        let directory = try AuthFixtures.temporaryDirectory("lock")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualAuthClock()
        let store = TokenStore(directory: directory)
        let old = AuthFixtures.account(expiresAt: clock.now.addingTimeInterval(3000))
        try store.save(old)
        let source = RefreshingTokenSource(account: old, store: store, transport: FakeTransport(), clock: clock.clock)
        let renewed = AuthFixtures.account(
            accessToken: AuthFixtures.accessToken2, refreshToken: AuthFixtures.refreshToken2,
            expiresAt: clock.now.addingTimeInterval(3600))
        try store.save(renewed)
        try source.recordUserName("megan@contoso.example")
        let stored = try #require(try store.load(accountKey: old.accountKey))
        #expect(stored.userName == "megan@contoso.example")
        #expect(stored.accessToken == AuthFixtures.accessToken2)
        #expect(stored.refreshToken == AuthFixtures.refreshToken2)
        #expect(try source.accessToken() == AuthFixtures.accessToken2)
    }

    @Test("two token sources renewing one account at once over libcurl: one refresh, one token, a whole file")
    func concurrentSourcesRefreshOnce() throws {
        let standIn = try GraphStandIn()
        defer { standIn.stop() }
        standIn.addUser(displayName: "Ada Lovelace", mail: "ada@contoso.test")
        // Slow enough that, without the lock, both requests would be in flight with one refresh token.
        standIn.tokenEndpointLatency = .milliseconds(300)
        let directory = try AuthFixtures.temporaryDirectory("lock")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clientID = AuthStandInTests.clientID
        let account = AccountTokens(
            authority: standIn.authority, tenant: "common", clientID: clientID,
            accessToken: standIn.issueAccessToken(), expiresAt: Date().addingTimeInterval(60),
            refreshToken: standIn.issueRefreshToken(clientID: clientID),
            scopes: ["offline_access"] + GraphStandIn.defaultDelegatedScopes)
        try TokenStore(directory: directory).save(account)
        let sources = (0..<2).map { _ in
            RefreshingTokenSource(
                account: account, store: TokenStore(directory: directory), transport: CurlTransport(),
                clock: AuthStandInTests.quickClock(Locked([])))
        }
        let tokens = Locked<[Int: Result<String, any Error>]>([:])
        let group = DispatchGroup()
        for (index, source) in sources.enumerated() {
            group.enter()
            Thread {
                let result = Result { try source.accessToken() }
                tokens.mutate { $0[index] = result }
                group.leave()
            }.start()
        }
        group.wait()
        let first = try #require(try tokens.value[0]?.get())
        #expect(try tokens.value[1]?.get() == first)
        #expect(first != account.accessToken)
        let refreshes = standIn.requests.filter { $0.formBody["grant_type"] == "refresh_token" }
        #expect(refreshes.count == 1)
        #expect(sources.map(\.refreshCount).sorted() == [0, 1])
        let stored = try #require(try TokenStore(directory: directory).load(accountKey: account.accountKey))
        #expect(stored.accessToken == first)
        #expect(
            sources.allSatisfy {
                $0.currentAccount.accessToken == stored.accessToken
                    && $0.currentAccount.refreshToken == stored.refreshToken
            })
        #expect(standIn.liveRefreshTokenCount == 1)
        let me = try AuthStandInTests.get("/me", standIn, token: first, transport: CurlTransport())
        #expect(me.status == 200)
    }
}
