// Tokens a test issues or revokes directly, as an earlier sign-in or an admin would have: delegated and
// app-only access tokens, refresh tokens, confidential clients.
import Foundation

extension GraphStandIn {
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

    /// Issues an app-only access token (as client credentials would) with exactly those application
    /// permissions: an app registration is granted nothing a test did not name (the README's minimal one is
    /// `["Calendars.ReadWrite"]`).
    public func issueAppToken(
        clientID: String = "graph-ics-daemon", roles: [String], lifetime: Duration? = nil
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

    /// Registers a confidential client for the client-credentials grant, granted exactly the application
    /// permissions `roles` (an admin's consent): its tokens carry those and no others.
    public func registerApp(clientID: String, secret: String, roles: [String]) {
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
}
