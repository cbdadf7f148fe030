import Foundation

/// What the user must do to finish a device code sign-in: open a page, enter a code.
public struct DeviceCodePrompt: Sendable, Equatable {
    /// The page to open, for example `https://microsoft.com/devicelogin`.
    public var verificationURI: String
    /// The short code to enter there (not a secret: it is useless without the device code).
    public var userCode: String
    /// The identity platform's own instructions, ready to print (localised when it localises them).
    public var message: String
    /// When the code stops working.
    public var expiresAt: Date
}

/// Signs a user in without a browser on this machine (OAuth 2.0 device authorization grant, RFC 8628).
///
/// `graph-ics login` runs it: ``signIn(prompt:)`` asks `{authority}/{tenant}/oauth2/v2.0/devicecode` for a
/// code, hands the page and code to the prompt closure (the CLI prints the message to stderr), then polls
/// `/token` every `interval` seconds until the user has signed in on another device. `authorization_pending`
/// keeps polling, `slow_down` adds 5 seconds to the interval for the rest of the sign-in, and the code's
/// `expires_in` bounds the whole wait. The caller saves the result with ``TokenStore/save(_:)``.
///
/// The device code itself never leaves this type: it is not in the prompt, in errors or in descriptions.
/// Thread-safety: a value type; one sign-in runs on the calling thread.
public struct DeviceCodeSignIn: Sendable {
    public var configuration: AuthConfiguration
    public var need: AccessNeed
    private let client: TokenEndpointClient

    /// - Parameters:
    ///   - configuration: authority, tenant and client id to sign in with.
    ///   - need: which calendar permission to ask for.
    ///   - transport: sends the requests (`CurlTransport` in graph-ics, a fake in tests).
    ///   - clock: the clock and sleep used for polling and expiry.
    public init(
        configuration: AuthConfiguration,
        need: AccessNeed,
        transport: any HTTPTransport,
        clock: AuthClock = .system
    ) {
        self.configuration = configuration
        self.need = need
        self.client = TokenEndpointClient(transport: transport, clock: clock)
    }

    /// Runs the whole sign-in and returns the new account's tokens.
    ///
    /// - Parameter prompt: called once, before polling starts, with what to show the user.
    /// - Throws: ``AuthError`` — ``AuthError/Code/declined``, ``AuthError/Code/deviceCodeExpired``,
    ///   ``AuthError/Code/badVerificationCode``, ``AuthError/Code/server(error:)`` for other OAuth errors,
    ///   ``AuthError/Code/transport`` when the sign-in service cannot be reached.
    public func signIn(prompt: (DeviceCodePrompt) -> Void) throws(AuthError) -> AccountTokens {
        let clientID = try configuration.requireClientID()
        let clock = client.clock
        let started = clock.now()
        let codeReply = try client.post(
            try configuration.deviceCodeEndpoint,
            [("client_id", clientID), ("scope", need.scopes.joined(separator: " "))],
            secrets: []
        )
        if codeReply.error != nil {
            throw codeReply.serverError("Requesting a sign-in code", secrets: [codeReply.deviceCode ?? ""])
        }
        guard let deviceCode = codeReply.deviceCode, !deviceCode.isEmpty, let userCode = codeReply.userCode,
            let verificationURI = codeReply.verificationURI
        else {
            throw AuthError(
                .malformedResponse,
                "The sign-in service did not return a device code, user code and verification page; "
                    + "check the authority setting."
            )
        }
        let expiresAt = started.addingTimeInterval(TimeInterval(max(codeReply.expiresIn ?? 900, 1)))
        var interval = max(codeReply.interval ?? 5, 1)
        let message =
            codeReply.message
            ?? "To sign in, use a web browser to open the page \(verificationURI) and enter the code \(userCode) "
            + "to authenticate."
        prompt(
            DeviceCodePrompt(
                verificationURI: verificationURI, userCode: userCode, message: message, expiresAt: expiresAt)
        )

        let secrets = [deviceCode]
        let tokenEndpoint = try configuration.tokenEndpoint
        while true {
            clock.sleep(.seconds(interval))
            let sent = clock.now()
            if sent >= expiresAt { throw expired() }
            let reply = try client.post(
                tokenEndpoint,
                [
                    ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
                    ("client_id", clientID),
                    ("device_code", deviceCode),
                ],
                secrets: secrets
            )
            switch reply.error {
            case nil:
                return try AccountTokens(
                    reply: reply,
                    sentAt: sent,
                    authority: configuration.resolvedAuthority,
                    tenant: configuration.resolvedTenant,
                    clientID: clientID,
                    previous: nil
                )
            case "authorization_pending":
                continue
            case "slow_down":
                interval += 5
            case "authorization_declined", "access_denied":
                throw AuthError(
                    .declined,
                    "The sign-in request was declined; run `graph-ics login` again to sign in.",
                    underlying: reply.serverError("Sign-in", secrets: secrets)
                )
            case "expired_token":
                throw expired()
            case "bad_verification_code":
                throw AuthError(
                    .badVerificationCode,
                    "The sign-in service did not recognise the device code; run `graph-ics login` again.",
                    underlying: reply.serverError("Sign-in", secrets: secrets)
                )
            default:
                throw reply.serverError("Sign-in", secrets: secrets)
            }
        }
    }

    private func expired() -> AuthError {
        AuthError(
            .deviceCodeExpired,
            "The sign-in code expired before the sign-in was completed; run `graph-ics login` again."
        )
    }
}

extension AccountTokens {
    /// The tokens of a successful `/token` reply.
    ///
    /// - Parameters:
    ///   - sentAt: when the request was sent; `expires_in` counts from then, so the expiry errs early.
    ///   - previous: the account refreshed, whose refresh token, scopes and user name carry over when the
    ///     reply has none.
    init(
        reply: OAuthReply,
        sentAt: Date,
        authority: String,
        tenant: String,
        clientID: String,
        previous: AccountTokens?
    ) throws(AuthError) {
        guard let accessToken = reply.accessToken, !accessToken.isEmpty else {
            throw AuthError(
                .malformedResponse,
                "The sign-in service answered without an access token; try again later."
            )
        }
        let lifetime = max(reply.expiresIn ?? 3600, 0)
        let scopes = reply.scopes.isEmpty ? (previous?.scopes ?? []) : reply.scopes
        self.init(
            authority: authority,
            tenant: tenant,
            clientID: clientID,
            accessToken: accessToken,
            expiresAt: sentAt.addingTimeInterval(TimeInterval(lifetime)),
            refreshToken: reply.refreshToken.flatMap { $0.isEmpty ? nil : $0 } ?? previous?.refreshToken,
            scopes: scopes,
            userName: previous?.userName
        )
        name = previous?.name
        keyUser = previous?.keyUser
        refreshTokenUsedAt = previous?.refreshTokenUsedAt
    }
}
