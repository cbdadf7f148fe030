// What the identity platform stand-in keeps about tokens, device codes and registered apps, and who a
// bearer token speaks for. Tokens are opaque random strings.
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
    var tokenEndpointLatency: Duration = .zero
}
