// The device authorization grant (RFC 8628) as Entra ID runs it: the device authorization endpoint, and the
// token endpoint's answers to a device code's polls, scripted per test (pending, slow_down, declined,
// expired, tokens) with the poll interval checked.
import Foundation

extension GraphStandIn {
    /// What one poll of a device code came to.
    enum DeviceCodePoll {
        /// A scripted step other than tokens (or `slow_down` for polling too soon, `expired_token` past expiry).
        case step(DeviceCodeStep)
        /// A code the endpoint did not issue, or issued to another client.
        case unknown
        /// A code whose tokens were issued already.
        case redeemed
        /// Tokens for the sign-in user with the code's scopes.
        case tokens(userKey: String?, scopes: [String])
    }

    /// `POST devicecode`: a new device code and user code for the client's scopes.
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

    /// `POST token` with `grant_type=urn:ietf:params:oauth:grant-type:device_code`.
    func deviceCodeGrant(_ form: [String: String], at arrival: Date) -> LoopbackHTTPServer.Response {
        guard let code = form["device_code"], !code.isEmpty else { return missingParameter("device_code") }
        guard let clientID = form["client_id"], !clientID.isEmpty else { return missingParameter("client_id") }
        switch locked({ state in Self.poll(code, clientID: clientID, at: arrival, in: &state) }) {
        case .unknown:
            return deviceCodeError(.badVerificationCode)
        case .redeemed:
            return oauthError(
                400, "invalid_grant", 54005,
                "OAuth2 Authorization code was already redeemed, please retry with a new valid code or use an existing refresh token."
            )
        case .step(let step):
            return deviceCodeError(step)
        case .tokens(let userKey, let scopes):
            let userID = ensureUser(userKey)
            return tokenResponse(userID: userID, requested: scopes, clientID: clientID)
        }
    }

    /// Records one poll and decides its answer: a poll sooner than the required interval is counted (and
    /// answered `slow_down` when enforced), a poll past expiry gets `expired_token`, any other follows the
    /// script, whose last step repeats.
    static func poll(_ code: String, clientID: String, at arrival: Date, in state: inout State) -> DeviceCodePoll {
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
        let increment = seconds(state.oauth.slowDownIncrement)
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

    /// Entra ID's error for a scripted step.
    func deviceCodeError(_ step: DeviceCodeStep) -> LoopbackHTTPServer.Response {
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
    }
}
