// Graph's side of tokens: the bearer check on every Graph request, answering 401
// `InvalidAuthenticationToken` with Graph's `WWW-Authenticate` challenge.
import Foundation

extension GraphStandIn {
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
}
