import Foundation
import GraphICSServe
import Synchronization
import TestSupport
import Testing

@testable import GraphICSDAV

@Suite struct DAVAuthenticatorTests {
    let folder: TemporaryDirectory
    let store: DAVLoginStore
    let clock = Clock()
    let authenticator: DAVAuthenticator
    let password = DAVPassword.generate()

    /// A clock the test moves.
    final class Clock: Sendable {
        let time = Mutex(Date(timeIntervalSince1970: 1_790_000_000))
        func advance(_ seconds: TimeInterval) { time.withLock { $0 += seconds } }
    }

    init() throws {
        folder = try TemporaryDirectory()
        store = DAVLoginStore(path: DAVLoginStore.path(configDirectory: folder.path))
        try store.save([
            DAVLogin(user: "phone", account: "work", passwordHash: DAVPassword.hash(password)),
            DAVLogin(user: "me@contoso.example", account: "work", passwordHash: DAVPassword.hash(password)),
        ])
        let clock = clock
        authenticator = DAVAuthenticator(store: store, now: { clock.time.withLock { $0 } })
    }

    static func basic(_ credentials: String) -> String {
        "Basic " + Data(credentials.utf8).base64EncodedString()
    }

    func request(
        _ authorization: String?, from peer: String = "192.0.2.7:50123", forwardedFor: String? = nil
    ) -> HTTPServerRequest {
        var headers: [(name: String, value: String)] = []
        if let authorization { headers.append(("Authorization", authorization)) }
        if let forwardedFor { headers.append(("X-Forwarded-For", forwardedFor)) }
        return HTTPServerRequest(method: "PROPFIND", path: "/dav/", headers: headers, remoteAddress: peer)
    }

    func authenticate(
        _ user: String, _ password: String, from peer: String = "192.0.2.7:50123", forwardedFor: String? = nil
    ) -> DAVAuthenticator.Outcome {
        authenticator.authenticate(request(Self.basic(user + ":" + password), from: peer, forwardedFor: forwardedFor))
    }

    func isAuthenticated(_ outcome: DAVAuthenticator.Outcome, as user: String) -> Bool {
        if case .authenticated(let login) = outcome { return login.user == user }
        return false
    }

    @Test func theRightPasswordAuthenticatesTheLoginAndAWrongOneIsRefused() {
        #expect(isAuthenticated(authenticate("phone", password), as: "phone"))
        #expect(isAuthenticated(authenticate("me@contoso.example", password), as: "me@contoso.example"))
        #expect(authenticate("phone", password.lowercased()) == .refused)
        #expect(authenticate("phone", "") == .refused)
        #expect(authenticate("Phone", password) == .refused, "names are compared exactly")
        #expect(authenticate("nobody", password) == .refused)
        // The scheme's case does not matter, nor missing padding.
        let encoded = Data("phone:\(password)".utf8).base64EncodedString()
        #expect(isAuthenticated(authenticator.authenticate(request("basic  " + encoded)), as: "phone"))
        let unpadded = encoded.replacingOccurrences(of: "=", with: "")
        #expect(unpadded != encoded)
        #expect(isAuthenticated(authenticator.authenticate(request("Basic " + unpadded)), as: "phone"))
    }

    @Test func noCredentialsOrAnotherSchemeIsMissing() {
        #expect(authenticator.authenticate(request(nil)) == .missing)
        #expect(authenticator.authenticate(request("Bearer eyJ0eXAi")) == .missing)
        #expect(authenticator.authenticate(request("Digest username=\"phone\"")) == .missing)
        #expect(authenticator.authenticate(request("")) == .missing)
    }

    @Test(arguments: [
        "Basic", "Basic ", "Basic !!!!", "Basic " + Data("phone".utf8).base64EncodedString(),
        "Basic " + Data(":x".utf8).base64EncodedString(),
        "Basic " + Data([0xFF, 0xFE, 0x3A, 0x41]).base64EncodedString(),
        "Basic " + String(repeating: "QUFB", count: 400),
    ])
    func malformedBasicCredentialsAreRefused(field: String) {
        #expect(authenticator.authenticate(request(field)) == .refused)
    }

    @Test func aRotatedPasswordIsSeenByTheNextRequestWithoutARestart() throws {
        #expect(isAuthenticated(authenticate("phone", password), as: "phone"))
        let rotated = DAVPassword.generate()
        try store.update { logins in
            logins[0].passwordHash = DAVPassword.hash(rotated)
        }
        #expect(authenticate("phone", password) == .refused)
        #expect(isAuthenticated(authenticate("phone", rotated), as: "phone"))
        try store.update { logins in logins.removeAll { $0.user == "phone" } }
        #expect(authenticate("phone", rotated) == .refused)
        #expect(authenticator.logins().map(\.user) == ["me@contoso.example"])
        try store.update { logins in
            logins.append(DAVLogin(user: "tablet", account: "home", passwordHash: DAVPassword.hash(rotated)))
        }
        #expect(isAuthenticated(authenticate("tablet", rotated), as: "tablet"))
        #expect(authenticator.logins().map(\.user) == ["me@contoso.example", "tablet"])
    }

    @Test func aDamagedFileRefusesEveryoneUntilItIsFixed() throws {
        #expect(isAuthenticated(authenticate("phone", password), as: "phone"))
        try Data("{".utf8).write(to: URL(fileURLWithPath: store.path))
        #expect(authenticate("phone", password) == .refused)
        #expect(authenticator.logins().isEmpty)
        try store.save([DAVLogin(user: "phone", account: "work", passwordHash: DAVPassword.hash(password))])
        #expect(isAuthenticated(authenticate("phone", password), as: "phone"))
    }

    @Test func moreThanTenFailuresInAMinuteThrottleTheNameFromThatAddress() {
        for _ in 0..<10 { #expect(authenticate("phone", "WRONG") == .refused) }
        // The eleventh try is not checked, even with the right password.
        #expect(authenticate("phone", password) == .throttled)
        #expect(authenticate("phone", "WRONG") == .throttled)
        // Another address, another name: not throttled.
        #expect(isAuthenticated(authenticate("phone", password, from: "192.0.2.8:50123"), as: "phone"))
        #expect(isAuthenticated(authenticate("me@contoso.example", password), as: "me@contoso.example"))
        // The port is not part of the address.
        #expect(authenticate("phone", password, from: "192.0.2.7:1") == .throttled)
        clock.advance(59)
        #expect(authenticate("phone", password) == .throttled)
        clock.advance(2)
        #expect(isAuthenticated(authenticate("phone", password), as: "phone"))
    }

    @Test func failuresSpreadOverMoreThanAMinuteDoNotThrottle() {
        for _ in 0..<30 {
            #expect(authenticate("phone", "WRONG") == .refused)
            clock.advance(7)
        }
        #expect(isAuthenticated(authenticate("phone", password), as: "phone"))
    }

    @Test func anUnknownNameCountsAsAFailureToo() {
        for _ in 0..<10 { #expect(authenticate("ghost", password) == .refused) }
        #expect(authenticate("ghost", password) == .throttled)
        for _ in 0..<10 { #expect(authenticator.authenticate(request("Basic !!!!")) == .refused) }
        #expect(authenticator.authenticate(request("Basic !!!!")) == .throttled)
    }

    @Test func behindALoopbackProxyTheLastForwardedHopIsTheAddress() {
        for _ in 0..<10 {
            #expect(authenticate("phone", "WRONG", from: "127.0.0.1:40000", forwardedFor: "203.0.113.9") == .refused)
        }
        // The same client through the proxy, whatever it claims before the proxy's own hop.
        #expect(
            authenticate("phone", password, from: "127.0.0.1:40001", forwardedFor: "10.1.1.1, 203.0.113.9")
                == .throttled)
        #expect(authenticate("phone", password, from: "[::1]:40002", forwardedFor: "203.0.113.9") == .throttled)
        // Another client through the same proxy is not throttled.
        #expect(
            isAuthenticated(
                authenticate("phone", password, from: "127.0.0.1:40003", forwardedFor: "203.0.113.10"), as: "phone"))
        // Without the header the proxy itself is the address, and it has no failures.
        #expect(isAuthenticated(authenticate("phone", password, from: "127.0.0.1:40004"), as: "phone"))
    }

    @Test func aForwardedForFromAPeerThatIsNotLoopbackIsIgnored() {
        for index in 0..<10 {
            #expect(
                authenticate("phone", "WRONG", from: "198.51.100.4:40000", forwardedFor: "203.0.113.\(index)")
                    == .refused)
        }
        // Changing the header does not escape: the peer is the address.
        #expect(
            authenticate("phone", password, from: "198.51.100.4:40000", forwardedFor: "203.0.113.77") == .throttled)
        #expect(authenticate("phone", password, from: "198.51.100.4:40000") == .throttled)
    }

    @Test func theClientAddressDropsThePort() {
        #expect(DAVAuthenticator.host(of: "127.0.0.1:54321") == "127.0.0.1")
        #expect(DAVAuthenticator.host(of: "[::1]:54321") == "::1")
        #expect(DAVAuthenticator.host(of: "2001:db8::1") == "2001:db8::1")
        #expect(DAVAuthenticator.host(of: "203.0.113.9") == "203.0.113.9")
        #expect(DAVAuthenticator.isLoopback("127.0.0.1") && DAVAuthenticator.isLoopback("::1"))
        #expect(!DAVAuthenticator.isLoopback("10.0.0.1") && !DAVAuthenticator.isLoopback("::2"))
    }
}
