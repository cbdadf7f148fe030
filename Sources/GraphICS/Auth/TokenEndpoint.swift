import Foundation

/// One reply of the identity platform's `/devicecode` or `/token` endpoint, success or OAuth error.
///
/// Every field is optional: which ones are present depends on the endpoint and the outcome. Numbers are
/// accepted as JSON numbers or strings (the v1 endpoints and some proxies send strings).
struct OAuthReply: Decodable, Sendable {
    var accessToken: String?
    var refreshToken: String?
    var expiresIn: Int?
    var scope: String?
    var tokenType: String?
    var deviceCode: String?
    var userCode: String?
    var verificationURI: String?
    var interval: Int?
    var message: String?
    var error: String?
    var errorDescription: String?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
        case expiresIn = "expires_in"
        case scope
        case tokenType = "token_type"
        case deviceCode = "device_code"
        case userCode = "user_code"
        case verificationURI = "verification_uri"
        case verificationURL = "verification_url"
        case interval
        case message
        case error
        case errorDescription = "error_description"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func string(_ key: CodingKeys) -> String? { (try? c.decodeIfPresent(String.self, forKey: key)) ?? nil }
        func number(_ key: CodingKeys) -> Int? {
            if let value = try? c.decodeIfPresent(Int.self, forKey: key) { return value }
            if let value = try? c.decodeIfPresent(Double.self, forKey: key), value.isFinite,
                abs(value) < 1e12
            {
                return Int(value)
            }
            return string(key).flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        }
        accessToken = string(.accessToken)
        refreshToken = string(.refreshToken)
        expiresIn = number(.expiresIn)
        scope = string(.scope)
        tokenType = string(.tokenType)
        deviceCode = string(.deviceCode)
        userCode = string(.userCode)
        verificationURI = string(.verificationURI) ?? string(.verificationURL)
        interval = number(.interval)
        message = string(.message)
        error = string(.error)
        errorDescription = string(.errorDescription)
    }

    /// The granted scopes, split on spaces.
    var scopes: [String] { (scope ?? "").split(separator: " ").map(String.init) }
}

/// Posts forms to the identity platform through an ``HTTPTransport`` and reads OAuth replies.
///
/// Transient failures (429, 503, 504 with their `Retry-After`, connection failures) are retried by
/// ``RetryPolicy`` with a short budget: 4 tries within 60 seconds. OAuth errors (`authorization_pending`,
/// `invalid_grant`, …) are returned, not thrown: the caller decides what they mean.
struct TokenEndpointClient: Sendable {
    var transport: any HTTPTransport
    var clock: AuthClock
    var retryPolicy = RetryPolicy(
        maxAttempts: 4,
        baseDelay: .milliseconds(500),
        maxDelay: .seconds(10),
        deadline: .seconds(60)
    )

    /// Sends `fields` to `url` and returns the parsed reply.
    ///
    /// - Parameter secrets: values sent in this request (device code, refresh token, client secret) that
    ///   must be cut out of any text this call puts into an error.
    func post(_ url: URL, _ fields: [(String, String)], secrets: [String]) throws(AuthError) -> OAuthReply {
        let request = HTTPRequest(
            method: "POST",
            url: url,
            headers: [
                ("Content-Type", "application/x-www-form-urlencoded"),
                ("Accept", "application/json"),
            ],
            body: FormEncoding.encode(fields),
            timeout: .seconds(60)
        )
        let host = url.host ?? url.absoluteString
        let response: HTTPResponse
        do {
            response = try retryPolicy.run(request, sleep: clock.sleep, now: clock.now) { _ in
                try transport.send(request)
            }
        } catch {
            throw AuthError(
                .transport,
                "graph-ics could not reach the sign-in service at \(host); check the network and try again.",
                underlying: error
            )
        }
        return try parse(response, host: host, secrets: secrets)
    }

    private func parse(_ response: HTTPResponse, host: String, secrets: [String]) throws(AuthError) -> OAuthReply {
        let reply: OAuthReply
        do {
            reply = try JSONDecoder().decode(OAuthReply.self, from: response.body)
        } catch {
            let kind = response.header("Content-Type").map { " (\($0))" } ?? ""
            throw AuthError(
                .malformedResponse,
                "The sign-in service at \(host) answered HTTP \(response.status)\(kind) without an OAuth reply; "
                    + "check the authority setting or try again later."
            )
        }
        if reply.error == nil, !(200..<300).contains(response.status) {
            throw AuthError(
                .malformedResponse,
                "The sign-in service at \(host) answered HTTP \(response.status) without an error code; try again later."
            )
        }
        return reply
    }
}

extension OAuthReply {
    /// The identity platform's `error_description`, on one line, with every secret sent cut out.
    func scrubbedDescription(secrets: [String]) -> String? {
        guard let errorDescription else { return nil }
        let oneLine = errorDescription.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
            .joined(separator: " ")
        return scrub(oneLine, secrets: secrets)
    }

    /// An ``AuthError`` for an OAuth error this caller has no special meaning for.
    func serverError(_ what: String, secrets: [String]) -> AuthError {
        let code = error ?? "unknown_error"
        let detail = scrubbedDescription(secrets: secrets).map { ": \($0)" } ?? ""
        return AuthError(.server(error: code), "\(what) failed with \(code)\(detail)")
    }
}

/// Replaces every occurrence of a secret (four characters or longer) with `<redacted>`.
func scrub(_ text: String, secrets: [String]) -> String {
    var result = text
    for secret in secrets where secret.count >= 4 {
        result = result.replacingOccurrences(of: secret, with: "<redacted>")
    }
    return result
}
