import Foundation

/// A signed-in account as graph-ics keeps it: where it signed in, its tokens and what they allow.
///
/// This is what ``DeviceCodeSignIn`` returns and what ``TokenStore`` writes, one file per account.
/// Its `description`, `debugDescription` and mirror (`dump`) show token lengths only, never token text.
public struct AccountTokens: Sendable, Equatable, Codable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The authority signed in at, for example `https://login.microsoftonline.com`.
    public var authority: String
    /// The tenant (GUID, domain or alias such as `common`) used for sign-in and refresh.
    public var tenant: String
    /// The application (client) id the tokens were issued to.
    public var clientID: String
    /// The bearer token for Microsoft Graph.
    public var accessToken: String
    /// When ``accessToken`` stops being valid.
    public var expiresAt: Date
    /// The refresh token; replaced on every refresh. `nil` if the identity platform issued none.
    public var refreshToken: String?
    /// The scopes the identity platform says it granted.
    public var scopes: [String]
    /// The user's sign-in name, once graph-ics has learned it (`GET /me`), for `whoami`.
    public var userName: String?
    /// The name the user gave the sign-in (`graph-ics login --name work`), for `--account`.
    public var name: String?
    /// The user the account key names (lower-cased), so that two people signed in with one app
    /// registration and tenant keep two files. Sign-ins saved before graph-ics kept several have none.
    public var keyUser: String?
    /// When graph-ics last redeemed the refresh token (`graph-ics accounts` shows it); nil: never.
    public var refreshTokenUsedAt: Date?

    public init(
        authority: String,
        tenant: String,
        clientID: String,
        accessToken: String,
        expiresAt: Date,
        refreshToken: String?,
        scopes: [String],
        userName: String? = nil
    ) {
        self.authority = authority
        self.tenant = tenant
        self.clientID = clientID
        self.accessToken = accessToken
        self.expiresAt = expiresAt
        self.refreshToken = refreshToken
        self.scopes = scopes
        self.userName = userName
    }

    /// Names the account in the store: authority host, tenant and client id, and the user when
    /// ``keyUser`` is set, for example `login.microsoftonline.com/common/0f1e…#megan@contoso.com`.
    /// Lower-cased: all of them are case-insensitive.
    public var accountKey: String {
        let key = AccountTokens.accountKey(authority: authority, tenant: tenant, clientID: clientID)
        return keyUser.map { key + "#" + $0.lowercased() } ?? key
    }

    /// What `--account` and `graph-ics accounts` call the sign-in: its name, else its user, else its key.
    public var displayName: String { name ?? userName ?? accountKey }

    /// Whether `--account text` names this sign-in: its name, its user name or its key, ignoring case.
    public func isNamed(_ text: String) -> Bool {
        let wanted = text.lowercased()
        return [name, userName, accountKey].contains { $0?.lowercased() == wanted }
    }

    /// The ``accountKey`` an account signed in with these settings would have.
    public static func accountKey(authority: String, tenant: String, clientID: String) -> String {
        "\(authorityHost(authority))/\(tenant)/\(clientID)".lowercased()
    }

    /// `https://login.microsoftonline.com` → `login.microsoftonline.com`; a port is kept.
    static func authorityHost(_ authority: String) -> String {
        let url = URL(string: authority)
        var host = url?.host ?? authority
        if let port = url?.port { host += ":\(port)" }
        return host.lowercased()
    }

    enum CodingKeys: String, CodingKey {
        case authority, tenant
        case clientID = "clientId"
        case accessToken, expiresAt, refreshToken, scopes, userName, name, keyUser, refreshTokenUsedAt
    }

    public var description: String {
        let user = userName.map { " user \($0)" } ?? ""
        return "AccountTokens(\(accountKey)\(user), access token \(redacted(accessToken)) until "
            + "\(expiresAt.formatted(.iso8601)), refresh token \(redacted(refreshToken)), scopes "
            + "\(scopes.joined(separator: " ")))"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "accountKey": accountKey,
                "accessToken": redacted(accessToken),
                "expiresAt": expiresAt,
                "refreshToken": redacted(refreshToken),
                "scopes": scopes,
                "userName": userName as Any,
            ],
            displayStyle: .struct
        )
    }
}
