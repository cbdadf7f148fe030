// Stands in for the Microsoft identity platform (v2.0 endpoints under `authority`): the device authorization
// endpoint, the token endpoint's device-code, refresh-token and client-credentials grants with Entra ID's
// error JSON, and Graph's side of tokens: bearer checks answering 401 `InvalidAuthenticationToken`.
// Tokens are opaque random strings.
import Foundation

/// Who a bearer token speaks for.
enum Principal {
    /// A signed-in user (delegated token) with its lower-cased scopes.
    case user(id: String, scopes: Set<String>)
    /// An application (client-credentials token) with its lower-cased application permissions.
    case app(clientID: String, roles: Set<String>)

    var permissions: Set<String> {
        switch self {
        case .user(_, let scopes): scopes
        case .app(_, let roles): roles
        }
    }
}

struct AccessTokenRecord {
    var principal: Principal
    var expiresAt: Date
    var revoked = false
}

struct RefreshTokenRecord {
    var userID: String
    var scopes: [String]
    var clientID: String
    var used = false
    var revoked = false
}

struct DeviceCodeRecord {
    var clientID: String
    var scopes: [String]
    var expiresAt: Date
    var polls = 0
    var lastPoll: Date?
    /// The interval the client must keep between polls now (grows after each `slow_down`).
    var requiredInterval: TimeInterval
    var redeemed = false
}

struct RegisteredApp {
    var secret: String
    var roles: [String]
}

struct OAuthSettings {
    var accessTokenLifetime: Duration = .seconds(3600)
    var grantedScopes: [String]?
    var deviceCodeScript: [GraphStandIn.DeviceCodeStep] = [.authorizationPending, .success]
    var deviceCodeInterval = 5
    var deviceCodeExpiresIn = 900
    var slowDownIncrement: Duration = .seconds(5)
    var enforcePollInterval = false
    var signInUser: String?
    var expectedClientID: String?
}

extension GraphStandIn {
    /// What the token endpoint answers to the successive polls of one device code.
    public enum DeviceCodeStep: Sendable, Equatable {
        /// `authorization_pending`: the user has not finished signing in.
        case authorizationPending
        /// `slow_down`: poll less often; the required interval grows by `slowDownIncrement`.
        case slowDown
        /// Tokens for the signed-in user.
        case success
        /// `expired_token`: the code expired before the user finished.
        case expiredToken
        /// `authorization_declined`: the user refused.
        case authorizationDeclined
        /// `bad_verification_code`: the code is not one the endpoint issued.
        case badVerificationCode
    }

    /// The scopes a token issued without explicit scopes carries (what graph-ics asks for at sign-in).
    public static let defaultDelegatedScopes = ["User.Read", "Calendars.ReadWrite", "MailboxSettings.Read"]

    /// The application permissions a client-credentials token carries by default.
    public static let defaultAppRoles = ["Calendars.ReadWrite", "MailboxSettings.Read", "User.Read.All"]

    // MARK: Configuration

    /// Lifetime of issued access tokens (`expires_in`).
    public var accessTokenLifetime: Duration {
        get { locked { $0.oauth.accessTokenLifetime } }
        set { locked { $0.oauth.accessTokenLifetime = newValue } }
    }

    /// Scopes the sign-in grants regardless of what was asked (e.g. only `Calendars.Read` to provoke 403s);
    /// nil grants what was asked.
    public var grantedScopes: [String]? {
        get { locked { $0.oauth.grantedScopes } }
        set { locked { $0.oauth.grantedScopes = newValue } }
    }

    /// The answers to a device code's successive polls; the last step repeats. Default: one
    /// `authorization_pending`, then tokens.
    public var deviceCodeScript: [DeviceCodeStep] {
        get { locked { $0.oauth.deviceCodeScript } }
        set { locked { $0.oauth.deviceCodeScript = newValue } }
    }

    /// The `interval` (seconds) the device authorization endpoint tells clients to keep between polls.
    public var deviceCodeInterval: Int {
        get { locked { $0.oauth.deviceCodeInterval } }
        set { locked { $0.oauth.deviceCodeInterval = newValue } }
    }

    /// The `expires_in` (seconds) of device codes; polls after it get `expired_token`.
    public var deviceCodeExpiresIn: Int {
        get { locked { $0.oauth.deviceCodeExpiresIn } }
        set { locked { $0.oauth.deviceCodeExpiresIn = newValue } }
    }

    /// How much the required poll interval grows after each `slow_down` (RFC 8628 says 5 seconds).
    public var slowDownIncrement: Duration {
        get { locked { $0.oauth.slowDownIncrement } }
        set { locked { $0.oauth.slowDownIncrement = newValue } }
    }

    /// When true, a poll sooner than the required interval is answered `slow_down` (it is counted in
    /// `devicePollIntervalViolations` either way).
    public var enforcePollInterval: Bool {
        get { locked { $0.oauth.enforcePollInterval } }
        set { locked { $0.oauth.enforcePollInterval = newValue } }
    }

    /// The user a device-code sign-in signs in (id, UPN or mail); nil means the first user.
    public var signInUser: String? {
        get { locked { $0.oauth.signInUser } }
        set { locked { $0.oauth.signInUser = newValue } }
    }

    /// When set, device-code and refresh requests from another `client_id` fail like an unknown application.
    public var expectedClientID: String? {
        get { locked { $0.oauth.expectedClientID } }
        set { locked { $0.oauth.expectedClientID = newValue } }
    }

    /// When each device-code poll arrived, in order.
    public var devicePollTimes: [Date] { locked { $0.devicePollTimes } }

    /// Polls that came sooner than the interval required at that moment (after `slow_down`s included).
    public var devicePollIntervalViolations: Int { locked { $0.devicePollIntervalViolations } }

    /// Refresh tokens that are still redeemable (neither used nor revoked).
    public var liveRefreshTokenCount: Int {
        locked { $0.refreshTokens.values.filter { !$0.used && !$0.revoked }.count }
    }

    // MARK: Issuing and revoking

    /// Issues a delegated access token for a user (nil: the first user) with those scopes.
    public func issueAccessToken(
        user: String? = nil, scopes: [String] = GraphStandIn.defaultDelegatedScopes, lifetime: Duration? = nil
    ) -> String {
        let userID = ensureUser(user)
        return locked { state in
            let token = Self.randomToken(length: 48)
            let life = lifetime ?? state.oauth.accessTokenLifetime
            state.accessTokens[token] = AccessTokenRecord(
                principal: .user(id: userID, scopes: Set(scopes.map { Self.bareScope($0).lowercased() })),
                expiresAt: Date().addingTimeInterval(Self.seconds(life)))
            return token
        }
    }

    /// Issues a refresh token for a user, as a token cache written by an earlier sign-in would hold.
    public func issueRefreshToken(
        user: String? = nil, scopes: [String] = GraphStandIn.defaultDelegatedScopes, clientID: String = "graph-ics"
    ) -> String {
        let userID = ensureUser(user)
        return locked { state in
            let token = Self.randomToken(length: 64)
            state.refreshTokens[token] = RefreshTokenRecord(userID: userID, scopes: scopes, clientID: clientID)
            return token
        }
    }

    /// Issues an app-only access token (as client credentials would) with those application permissions.
    public func issueAppToken(
        clientID: String = "graph-ics-daemon", roles: [String] = GraphStandIn.defaultAppRoles, lifetime: Duration? = nil
    ) -> String {
        locked { state in
            let token = Self.randomToken(length: 48)
            let life = lifetime ?? state.oauth.accessTokenLifetime
            state.accessTokens[token] = AccessTokenRecord(
                principal: .app(clientID: clientID, roles: Set(roles.map { $0.lowercased() })),
                expiresAt: Date().addingTimeInterval(Self.seconds(life)))
            return token
        }
    }

    /// Registers a confidential client for the client-credentials grant.
    public func registerApp(clientID: String, secret: String, roles: [String] = GraphStandIn.defaultAppRoles) {
        locked { $0.apps[clientID] = RegisteredApp(secret: secret, roles: roles) }
    }

    /// Revokes every access and refresh token issued so far (a cancelled grant, a password reset).
    public func revokeAllTokens() {
        locked { state in
            for key in state.accessTokens.keys { state.accessTokens[key]?.revoked = true }
            for key in state.refreshTokens.keys { state.refreshTokens[key]?.revoked = true }
        }
    }

    /// Makes every access token issued so far expired (refresh tokens stay good).
    public func expireAccessTokens() {
        let past = Date().addingTimeInterval(-1)
        locked { state in
            for key in state.accessTokens.keys { state.accessTokens[key]?.expiresAt = past }
        }
    }

    /// A scope without its resource prefix: `https://graph.microsoft.com/Calendars.Read` → `Calendars.Read`.
    static func bareScope(_ scope: String) -> String {
        for prefix in ["https://graph.microsoft.com/", "https://graph.microsoft.com//"] where scope.hasPrefix(prefix) {
            return String(scope.dropFirst(prefix.count))
        }
        return scope
    }

    static let openIDScopes: Set<String> = ["openid", "profile", "email", "offline_access"]

    // MARK: Graph's side: bearer tokens

    func authenticate(_ call: GraphCall, _ context: RequestContext) -> Result<Principal, Rejection> {
        if !locked({ $0.requireAuthentication }) {
            let userID = ensureUser(nil)
            let everything = Set(
                (Self.defaultDelegatedScopes + [
                    "Calendars.ReadWrite.Shared", "User.Read.All", "MailboxSettings.ReadWrite",
                ])
                .map { $0.lowercased() })
            return .success(.user(id: userID, scopes: everything))
        }
        let header = call.header("Authorization") ?? ""
        let parts = header.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2, parts[0].caseInsensitiveCompare("Bearer") == .orderedSame, !parts[1].isEmpty else {
            return .failure(unauthorized("Access token is empty.", context))
        }
        let record = locked { $0.accessTokens[parts[1].trimmingCharacters(in: .whitespaces)] }
        guard let record else {
            return .failure(unauthorized("IDX14100: JWT is not well formed, there are no dots (.).", context))
        }
        if record.revoked {
            return .failure(
                unauthorized(
                    "Continuous access evaluation resulted in challenge with result: InteractionRequired and code: "
                        + "TokenIssuedBeforeRevocationTimestamp", context))
        }
        if record.expiresAt <= Date() {
            return .failure(unauthorized("Lifetime validation failed, the token is expired.", context))
        }
        return .success(record.principal)
    }

    func unauthorized(_ message: String, _ context: RequestContext) -> Rejection {
        var response = graphError(401, "InvalidAuthenticationToken", message, context)
        response.headers.append(
            (
                "WWW-Authenticate",
                "Bearer realm=\"\", authorization_uri=\"\(authority)/common/oauth2/authorize\", "
                    + "client_id=\"00000003-0000-0000-c000-000000000000\""
            ))
        return Rejection(response: response)
    }

    // MARK: The identity platform's endpoints

    /// Serves `/{tenant}/oauth2/v2.0/devicecode` and `/{tenant}/oauth2/v2.0/token`; nil for other paths.
    func serveOAuth(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Response? {
        let segments = request.path.split(separator: "/").map(String.init)
        guard segments.count == 4, segments[1] == "oauth2", segments[2] == "v2.0" else { return nil }
        let endpoint = segments[3].lowercased()
        guard endpoint == "devicecode" || endpoint == "token" else { return nil }
        guard request.method == "POST" else {
            return oauthError(
                405, "invalid_request", 900561,
                "The endpoint only accepts POST requests. Received a \(request.method) request.")
        }
        let form = LoopbackHTTPServer.Request.decodeQuery(String(decoding: request.body, as: UTF8.self))
        if endpoint == "devicecode" { return deviceAuthorization(form) }
        guard let grant = form["grant_type"], !grant.isEmpty else {
            return missingParameter("grant_type")
        }
        switch grant {
        case "urn:ietf:params:oauth:grant-type:device_code": return deviceCodeGrant(form, at: request.receivedAt)
        case "refresh_token": return refreshGrant(form)
        case "client_credentials": return clientCredentialsGrant(form)
        default:
            return oauthError(
                400, "unsupported_grant_type", 70003, "The app requested an unsupported grant type '\(grant)'.")
        }
    }

    /// Entra ID's error JSON: `{error, error_description, error_codes, timestamp, trace_id, correlation_id,
    /// error_uri}`.
    func oauthError(_ status: Int, _ error: String, _ code: Int, _ description: String) -> LoopbackHTTPServer.Response {
        let trace = UUID().uuidString.lowercased()
        let correlation = UUID().uuidString.lowercased()
        let now = Date()
        let stamp = String(Self.utcStamp(now).prefix(19)).replacingOccurrences(of: "T", with: " ") + "Z"
        return .json(
            status,
            [
                "error": error,
                "error_description":
                    "AADSTS\(code): \(description)\r\nTrace ID: \(trace)\r\nCorrelation ID: \(correlation)\r\n"
                    + "Timestamp: \(stamp)",
                "error_codes": [code],
                "timestamp": stamp,
                "trace_id": trace,
                "correlation_id": correlation,
                "error_uri": authority + "/error?code=\(code)",
            ])
    }

    func missingParameter(_ name: String) -> LoopbackHTTPServer.Response {
        oauthError(400, "invalid_request", 900144, "The request body must contain the following parameter: '\(name)'.")
    }

    func unknownClient(_ clientID: String) -> LoopbackHTTPServer.Response {
        oauthError(
            400, "unauthorized_client", 700016,
            "Application with identifier '\(clientID)' was not found in the directory 'stand-in'.")
    }

    func deviceAuthorization(_ form: [String: String]) -> LoopbackHTTPServer.Response {
        guard let clientID = form["client_id"], !clientID.isEmpty else { return missingParameter("client_id") }
        guard let scope = form["scope"], !scope.isEmpty else { return missingParameter("scope") }
        if let expected = locked({ $0.oauth.expectedClientID }), expected != clientID { return unknownClient(clientID) }
        let scopes = scope.split(separator: " ").map(String.init)
        let deviceCode = Self.randomToken(length: 64)
        let userCode = String(Self.randomToken(length: 9).uppercased().map { $0 == "-" || $0 == "_" ? "X" : $0 })
        let (interval, expiresIn) = locked { state in
            (state.oauth.deviceCodeInterval, state.oauth.deviceCodeExpiresIn)
        }
        locked { state in
            state.deviceCodes[deviceCode] = DeviceCodeRecord(
                clientID: clientID, scopes: scopes, expiresAt: Date().addingTimeInterval(TimeInterval(expiresIn)),
                requiredInterval: TimeInterval(interval))
        }
        let verification = "https://microsoft.com/devicelogin"
        return .json(
            200,
            [
                "user_code": userCode,
                "device_code": deviceCode,
                "verification_uri": verification,
                "expires_in": expiresIn,
                "interval": interval,
                "message":
                    "To sign in, use a web browser to open the page \(verification) and enter the code \(userCode) to authenticate.",
            ])
    }

    func deviceCodeGrant(_ form: [String: String], at arrival: Date) -> LoopbackHTTPServer.Response {
        guard let code = form["device_code"], !code.isEmpty else { return missingParameter("device_code") }
        guard let clientID = form["client_id"], !clientID.isEmpty else { return missingParameter("client_id") }
        enum Outcome {
            case step(DeviceCodeStep)
            case unknown, redeemed
            case tokens(userKey: String?, scopes: [String])
        }
        let outcome: Outcome = locked { state in
            state.devicePollTimes.append(arrival)
            guard var record = state.deviceCodes[code], record.clientID == clientID else { return .unknown }
            defer { state.deviceCodes[code] = record }
            if record.redeemed { return .redeemed }
            var tooSoon = false
            if let last = record.lastPoll, arrival.timeIntervalSince(last) + 0.02 < record.requiredInterval {
                state.devicePollIntervalViolations += 1
                tooSoon = true
            }
            record.lastPoll = arrival
            let script = state.oauth.deviceCodeScript
            let step = script.isEmpty ? .success : script[min(record.polls, script.count - 1)]
            record.polls += 1
            let increment = Self.seconds(state.oauth.slowDownIncrement)
            if tooSoon && state.oauth.enforcePollInterval {
                record.requiredInterval += increment
                return .step(.slowDown)
            }
            if arrival >= record.expiresAt { return .step(.expiredToken) }
            switch step {
            case .slowDown:
                record.requiredInterval += increment
                return .step(.slowDown)
            case .success:
                record.redeemed = true
                return .tokens(userKey: state.oauth.signInUser, scopes: record.scopes)
            default:
                return .step(step)
            }
        }
        switch outcome {
        case .unknown:
            return oauthError(400, "bad_verification_code", 70019, "Verification code is not valid.")
        case .redeemed:
            return oauthError(
                400, "invalid_grant", 54005,
                "OAuth2 Authorization code was already redeemed, please retry with a new valid code or use an existing refresh token."
            )
        case .step(let step):
            switch step {
            case .authorizationPending:
                return oauthError(
                    400, "authorization_pending", 70016,
                    "OAuth 2.0 device flow error. Authorization is pending. Continue polling.")
            case .slowDown:
                return oauthError(400, "slow_down", 70016, "OAuth 2.0 device flow error. Polling too often; slow down.")
            case .expiredToken:
                return oauthError(
                    400, "expired_token", 70020,
                    "The provided value for the input parameter 'device_code' is not valid. This device code has expired."
                )
            case .authorizationDeclined:
                return oauthError(400, "authorization_declined", 70000, "The user declined the sign-in request.")
            case .badVerificationCode:
                return oauthError(400, "bad_verification_code", 70019, "Verification code is not valid.")
            case .success:
                return oauthError(500, "server_error", 50000, "unreachable")
            }
        case .tokens(let userKey, let scopes):
            let userID = ensureUser(userKey)
            return tokenResponse(userID: userID, requested: scopes, clientID: clientID)
        }
    }

    /// A delegated token response; a refresh token only when `offline_access` was asked for.
    func tokenResponse(userID: String, requested: [String], clientID: String) -> LoopbackHTTPServer.Response {
        let body: [String: Any] = locked { state in
            let bare = requested.map(Self.bareScope)
            let graphScopes =
                state.oauth.grantedScopes ?? bare.filter { !Self.openIDScopes.contains($0.lowercased()) }
            let access = Self.randomToken(length: 48)
            let life = state.oauth.accessTokenLifetime
            state.accessTokens[access] = AccessTokenRecord(
                principal: .user(id: userID, scopes: Set(graphScopes.map { $0.lowercased() })),
                expiresAt: Date().addingTimeInterval(Self.seconds(life)))
            let shownScopes =
                graphScopes
                + bare.filter { Self.openIDScopes.contains($0.lowercased()) && $0.lowercased() != "offline_access" }
            var body: [String: Any] = [
                "token_type": "Bearer",
                "scope": shownScopes.joined(separator: " "),
                "expires_in": Int(Self.seconds(life)),
                "ext_expires_in": Int(Self.seconds(life)),
                "access_token": access,
            ]
            if bare.contains(where: { $0.lowercased() == "offline_access" }) {
                let refresh = Self.randomToken(length: 64)
                state.refreshTokens[refresh] = RefreshTokenRecord(userID: userID, scopes: requested, clientID: clientID)
                body["refresh_token"] = refresh
            }
            return body
        }
        return .json(200, body)
    }

    func refreshGrant(_ form: [String: String]) -> LoopbackHTTPServer.Response {
        guard let token = form["refresh_token"], !token.isEmpty else { return missingParameter("refresh_token") }
        guard let clientID = form["client_id"], !clientID.isEmpty else { return missingParameter("client_id") }
        if let expected = locked({ $0.oauth.expectedClientID }), expected != clientID { return unknownClient(clientID) }
        enum Outcome { case unknown, used, revoked, good(RefreshTokenRecord) }
        let outcome: Outcome = locked { state in
            guard var record = state.refreshTokens[token] else { return .unknown }
            if record.revoked { return .revoked }
            if record.used { return .used }
            record.used = true
            state.refreshTokens[token] = record
            return .good(record)
        }
        switch outcome {
        case .unknown:
            return oauthError(400, "invalid_grant", 9_002_313, "Invalid request. Request is malformed or invalid.")
        case .used:
            return oauthError(
                400, "invalid_grant", 70000,
                "The provided value for the 'refresh_token' is not valid. The refresh token was already redeemed.")
        case .revoked:
            return oauthError(
                400, "invalid_grant", 50173,
                "The provided grant has expired due to it being revoked, a fresh auth token is needed.")
        case .good(let record):
            var scopes = record.scopes
            if !scopes.contains(where: { Self.bareScope($0).lowercased() == "offline_access" }) {
                scopes.append("offline_access")
            }
            return tokenResponse(userID: record.userID, requested: scopes, clientID: record.clientID)
        }
    }

    func clientCredentialsGrant(_ form: [String: String]) -> LoopbackHTTPServer.Response {
        guard let clientID = form["client_id"], !clientID.isEmpty else { return missingParameter("client_id") }
        guard let scope = form["scope"], !scope.isEmpty else { return missingParameter("scope") }
        guard scope.hasSuffix("/.default") else {
            return oauthError(
                400, "invalid_scope", 1_002_012,
                "The provided value for scope \(scope) is not valid. Client credential flows must have a scope value "
                    + "with /.default suffixed to the resource identifier (application ID URI).")
        }
        guard let app = locked({ $0.apps[clientID] }) else { return unknownClient(clientID) }
        guard let secret = form["client_secret"], !secret.isEmpty else {
            return oauthError(
                401, "invalid_client", 7_000_218,
                "The request body must contain the following parameter: 'client_assertion' or 'client_secret'.")
        }
        guard secret == app.secret else {
            return oauthError(
                401, "invalid_client", 7_000_215,
                "Invalid client secret provided. Ensure the secret being sent in the request is the client secret "
                    + "value, not the client secret ID, for a secret added to app '\(clientID)'.")
        }
        let life = locked { $0.oauth.accessTokenLifetime }
        let token = issueAppToken(clientID: clientID, roles: app.roles, lifetime: life)
        return .json(
            200,
            [
                "token_type": "Bearer",
                "expires_in": Int(Self.seconds(life)),
                "ext_expires_in": Int(Self.seconds(life)),
                "access_token": token,
            ])
    }
}
