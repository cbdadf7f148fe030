// The knobs a test turns on the identity platform (token lifetime, granted scopes, the device-code script
// and intervals, the signed-in user, the expected client) and what it reads back (poll times, violations).
import Foundation

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

    /// Time added to every `/token` request before it is answered (a slow sign-in service), so that two
    /// clients renewing at once are both in flight together.
    public var tokenEndpointLatency: Duration {
        get { locked { $0.oauth.tokenEndpointLatency } }
        set { locked { $0.oauth.tokenEndpointLatency = newValue } }
    }

    /// When each device-code poll arrived, in order.
    public var devicePollTimes: [Date] { locked { $0.devicePollTimes } }

    /// Polls that came sooner than the interval required at that moment (after `slow_down`s included).
    public var devicePollIntervalViolations: Int { locked { $0.devicePollIntervalViolations } }

    /// Refresh tokens that are still redeemable (neither used nor revoked).
    public var liveRefreshTokenCount: Int {
        locked { $0.refreshTokens.values.filter { !$0.used && !$0.revoked }.count }
    }
}
