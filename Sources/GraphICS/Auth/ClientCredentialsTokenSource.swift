import Foundation
import Synchronization

/// App-only tokens from a client secret (OAuth 2.0 client credentials grant), for `--user UPN`.
///
/// The secret comes from `GRAPH_ICS_CLIENT_SECRET` or from the file named by
/// `GRAPH_ICS_CLIENT_SECRET_FILE` (trailing white space removed), never from the command line where `ps`
/// would show it; setting both is an error. The tenant must be a real directory (GUID or domain), not
/// `common`, `organizations` or `consumers`. The scope is `{Graph origin}/.default` of the configured
/// Graph URL, so national clouds work (`https://graph.microsoft.us/.default`).
///
/// Tokens are cached until they expire within ``refreshMargin``; there is no refresh token, a new token
/// is simply requested. Thread-safety: one mutex, held across the token request, so concurrent callers
/// make one request.
public final class ClientCredentialsTokenSource: AccessTokenSource, CustomStringConvertible,
    CustomDebugStringConvertible, Sendable
{
    /// The environment variable holding the secret itself.
    public static let secretVariable = "GRAPH_ICS_CLIENT_SECRET"
    /// The environment variable naming a file that holds the secret.
    public static let secretFileVariable = "GRAPH_ICS_CLIENT_SECRET_FILE"

    /// The app's client id.
    public let clientID: String
    /// The tenant tokens are requested from.
    public let tenant: String
    /// The scope requested: `{Graph origin}/.default`.
    public let scope: String
    /// Tokens expiring within this are replaced before use.
    public let refreshMargin: Duration
    private let tokenEndpoint: URL
    private let secret: String
    private let client: TokenEndpointClient
    private struct State {
        var cached: (token: String, expiresAt: Date)?
        var requests = 0
    }

    private let state = Mutex(State())

    /// Whether the environment configures a client secret (either variable set and non-empty).
    public static func isConfigured(in environment: [String: String]) -> Bool {
        [secretVariable, secretFileVariable].contains { !(environment[$0] ?? "").isEmpty }
    }

    /// A source with the secret from `GRAPH_ICS_CLIENT_SECRET` or `GRAPH_ICS_CLIENT_SECRET_FILE`.
    ///
    /// - Throws: ``AuthError`` with ``AuthError/Code/invalidConfiguration`` when neither or both are set,
    ///   the file cannot be read or is empty, the client id is missing, or the tenant is an alias.
    public init(
        environment: [String: String],
        configuration: AuthConfiguration,
        transport: any HTTPTransport,
        clock: AuthClock = .system,
        refreshMargin: Duration = .seconds(300)
    ) throws(AuthError) {
        self.secret = try ClientCredentialsTokenSource.secret(from: environment)
        self.clientID = try configuration.requireClientID()
        let tenant = configuration.resolvedTenant
        guard !["common", "organizations", "consumers"].contains(tenant.lowercased()) else {
            throw AuthError(
                .invalidConfiguration,
                "App-only access with a client secret needs your directory's tenant ID or domain: set GRAPH_ICS_TENANT "
                    + "(not \"\(tenant)\")."
            )
        }
        self.tenant = tenant
        self.tokenEndpoint = try configuration.tokenEndpoint
        self.scope = configuration.appOnlyScope
        self.client = TokenEndpointClient(transport: transport, clock: clock)
        self.refreshMargin = refreshMargin
    }

    private static func secret(from environment: [String: String]) throws(AuthError) -> String {
        let direct = environment[secretVariable].flatMap { $0.isEmpty ? nil : $0 }
        let file = environment[secretFileVariable].flatMap { $0.isEmpty ? nil : $0 }
        switch (direct, file) {
        case (.some, .some):
            throw AuthError(
                .invalidConfiguration,
                "Both GRAPH_ICS_CLIENT_SECRET and GRAPH_ICS_CLIENT_SECRET_FILE are set; unset one of them."
            )
        case (let direct?, nil):
            let value = direct.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !value.isEmpty else { break }
            return value
        case (nil, let path?):
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw AuthError(
                    .invalidConfiguration,
                    "graph-ics cannot read the client secret file \(path) named by GRAPH_ICS_CLIENT_SECRET_FILE; "
                        + "check the path and its permissions.",
                    underlying: error
                )
            }
            let value = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !value.isEmpty else {
                throw AuthError(
                    .invalidConfiguration,
                    "The client secret file \(path) named by GRAPH_ICS_CLIENT_SECRET_FILE is empty."
                )
            }
            return value
        case (nil, nil):
            break
        }
        throw AuthError(
            .invalidConfiguration,
            "App-only access needs a client secret: set GRAPH_ICS_CLIENT_SECRET or GRAPH_ICS_CLIENT_SECRET_FILE."
        )
    }

    /// How many token requests this source has made.
    public var requestCount: Int {
        state.withLock { $0.requests }
    }

    public func accessToken() throws -> String {
        try state.withLock { state throws(AuthError) in
            if let cached = state.cached,
                cached.expiresAt.timeIntervalSince(client.clock.now()) > refreshMargin.seconds
            {
                return cached.token
            }
            return try request(&state)
        }
    }

    public func tokenAfterRejection(of token: String) throws -> String {
        try state.withLock { state throws(AuthError) in
            if let cached = state.cached, cached.token != token,
                cached.expiresAt.timeIntervalSince(client.clock.now()) > 60
            {
                return cached.token
            }
            return try request(&state)
        }
    }

    /// Asks for a new token; the caller holds ``state``.
    private func request(_ state: inout State) throws(AuthError) -> String {
        let sent = client.clock.now()
        state.requests += 1
        let secrets = [secret]
        let reply = try client.post(
            tokenEndpoint,
            [
                ("client_id", clientID),
                ("client_secret", secret),
                ("grant_type", "client_credentials"),
                ("scope", scope),
            ],
            secrets: secrets
        )
        if reply.error != nil {
            let underlying = reply.serverError("App-only sign-in", secrets: secrets)
            switch reply.error {
            case "invalid_client", "unauthorized_client":
                throw AuthError(
                    .invalidConfiguration,
                    "The identity platform refused the client id or secret; check GRAPH_ICS_CLIENT_ID and the secret.",
                    underlying: underlying
                )
            default:
                throw underlying
            }
        }
        guard let token = reply.accessToken, !token.isEmpty else {
            throw AuthError(
                .malformedResponse, "The sign-in service answered without an access token; try again later.")
        }
        state.cached = (token, sent.addingTimeInterval(TimeInterval(max(reply.expiresIn ?? 3600, 0))))
        return token
    }

    public var description: String {
        "ClientCredentialsTokenSource(client \(clientID), tenant \(tenant), scope \(scope), secret \(redacted(secret)))"
    }

    public var debugDescription: String { description }
}
