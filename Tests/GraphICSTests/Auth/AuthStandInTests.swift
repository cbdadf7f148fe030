import Foundation
import GraphStandIn
import TestSupport
import Testing

@testable import GraphICS

/// Sign-in end to end: graph-ics's auth code over the real libcurl transport against the loopback
/// stand-in for the identity platform and Graph. Nothing leaves the machine.
@Suite struct AuthStandInTests {
    static let clientID = "9f8e7d6c-aaaa-bbbb-cccc-000011112222"

    /// Real time, but polling waits are recorded and shortened to 10 ms.
    static func quickClock(_ sleeps: Locked<[Duration]>) -> AuthClock {
        AuthClock(
            now: { Date() },
            sleep: { duration in
                sleeps.mutate { $0.append(duration) }
                Thread.sleep(forTimeInterval: 0.01)
            })
    }

    static func configuration(_ standIn: GraphStandIn, directory: URL, tenant: String = "common") throws
        -> AuthConfiguration
    {
        try AuthConfiguration.fromEnvironment(
            [
                "GRAPH_ICS_AUTHORITY": standIn.authority, "GRAPH_ICS_GRAPH_URL": standIn.baseURL,
                "GRAPH_ICS_CLIENT_ID": clientID, "GRAPH_ICS_TENANT": tenant,
                "GRAPH_ICS_CONFIG_DIR": directory.path,
            ])
    }

    static func get(_ path: String, _ standIn: GraphStandIn, token: String, transport: CurlTransport) throws
        -> HTTPResponse
    {
        let url = try #require(URL(string: standIn.baseURL + path))
        return try transport.send(HTTPRequest(method: "GET", url: url, headers: [("Authorization", "Bearer \(token)")]))
    }

    @Test("device code sign-in, stored, then refreshed after Graph's 401, over libcurl")
    func deviceCodeThenRefreshAfterRejection() throws {
        let standIn = try GraphStandIn()
        defer { standIn.stop() }
        standIn.addUser(displayName: "Ada Lovelace", mail: "ada@contoso.test")
        standIn.expectedClientID = Self.clientID
        standIn.deviceCodeScript = [.authorizationPending, .slowDown, .success]
        let directory = try AuthFixtures.temporaryDirectory("standin")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = try Self.configuration(standIn, directory: directory)
        let transport = CurlTransport()
        let sleeps = Locked<[Duration]>([])
        let clock = Self.quickClock(sleeps)

        let prompts = Locked<[DeviceCodePrompt]>([])
        let tokens = try DeviceCodeSignIn(
            configuration: configuration, need: .write, transport: transport, clock: clock
        )
        .signIn { prompt in prompts.mutate { $0.append(prompt) } }
        let prompt = try #require(prompts.value.first)
        #expect(prompt.message.contains(prompt.userCode))
        #expect(sleeps.value == [.seconds(5), .seconds(5), .seconds(10)])
        #expect(standIn.devicePollTimes.count == 3)
        #expect(tokens.accountKey == "127.0.0.1:\(standIn.server.port)/common/\(Self.clientID)")
        #expect(AccessNeed.write.isSatisfied(by: tokens.scopes))
        let firstRefresh = try #require(tokens.refreshToken)
        try TokenStore(configuration: configuration).save(tokens)

        // A later command: the factory finds the stored account.
        let source = try TokenSourceFactory.make(
            need: .write, user: nil, configuration: configuration, environment: [:], transport: transport, clock: clock)
        let token = try source.accessToken()
        #expect(token == tokens.accessToken)
        let me = try Self.get("/me", standIn, token: token, transport: transport)
        #expect(me.status == 200)
        #expect(String(decoding: me.body, as: UTF8.self).contains("ada@contoso.test"))

        standIn.expireAccessTokens()
        #expect(try Self.get("/me", standIn, token: token, transport: transport).status == 401)
        let renewed = try source.tokenAfterRejection(of: token)
        #expect(renewed != token)
        #expect(try Self.get("/me", standIn, token: renewed, transport: transport).status == 200)

        // The stand-in's refresh tokens are single-use: the store must hold the rotated one.
        let stored = try #require(try TokenStore(configuration: configuration).load(accountKey: tokens.accountKey))
        #expect(stored.accessToken == renewed)
        #expect(stored.refreshToken != firstRefresh)
        #expect(standIn.liveRefreshTokenCount == 1)
        let tokenRequests = standIn.requests.filter { $0.path.hasSuffix("/oauth2/v2.0/token") }
        #expect(tokenRequests.map { $0.formBody["grant_type"] ?? "" }.suffix(1) == ["refresh_token"])
        #expect(tokenRequests.last?.formBody["refresh_token"] == firstRefresh)

        // Revoked: the next refresh says to sign in again.
        standIn.revokeAllTokens()
        let thrown = try #require(#expect(throws: AuthError.self) { try source.tokenAfterRejection(of: renewed) })
        #expect(thrown.code == .notSignedIn)
        #expect(thrown.message.contains("graph-ics login"))
        for secret in [tokens.accessToken, renewed, firstRefresh, stored.refreshToken ?? "-"] {
            #expect(!thrown.description.contains(secret))
        }
    }

    @Test("a token issued with less than 5 minutes to live is refreshed before first use")
    func shortLivedTokenIsRefreshedBeforeUse() throws {
        let standIn = try GraphStandIn()
        defer { standIn.stop() }
        standIn.addUser(displayName: "Ada Lovelace", mail: "ada@contoso.test")
        standIn.deviceCodeScript = [.success]
        standIn.accessTokenLifetime = .seconds(120)
        let directory = try AuthFixtures.temporaryDirectory("standin")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = try Self.configuration(standIn, directory: directory)
        let transport = CurlTransport()
        let clock = Self.quickClock(Locked([]))
        let tokens = try DeviceCodeSignIn(configuration: configuration, need: .read, transport: transport, clock: clock)
            .signIn { _ in }
        let store = TokenStore(configuration: configuration)
        try store.save(tokens)
        let source = RefreshingTokenSource(account: tokens, store: store, transport: transport, clock: clock)
        let token = try source.accessToken()
        #expect(token != tokens.accessToken)
        #expect(source.refreshCount == 1)
        #expect(try store.load(accountKey: tokens.accountKey)?.accessToken == token)
        #expect(try Self.get("/me", standIn, token: token, transport: transport).status == 200)
    }

    @Test("a declined device code sign-in over libcurl is AuthError.declined")
    func declinedOverCurl() throws {
        let standIn = try GraphStandIn()
        defer { standIn.stop() }
        standIn.deviceCodeScript = [.authorizationPending, .authorizationDeclined]
        let directory = try AuthFixtures.temporaryDirectory("standin")
        defer { try? FileManager.default.removeItem(at: directory) }
        let signIn = DeviceCodeSignIn(
            configuration: try Self.configuration(standIn, directory: directory), need: .read,
            transport: CurlTransport(), clock: Self.quickClock(Locked([])))
        let thrown = #expect(throws: AuthError.self) { try signIn.signIn { _ in } }
        #expect(thrown?.code == .declined)
    }

    @Test("client credentials from GRAPH_ICS_CLIENT_SECRET reach /users/{upn} over libcurl")
    func clientCredentialsOverCurl() throws {
        let standIn = try GraphStandIn()
        defer { standIn.stop() }
        standIn.addUser(displayName: "Ada Lovelace", mail: "ada@contoso.test")
        standIn.registerApp(
            clientID: Self.clientID, secret: AuthFixtures.clientSecret, roles: ["Calendars.ReadWrite", "User.Read.All"])
        let directory = try AuthFixtures.temporaryDirectory("standin")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = try Self.configuration(standIn, directory: directory, tenant: "contoso.test")
        let transport = CurlTransport()
        let source = try TokenSourceFactory.make(
            need: .write, user: "ada@contoso.test", configuration: configuration,
            environment: ["GRAPH_ICS_CLIENT_SECRET": AuthFixtures.clientSecret], transport: transport,
            clock: Self.quickClock(Locked([])))
        let token = try source.accessToken()
        #expect(try Self.get("/users/ada@contoso.test", standIn, token: token, transport: transport).status == 200)
        let request = try #require(standIn.requests.first { $0.path.hasSuffix("/oauth2/v2.0/token") })
        #expect(request.formBody["scope"] == "http://127.0.0.1:\(standIn.server.port)/.default")
        #expect(request.formBody["client_secret"] == AuthFixtures.clientSecret)
    }
}
