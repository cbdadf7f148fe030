// The identity platform's v2.0 endpoints under `authority` (`/{tenant}/oauth2/v2.0/devicecode` and
// `/token`): dispatch by grant type, Entra ID's error JSON, the delegated token response, and the
// refresh-token grant.
import Foundation

extension GraphStandIn {
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
        let latency = locked { $0.oauth.tokenEndpointLatency }
        if latency > .zero { sleep(for: latency) }
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
}
