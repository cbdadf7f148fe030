// The token endpoint's client-credentials grant: a registered confidential client, its secret, and a
// `/.default` scope.
import Foundation

extension GraphStandIn {
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
