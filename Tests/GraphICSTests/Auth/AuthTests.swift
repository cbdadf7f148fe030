import Foundation
import TestSupport
import Testing

@testable import GraphICS

/// A clock for sign-in tests: `sleep` records the duration and moves `now` forward by it.
final class ManualAuthClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    private var slept: [Duration] = []

    init(start: Date = Date(timeIntervalSince1970: 1_750_000_000)) {
        current = start
    }

    var now: Date { lock.withLock { current } }
    var sleeps: [Duration] { lock.withLock { slept } }

    func advance(by seconds: TimeInterval) {
        lock.withLock { current.addTimeInterval(seconds) }
    }

    var clock: AuthClock {
        AuthClock(
            now: { [self] in now },
            sleep: { [self] duration in
                lock.withLock {
                    slept.append(duration)
                    current.addTimeInterval(duration.seconds)
                }
            }
        )
    }
}

/// Shared values for the sign-in suites.
enum AuthFixtures {
    static let clientID = "0a1b2c3d-1111-2222-3333-444455556666"
    static let tenant = "contoso.onmicrosoft.com"
    static let deviceCode = "DAQABAAEAAAD-device-code-do-not-show-7f3k"
    static let accessToken = "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.access-one.sig"
    static let accessToken2 = "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.access-two.sig"
    static let refreshToken = "0.AXoA-refresh-one+with/plus=and=slash"
    static let refreshToken2 = "0.AXoA-refresh-two+rotated/value="
    static let clientSecret = "s3cr3t~Q8Q+client/secret="
    static let allSecrets = [deviceCode, accessToken, accessToken2, refreshToken, refreshToken2, clientSecret]

    static func configuration(
        directory: URL = URL(fileURLWithPath: "/nonexistent/graph-ics-auth-tests"),
        authority: String? = nil,
        graphURL: String = "https://graph.microsoft.com/v1.0"
    ) -> AuthConfiguration {
        AuthConfiguration(
            authority: authority,
            tenant: tenant,
            clientID: clientID,
            graphBaseURL: URL(string: graphURL) ?? URL(fileURLWithPath: "/"),
            configDirectory: directory
        )
    }

    static func oauthError(_ code: String, _ description: String = "AADSTS00000: something.") -> HTTPResponse {
        FakeTransport.json(400, ["error": code, "error_description": description, "error_codes": [70016]])
    }

    static func tokenReply(access: String, refresh: String?, expiresIn: Int = 3600, scope: String? = nil)
        -> HTTPResponse
    {
        var object: [String: Any] = ["token_type": "Bearer", "access_token": access, "expires_in": expiresIn]
        if let refresh { object["refresh_token"] = refresh }
        object["scope"] = scope ?? "Calendars.Read User.Read MailboxSettings.Read"
        return FakeTransport.json(200, object)
    }

    // Computed, not a stored `static let`: LeakSanitizer reports the heap storage of a lazily initialised
    // global `Data` as leaked.
    static var deviceCodeReply: HTTPResponse {
        FakeTransport.json(
            200,
            [
                "device_code": deviceCode,
                "user_code": "ABCD1234",
                "verification_uri": "https://microsoft.com/devicelogin",
                "expires_in": 900,
                "interval": 5,
                "message":
                    "To sign in, use a web browser to open the page https://microsoft.com/devicelogin and enter the code ABCD1234 to authenticate.",
            ]
        )
    }

    /// A fresh, private directory under the system temporary directory.
    static func temporaryDirectory(_ label: String = "auth") throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("graph-ics-\(label)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        // Exactly 0700, even while TokenStoreTests runs with an unusual umask.
        guard chmod(url.path, 0o700) == 0 else { throw CocoaError(.fileWriteNoPermission) }
        return url
    }

    static func account(
        accessToken: String = AuthFixtures.accessToken,
        refreshToken: String? = AuthFixtures.refreshToken,
        expiresAt: Date,
        scopes: [String] = ["Calendars.Read", "User.Read", "MailboxSettings.Read"],
        authority: String = AuthConfiguration.defaultAuthority
    ) -> AccountTokens {
        AccountTokens(
            authority: authority,
            tenant: tenant,
            clientID: clientID,
            accessToken: accessToken,
            expiresAt: expiresAt,
            refreshToken: refreshToken,
            scopes: scopes
        )
    }

    /// Fails the test if any secret used in these suites appears in `text`.
    static func expectNoSecrets(in text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for secret in allSecrets {
            #expect(!text.contains(secret), "secret leaked into: \(text)", sourceLocation: sourceLocation)
        }
    }
}

@Suite struct AuthTests {
    // MARK: Device code

    @Test("device code sign-in polls through pending and slow_down to tokens")
    func deviceCodeFlowSucceedsAfterPendingAndSlowDown() throws {
        let transport = FakeTransport()
        transport.enqueue(AuthFixtures.deviceCodeReply)
        transport.enqueue(AuthFixtures.oauthError("authorization_pending"))
        transport.enqueue(AuthFixtures.oauthError("authorization_pending"))
        transport.enqueue(AuthFixtures.oauthError("slow_down"))
        transport.enqueue(AuthFixtures.tokenReply(access: AuthFixtures.accessToken, refresh: AuthFixtures.refreshToken))
        let clock = ManualAuthClock()
        let start = clock.now
        let signIn = DeviceCodeSignIn(
            configuration: AuthFixtures.configuration(),
            need: .read,
            transport: transport,
            clock: clock.clock
        )
        let prompts = Locked<[DeviceCodePrompt]>([])
        let tokens = try signIn.signIn { prompt in prompts.mutate { $0.append(prompt) } }

        let prompt = try #require(prompts.value.first)
        #expect(prompts.value.count == 1)
        #expect(prompt.userCode == "ABCD1234")
        #expect(prompt.verificationURI == "https://microsoft.com/devicelogin")
        #expect(prompt.message.contains("ABCD1234"))
        #expect(prompt.expiresAt == start.addingTimeInterval(900))
        // interval 5, 5, 5, then slow_down adds 5 seconds (RFC 8628 §3.5).
        #expect(clock.sleeps == [.seconds(5), .seconds(5), .seconds(5), .seconds(10)])

        let requests = transport.requests
        #expect(requests.count == 5)
        let codeRequest = try #require(requests.first)
        #expect(codeRequest.method == "POST")
        #expect(
            codeRequest.url.absoluteString
                == "https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/devicecode")
        #expect(codeRequest.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(codeRequest.formFields["client_id"] == AuthFixtures.clientID)
        #expect(codeRequest.formFields["scope"] == "offline_access User.Read MailboxSettings.Read Calendars.Read")
        for poll in requests.dropFirst() {
            #expect(
                poll.url.absoluteString == "https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/token"
            )
            #expect(poll.formFields["grant_type"] == "urn:ietf:params:oauth:grant-type:device_code")
            #expect(poll.formFields["device_code"] == AuthFixtures.deviceCode)
            #expect(poll.formFields["client_id"] == AuthFixtures.clientID)
        }

        #expect(tokens.accessToken == AuthFixtures.accessToken)
        #expect(tokens.refreshToken == AuthFixtures.refreshToken)
        #expect(tokens.expiresAt == start.addingTimeInterval(25 + 3600))
        #expect(tokens.scopes == ["Calendars.Read", "User.Read", "MailboxSettings.Read"])
        #expect(tokens.accountKey == "login.microsoftonline.com/contoso.onmicrosoft.com/\(AuthFixtures.clientID)")
        AuthFixtures.expectNoSecrets(in: String(describing: tokens))
        AuthFixtures.expectNoSecrets(in: String(reflecting: tokens))
    }

    @Test("write access asks for Calendars.ReadWrite")
    func writeNeedRequestsReadWriteScope() throws {
        let transport = FakeTransport()
        transport.enqueue(AuthFixtures.deviceCodeReply)
        transport.enqueue(AuthFixtures.tokenReply(access: AuthFixtures.accessToken, refresh: AuthFixtures.refreshToken))
        let clock = ManualAuthClock()
        let signIn = DeviceCodeSignIn(
            configuration: AuthFixtures.configuration(), need: .write, transport: transport, clock: clock.clock)
        _ = try signIn.signIn { _ in }
        #expect(
            transport.requests.first?.formFields["scope"]
                == "offline_access User.Read MailboxSettings.Read Calendars.ReadWrite")
    }

    @Test("a declined sign-in stops polling", arguments: ["authorization_declined", "access_denied"])
    func declinedSignInThrowsDeclined(error: String) throws {
        let transport = FakeTransport()
        transport.enqueue(AuthFixtures.deviceCodeReply)
        transport.enqueue(AuthFixtures.oauthError("authorization_pending"))
        transport.enqueue(AuthFixtures.oauthError(error, "AADSTS70000: The user declined."))
        let clock = ManualAuthClock()
        let signIn = DeviceCodeSignIn(
            configuration: AuthFixtures.configuration(), need: .read, transport: transport, clock: clock.clock)
        let thrown = #expect(throws: AuthError.self) { try signIn.signIn { _ in } }
        #expect(thrown?.code == .declined)
        #expect(thrown?.message.contains("graph-ics login") == true)
        #expect(transport.requests.count == 3)
        AuthFixtures.expectNoSecrets(in: String(describing: thrown))
    }

    @Test("expired_token ends the sign-in with deviceCodeExpired")
    func expiredTokenThrowsDeviceCodeExpired() throws {
        let transport = FakeTransport()
        transport.enqueue(AuthFixtures.deviceCodeReply)
        transport.enqueue(AuthFixtures.oauthError("expired_token"))
        let clock = ManualAuthClock()
        let signIn = DeviceCodeSignIn(
            configuration: AuthFixtures.configuration(), need: .read, transport: transport, clock: clock.clock)
        let thrown = #expect(throws: AuthError.self) { try signIn.signIn { _ in } }
        #expect(thrown?.code == .deviceCodeExpired)
    }

    @Test("the sign-in gives up when expires_in has passed, without asking the server")
    func expiresInBoundsThePolling() throws {
        let transport = FakeTransport { _ in AuthFixtures.oauthError("authorization_pending") }
        transport.enqueue(
            FakeTransport.json(
                200,
                [
                    "device_code": AuthFixtures.deviceCode, "user_code": "WXYZ", "verification_uri": "https://x.test",
                    "expires_in": 12, "interval": 5,
                ]))
        let clock = ManualAuthClock()
        let signIn = DeviceCodeSignIn(
            configuration: AuthFixtures.configuration(), need: .read, transport: transport, clock: clock.clock)
        let thrown = #expect(throws: AuthError.self) { try signIn.signIn { _ in } }
        #expect(thrown?.code == .deviceCodeExpired)
        // Polls at 5 s and 10 s; at 15 s the code has expired (12 s) and no request is sent.
        #expect(transport.requests.count == 3)
        #expect(clock.sleeps.count == 3)
    }

    @Test("bad_verification_code is reported as such")
    func badVerificationCode() throws {
        let transport = FakeTransport()
        transport.enqueue(AuthFixtures.deviceCodeReply)
        transport.enqueue(AuthFixtures.oauthError("bad_verification_code"))
        let signIn = DeviceCodeSignIn(
            configuration: AuthFixtures.configuration(), need: .read, transport: transport,
            clock: ManualAuthClock().clock)
        let thrown = #expect(throws: AuthError.self) { try signIn.signIn { _ in } }
        #expect(thrown?.code == .badVerificationCode)
    }

    @Test("other OAuth errors keep the server's code and description, with the device code cut out")
    func otherErrorsCarryServerCodeWithoutSecrets() throws {
        let transport = FakeTransport()
        transport.enqueue(AuthFixtures.deviceCodeReply)
        transport.enqueue(
            AuthFixtures.oauthError(
                "invalid_client",
                "AADSTS7000218: The request body must contain client_secret.\r\nTrace ID: abc\r\ndevice_code=\(AuthFixtures.deviceCode)"
            ))
        let signIn = DeviceCodeSignIn(
            configuration: AuthFixtures.configuration(), need: .read, transport: transport,
            clock: ManualAuthClock().clock)
        let thrown = try #require(#expect(throws: AuthError.self) { try signIn.signIn { _ in } })
        #expect(thrown.code == .server(error: "invalid_client"))
        #expect(thrown.message.contains("AADSTS7000218"))
        #expect(thrown.message.contains("Trace ID: abc"))
        #expect(!thrown.message.contains("\r"))
        AuthFixtures.expectNoSecrets(in: thrown.description)
    }

    @Test("throttled and unavailable answers from the identity platform are retried")
    func transientFailuresAreRetried() throws {
        let transport = FakeTransport()
        transport.enqueue(
            FakeTransport.json(503, ["error": "temporarily_unavailable"], headers: [("Retry-After", "0.05")]))
        transport.enqueue(AuthFixtures.deviceCodeReply)
        transport.enqueue(FakeTransport.json(429, [:], headers: [("Retry-After", "2")]))
        transport.enqueue(AuthFixtures.tokenReply(access: AuthFixtures.accessToken, refresh: AuthFixtures.refreshToken))
        let clock = ManualAuthClock()
        let signIn = DeviceCodeSignIn(
            configuration: AuthFixtures.configuration(), need: .read, transport: transport, clock: clock.clock)
        let tokens = try signIn.signIn { _ in }
        #expect(tokens.accessToken == AuthFixtures.accessToken)
        #expect(transport.requests.count == 4)
        #expect(clock.sleeps == [.milliseconds(50), .seconds(5), .seconds(2)])
    }

    @Test("a non-OAuth answer is a malformedResponse error")
    func htmlAnswerIsMalformed() throws {
        let transport = FakeTransport()
        transport.enqueue(
            HTTPResponse(status: 404, headers: [("Content-Type", "text/html")], body: Data("<html>".utf8)))
        let signIn = DeviceCodeSignIn(
            configuration: AuthFixtures.configuration(), need: .read, transport: transport,
            clock: ManualAuthClock().clock)
        let thrown = #expect(throws: AuthError.self) { try signIn.signIn { _ in } }
        #expect(thrown?.code == .malformedResponse)
        #expect(thrown?.message.contains("HTTP 404") == true)
    }

    @Test("without a client id, sign-in says how to set one and sends nothing")
    func missingClientIDIsAConfigurationError() throws {
        let transport = FakeTransport()
        var configuration = AuthFixtures.configuration()
        configuration.clientID = nil
        let signIn = DeviceCodeSignIn(
            configuration: configuration, need: .read, transport: transport, clock: ManualAuthClock().clock)
        let thrown = #expect(throws: AuthError.self) { try signIn.signIn { _ in } }
        #expect(thrown?.code == .invalidConfiguration)
        #expect(thrown?.message.contains("GRAPH_ICS_CLIENT_ID") == true)
        #expect(transport.requests.isEmpty)
    }

    // MARK: Configuration and encoding

    @Test("form bodies percent-encode +, /, = and spaces")
    func formEncodingEscapesReservedCharacters() {
        let body = FormEncoding.encode([("a b", "x+y/z=1 2&3"), ("ü", "~._-")])
        #expect(String(decoding: body, as: UTF8.self) == "a%20b=x%2By%2Fz%3D1%202%263&%C3%BC=~._-")
    }

    @Test("configuration defaults: global authority, common tenant, ~/.config/graph-ics")
    func configurationDefaults() throws {
        let configuration = try AuthConfiguration.fromEnvironment(["HOME": "/home/ada"])
        #expect(configuration.resolvedAuthority == "https://login.microsoftonline.com")
        #expect(configuration.resolvedTenant == "common")
        #expect(configuration.clientID == nil)
        #expect(configuration.configDirectory.path == "/home/ada/.config/graph-ics")
        #expect(
            try configuration.tokenEndpoint.absoluteString
                == "https://login.microsoftonline.com/common/oauth2/v2.0/token")
        #expect(
            try configuration.deviceCodeEndpoint.absoluteString
                == "https://login.microsoftonline.com/common/oauth2/v2.0/devicecode")
        #expect(configuration.appOnlyScope == "https://graph.microsoft.com/.default")
    }

    @Test("flags win over the environment; national clouds change endpoints and the app-only scope")
    func configurationFromEnvironmentAndFlags() throws {
        let environment = [
            "HOME": "/home/ada", "XDG_CONFIG_HOME": "/xdg", "GRAPH_ICS_AUTHORITY": "https://login.microsoftonline.us/",
            "GRAPH_ICS_TENANT": "fabrikam.us", "GRAPH_ICS_CLIENT_ID": "env-client",
            "GRAPH_ICS_GRAPH_URL": "https://graph.microsoft.us/v1.0",
        ]
        let fromEnvironment = try AuthConfiguration.fromEnvironment(environment)
        #expect(fromEnvironment.configDirectory.path == "/xdg/graph-ics")
        #expect(
            try fromEnvironment.tokenEndpoint.absoluteString
                == "https://login.microsoftonline.us/fabrikam.us/oauth2/v2.0/token")
        #expect(fromEnvironment.appOnlyScope == "https://graph.microsoft.us/.default")
        #expect(fromEnvironment.clientID == "env-client")

        let withFlags = try AuthConfiguration.fromEnvironment(
            environment.merging(["GRAPH_ICS_CONFIG_DIR": "/cfg"]) { $1 },
            authority: "https://login.chinacloudapi.cn", tenant: "other", clientID: "flag-client")
        #expect(withFlags.configDirectory.path == "/cfg")
        #expect(withFlags.resolvedAuthority == "https://login.chinacloudapi.cn")
        #expect(withFlags.tenant == "other")
        #expect(withFlags.clientID == "flag-client")
    }

    @Test("plain http is refused except on loopback")
    func plainHTTPAuthorityOnlyOnLoopback() throws {
        let thrown = #expect(throws: AuthError.self) {
            try AuthConfiguration.fromEnvironment(["HOME": "/h", "GRAPH_ICS_AUTHORITY": "http://login.example.com"])
        }
        #expect(thrown?.code == .insecureConfiguration)
        let loopback = try AuthConfiguration.fromEnvironment(["HOME": "/h"], authority: "http://127.0.0.1:8123")
        #expect(try loopback.tokenEndpoint.absoluteString == "http://127.0.0.1:8123/common/oauth2/v2.0/token")
        #expect(throws: AuthError.self) {
            try AuthConfiguration.fromEnvironment([
                "HOME": "/h", "GRAPH_ICS_GRAPH_URL": "http://graph.example.com/v1.0",
            ])
        }
    }

    @Test("a tenant that is not a GUID, domain or alias is refused", arguments: ["a/b", "../x", "t?x=1", "a b"])
    func malformedTenantRefused(tenant: String) {
        let thrown = #expect(throws: AuthError.self) {
            try AuthConfiguration.fromEnvironment(["HOME": "/h"], tenant: tenant)
        }
        #expect(thrown?.code == .invalidConfiguration)
    }

    // MARK: Refreshing

    @Test("a token expiring within 5 minutes is refreshed and the new refresh token replaces the old one")
    func refreshRotatesRefreshTokenInStore() throws {
        let directory = try AuthFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = TokenStore(directory: directory)
        let clock = ManualAuthClock()
        let account = AuthFixtures.account(expiresAt: clock.now.addingTimeInterval(240))
        try store.save(account)
        let transport = FakeTransport()
        transport.enqueue(
            AuthFixtures.tokenReply(access: AuthFixtures.accessToken2, refresh: AuthFixtures.refreshToken2))
        let source = RefreshingTokenSource(account: account, store: store, transport: transport, clock: clock.clock)

        #expect(try source.accessToken() == AuthFixtures.accessToken2)
        let request = try #require(transport.requests.first)
        #expect(
            request.url.absoluteString == "https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/token")
        #expect(request.formFields["grant_type"] == "refresh_token")
        #expect(request.formFields["refresh_token"] == AuthFixtures.refreshToken)
        #expect(request.formFields["client_id"] == AuthFixtures.clientID)
        #expect(request.formFields["scope"] == "offline_access Calendars.Read User.Read MailboxSettings.Read")

        let stored = try #require(try store.load(accountKey: account.accountKey))
        #expect(stored.refreshToken == AuthFixtures.refreshToken2)
        #expect(stored.accessToken == AuthFixtures.accessToken2)
        #expect(stored.expiresAt == clock.now.addingTimeInterval(3600))
        let raw = try String(contentsOf: store.fileURL(forAccountKey: account.accountKey), encoding: .utf8)
        #expect(!raw.contains(AuthFixtures.refreshToken))

        // Now fresh: no further request.
        #expect(try source.accessToken() == AuthFixtures.accessToken2)
        #expect(transport.requests.count == 1)
    }

    @Test("a token valid for more than 5 minutes is used without a request")
    func freshTokenNeedsNoRequest() throws {
        let clock = ManualAuthClock()
        let transport = FakeTransport()
        let source = RefreshingTokenSource(
            account: AuthFixtures.account(expiresAt: clock.now.addingTimeInterval(301)),
            store: TokenStore(directory: try AuthFixtures.temporaryDirectory()),
            transport: transport, clock: clock.clock)
        #expect(try source.accessToken() == AuthFixtures.accessToken)
        #expect(transport.requests.isEmpty)
    }

    @Test("a refresh reply without a refresh token keeps the old one")
    func refreshWithoutNewRefreshTokenKeepsOld() throws {
        let directory = try AuthFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualAuthClock()
        let store = TokenStore(directory: directory)
        let account = AuthFixtures.account(expiresAt: clock.now.addingTimeInterval(10))
        let transport = FakeTransport()
        transport.enqueue(AuthFixtures.tokenReply(access: AuthFixtures.accessToken2, refresh: nil))
        let source = RefreshingTokenSource(account: account, store: store, transport: transport, clock: clock.clock)
        _ = try source.accessToken()
        #expect(try store.load(accountKey: account.accountKey)?.refreshToken == AuthFixtures.refreshToken)
    }

    @Test("8 threads rejecting the same token cause exactly one refresh")
    func concurrentRejectionsRefreshOnce() throws {
        let directory = try AuthFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualAuthClock()
        let refreshes = Locked(0)
        let transport = FakeTransport { request in
            refreshes.mutate { $0 += 1 }
            Thread.sleep(forTimeInterval: 0.03)  // let the other threads pile up on the lock
            return AuthFixtures.tokenReply(access: AuthFixtures.accessToken2, refresh: AuthFixtures.refreshToken2)
        }
        let source = RefreshingTokenSource(
            account: AuthFixtures.account(expiresAt: clock.now.addingTimeInterval(3000)),
            store: TokenStore(directory: directory), transport: transport, clock: clock.clock)
        let results = Locked<[String]>([])
        let group = DispatchGroup()
        let start = DispatchSemaphore(value: 0)
        for _ in 0..<8 {
            group.enter()
            Thread {
                start.wait()
                let token = (try? source.tokenAfterRejection(of: AuthFixtures.accessToken)) ?? "error"
                results.mutate { $0.append(token) }
                group.leave()
            }.start()
        }
        for _ in 0..<8 { start.signal() }
        group.wait()
        #expect(refreshes.value == 1)
        #expect(source.refreshCount == 1)
        #expect(results.value == Array(repeating: AuthFixtures.accessToken2, count: 8))
    }

    @Test("rejecting the new token again refreshes again; an older token gets the current one")
    func rejectionOfStaleTokenReturnsCurrent() throws {
        let directory = try AuthFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualAuthClock()
        let transport = FakeTransport()
        transport.enqueue(
            AuthFixtures.tokenReply(access: AuthFixtures.accessToken2, refresh: AuthFixtures.refreshToken2))
        let source = RefreshingTokenSource(
            account: AuthFixtures.account(expiresAt: clock.now.addingTimeInterval(3000)),
            store: TokenStore(directory: directory), transport: transport, clock: clock.clock)
        #expect(try source.tokenAfterRejection(of: AuthFixtures.accessToken) == AuthFixtures.accessToken2)
        #expect(try source.tokenAfterRejection(of: AuthFixtures.accessToken) == AuthFixtures.accessToken2)
        #expect(transport.requests.count == 1)
    }

    @Test(
        "invalid_grant on refresh means not signed in: run graph-ics login",
        arguments: [
            "invalid_grant", "interaction_required",
        ])
    func invalidGrantMeansNotSignedIn(error: String) throws {
        let directory = try AuthFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualAuthClock()
        let transport = FakeTransport()
        transport.enqueue(
            AuthFixtures.oauthError(
                error, "AADSTS700082: The refresh token has expired. token=\(AuthFixtures.refreshToken)"))
        let source = RefreshingTokenSource(
            account: AuthFixtures.account(expiresAt: clock.now.addingTimeInterval(-10)),
            store: TokenStore(directory: directory), transport: transport, clock: clock.clock)
        let thrown = try #require(#expect(throws: AuthError.self) { try source.accessToken() })
        #expect(thrown.code == .notSignedIn)
        #expect(thrown.requiresSignIn)
        #expect(thrown.message.contains("graph-ics login"))
        #expect(thrown.description.contains("AADSTS700082"))
        AuthFixtures.expectNoSecrets(in: thrown.description)
    }

    @Test("an unreachable sign-in service does not fail a token that still has minutes left")
    func transportFailureFallsBackToStillValidToken() throws {
        let directory = try AuthFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualAuthClock()
        let transport = FakeTransport { _ in
            throw CurlError(code: .tls, host: "login.microsoftonline.com", message: "TLS failed")
        }
        let source = RefreshingTokenSource(
            account: AuthFixtures.account(expiresAt: clock.now.addingTimeInterval(120)),
            store: TokenStore(directory: directory), transport: transport, clock: clock.clock)
        #expect(try source.accessToken() == AuthFixtures.accessToken)
        clock.advance(by: 90)  // 30 s left: not enough.
        let thrown = #expect(throws: AuthError.self) { try source.accessToken() }
        #expect(thrown?.code == .transport)
    }

    @Test("a token another process already refreshed is taken from the store")
    func refreshAdoptsNewerTokenFromStore() throws {
        let directory = try AuthFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualAuthClock()
        let store = TokenStore(directory: directory)
        let old = AuthFixtures.account(expiresAt: clock.now.addingTimeInterval(60))
        try store.save(
            AuthFixtures.account(
                accessToken: AuthFixtures.accessToken2, refreshToken: AuthFixtures.refreshToken2,
                expiresAt: clock.now.addingTimeInterval(3600)))
        let transport = FakeTransport()
        let source = RefreshingTokenSource(account: old, store: store, transport: transport, clock: clock.clock)
        #expect(try source.accessToken() == AuthFixtures.accessToken2)
        #expect(transport.requests.isEmpty)
    }

    // MARK: Static and app-only

    @Test("a rejected GRAPH_ICS_ACCESS_TOKEN cannot be refreshed and says so")
    func staticTokenRejection() throws {
        let source = try #require(
            StaticTokenSource.fromEnvironment(["GRAPH_ICS_ACCESS_TOKEN": " \(AuthFixtures.accessToken)\n"]))
        #expect(try source.accessToken() == AuthFixtures.accessToken)
        let thrown = try #require(
            #expect(throws: AuthError.self) { try source.tokenAfterRejection(of: AuthFixtures.accessToken) })
        #expect(thrown.code == .tokenRejected)
        #expect(thrown.requiresSignIn)
        #expect(thrown.message.contains("GRAPH_ICS_ACCESS_TOKEN"))
        #expect(thrown.message.contains("cannot refresh"))
        AuthFixtures.expectNoSecrets(in: thrown.description)
        AuthFixtures.expectNoSecrets(in: String(describing: source))
        AuthFixtures.expectNoSecrets(in: String(reflecting: source))
        #expect(StaticTokenSource.fromEnvironment(["GRAPH_ICS_ACCESS_TOKEN": ""]) == nil)
    }

    @Test("client credentials take the secret from GRAPH_ICS_CLIENT_SECRET and cache the token")
    func clientSecretFromEnvironment() throws {
        let transport = FakeTransport()
        transport.enqueue(AuthFixtures.tokenReply(access: AuthFixtures.accessToken, refresh: nil))
        transport.enqueue(AuthFixtures.tokenReply(access: AuthFixtures.accessToken2, refresh: nil))
        let clock = ManualAuthClock()
        let source = try ClientCredentialsTokenSource(
            environment: ["GRAPH_ICS_CLIENT_SECRET": AuthFixtures.clientSecret],
            configuration: AuthFixtures.configuration(), transport: transport, clock: clock.clock)
        #expect(try source.accessToken() == AuthFixtures.accessToken)
        #expect(try source.accessToken() == AuthFixtures.accessToken)
        #expect(transport.requests.count == 1)
        let request = try #require(transport.requests.first)
        #expect(
            request.url.absoluteString == "https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/token")
        #expect(request.formFields["grant_type"] == "client_credentials")
        #expect(request.formFields["client_secret"] == AuthFixtures.clientSecret)
        #expect(request.formFields["scope"] == "https://graph.microsoft.com/.default")
        #expect(try source.tokenAfterRejection(of: AuthFixtures.accessToken) == AuthFixtures.accessToken2)
        #expect(transport.requests.count == 2)
        AuthFixtures.expectNoSecrets(in: String(describing: source))
    }

    @Test("client credentials read the secret file, trimmed, and use the national cloud's .default scope")
    func clientSecretFromFile() throws {
        let directory = try AuthFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("secret")
        try Data("\(AuthFixtures.clientSecret)\n".utf8).write(to: file)
        let transport = FakeTransport()
        transport.enqueue(AuthFixtures.tokenReply(access: AuthFixtures.accessToken, refresh: nil))
        let source = try ClientCredentialsTokenSource(
            environment: ["GRAPH_ICS_CLIENT_SECRET_FILE": file.path],
            configuration: AuthFixtures.configuration(
                authority: "https://login.microsoftonline.us", graphURL: "https://graph.microsoft.us/v1.0"),
            transport: transport, clock: ManualAuthClock().clock)
        _ = try source.accessToken()
        let request = try #require(transport.requests.first)
        #expect(request.formFields["client_secret"] == AuthFixtures.clientSecret)
        #expect(request.formFields["scope"] == "https://graph.microsoft.us/.default")
        #expect(request.url.host == "login.microsoftonline.us")
    }

    @Test("client credentials without a secret, with two secrets, or with a tenant alias are refused")
    func clientSecretMisconfigurations() throws {
        let transport = FakeTransport()
        let cases: [([String: String], AuthConfiguration)] = [
            ([:], AuthFixtures.configuration()),
            (
                ["GRAPH_ICS_CLIENT_SECRET": AuthFixtures.clientSecret, "GRAPH_ICS_CLIENT_SECRET_FILE": "/x"],
                AuthFixtures.configuration()
            ),
            (["GRAPH_ICS_CLIENT_SECRET_FILE": "/nonexistent/graph-ics-secret"], AuthFixtures.configuration()),
            (
                ["GRAPH_ICS_CLIENT_SECRET": AuthFixtures.clientSecret],
                {
                    var c = AuthFixtures.configuration()
                    c.tenant = nil
                    return c
                }()
            ),
        ]
        for (environment, configuration) in cases {
            let thrown = #expect(throws: AuthError.self) {
                try ClientCredentialsTokenSource(
                    environment: environment, configuration: configuration, transport: transport)
            }
            #expect(thrown?.code == .invalidConfiguration)
            AuthFixtures.expectNoSecrets(in: String(describing: thrown))
        }
        #expect(transport.requests.isEmpty)
        #expect(!ClientCredentialsTokenSource.isConfigured(in: ["GRAPH_ICS_CLIENT_SECRET": ""]))
    }

    @Test("a refused client secret is a configuration error that does not echo the secret")
    func refusedClientSecret() throws {
        let transport = FakeTransport()
        transport.enqueue(
            AuthFixtures.oauthError(
                "invalid_client", "AADSTS7000215: Invalid client secret \(AuthFixtures.clientSecret)"))
        let source = try ClientCredentialsTokenSource(
            environment: ["GRAPH_ICS_CLIENT_SECRET": AuthFixtures.clientSecret],
            configuration: AuthFixtures.configuration(), transport: transport, clock: ManualAuthClock().clock)
        let thrown = try #require(#expect(throws: AuthError.self) { try source.accessToken() })
        #expect(thrown.code == .invalidConfiguration)
        #expect(thrown.description.contains("AADSTS7000215"))
        AuthFixtures.expectNoSecrets(in: thrown.description)
    }

    // MARK: Factory

    @Test("GRAPH_ICS_ACCESS_TOKEN comes first, then client credentials for --user, then the store")
    func factoryOrder() throws {
        let directory = try AuthFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = AuthFixtures.configuration(directory: directory)
        let transport = FakeTransport()
        let secret = ["GRAPH_ICS_CLIENT_SECRET": AuthFixtures.clientSecret]

        let fromToken = try TokenSourceFactory.make(
            need: .write, user: "ada@contoso.com", configuration: configuration,
            environment: secret.merging(["GRAPH_ICS_ACCESS_TOKEN": AuthFixtures.accessToken]) { $1 },
            transport: transport)
        #expect(fromToken is StaticTokenSource)

        let appOnly = try TokenSourceFactory.make(
            need: .write, user: "ada@contoso.com", configuration: configuration, environment: secret,
            transport: transport)
        #expect(appOnly is ClientCredentialsTokenSource)

        let nothing = #expect(throws: AuthError.self) {
            try TokenSourceFactory.make(
                need: .read, user: nil, configuration: configuration, environment: secret, transport: transport)
        }
        #expect(nothing?.code == .notSignedIn)
        #expect(nothing?.message.contains("graph-ics login") == true)

        try TokenStore(directory: directory).save(AuthFixtures.account(expiresAt: Date().addingTimeInterval(3600)))
        let stored = try TokenSourceFactory.make(
            need: .read, user: nil, configuration: configuration, environment: secret, transport: transport)
        #expect(stored is RefreshingTokenSource)

        let readOnly = #expect(throws: AuthError.self) {
            try TokenSourceFactory.make(
                need: .write, user: nil, configuration: configuration, environment: [:], transport: transport)
        }
        #expect(readOnly?.code == .insufficientScope)
        #expect(transport.requests.isEmpty)
    }

    @Test("settings left out match any stored account; settings given must match")
    func storedAccountSelection() throws {
        let directory = try AuthFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = TokenStore(directory: directory)
        try store.save(AuthFixtures.account(expiresAt: Date()))
        var configuration = AuthConfiguration(
            graphBaseURL: URL(fileURLWithPath: "/"), configDirectory: directory)
        #expect(try TokenSourceFactory.storedAccount(for: configuration, in: store).clientID == AuthFixtures.clientID)
        configuration.clientID = "another-client"
        #expect(throws: AuthError(.notSignedIn, "graph-ics is not signed in; run `graph-ics login`.")) {
            try TokenSourceFactory.storedAccount(for: configuration, in: store)
        }
        configuration.clientID = nil
        configuration.explicitAuthority = "https://login.microsoftonline.us"
        #expect(throws: AuthError.self) { try TokenSourceFactory.storedAccount(for: configuration, in: store) }
    }

    // MARK: Redaction

    @Test("no description of a token-carrying value or an error contains a token")
    func descriptionsNeverContainTokens() throws {
        let account = AuthFixtures.account(expiresAt: Date())
        let texts = [
            String(describing: account), String(reflecting: account),
            {
                var s = ""; dump(account, to: &s); return s
            }(),
            String(describing: StaticTokenSource(token: AuthFixtures.accessToken)),
        ]
        for text in texts {
            AuthFixtures.expectNoSecrets(in: text)
            #expect(text.contains("<redacted"))
        }
        #expect(String(describing: account).contains("<redacted \(AuthFixtures.accessToken.utf8.count) chars>"))
    }
}
