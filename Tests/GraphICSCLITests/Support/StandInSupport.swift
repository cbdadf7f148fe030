import Foundation
import GraphICS
import GraphStandIn
import Testing

/// A Graph stand-in on loopback and the environment that points the `graph-ics` binary at it, with a
/// private configuration folder. Each test makes its own, so tests run in parallel without sharing state.
final class StandInAccount {
    let standIn: GraphStandIn
    /// A fresh folder for `GRAPH_ICS_CONFIG_DIR` (and for output files).
    let folder: URL
    let clientID = "11111111-2222-3333-4444-555555555555"

    init() throws {
        standIn = try GraphStandIn()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("graph-ics-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit {
        standIn.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// An account whose mailbox (Alex Example's) is in "W. Europe Standard Time", signed in with a token.
    static func inBerlin() throws -> (account: StandInAccount, environment: [String: String]) {
        let account = try StandInAccount()
        account.standIn.addUser(
            displayName: "Alex Example", mail: "alex@contoso.example", mailboxTimeZone: "W. Europe Standard Time")
        return (account, account.tokenEnvironment())
    }

    /// The configuration folder graph-ics uses in these tests.
    var configDirectory: URL { folder.appendingPathComponent("config") }

    /// Points graph-ics at the stand-in; no sign-in.
    var baseEnvironment: [String: String] {
        [
            "GRAPH_ICS_GRAPH_URL": standIn.baseURL,
            "GRAPH_ICS_AUTHORITY": standIn.authority,
            "GRAPH_ICS_CONFIG_DIR": configDirectory.path,
            "GRAPH_ICS_CLIENT_ID": clientID,
        ]
    }

    /// Signed in with a bearer token in `GRAPH_ICS_ACCESS_TOKEN` (no refresh possible).
    func tokenEnvironment(scopes: [String] = GraphStandIn.defaultDelegatedScopes) -> [String: String] {
        var environment = baseEnvironment
        environment["GRAPH_ICS_ACCESS_TOKEN"] = standIn.issueAccessToken(scopes: scopes)
        return environment
    }

    /// Signed in the way `graph-ics login` leaves it: a saved account (access + refresh token) in the
    /// configuration folder. `accessTokenExpired` makes the first request need a refresh.
    func savedSignInEnvironment(accessTokenExpired: Bool = false) throws -> [String: String] {
        let configuration = AuthConfiguration(
            authority: standIn.authority, tenant: "common", clientID: clientID,
            graphBaseURL: try #require(URL(string: standIn.baseURL)), configDirectory: configDirectory)
        let account = AccountTokens(
            authority: standIn.authority,
            tenant: "common",
            clientID: clientID,
            accessToken: standIn.issueAccessToken(),
            expiresAt: accessTokenExpired ? Date().addingTimeInterval(-60) : Date().addingTimeInterval(3600),
            refreshToken: standIn.issueRefreshToken(clientID: clientID),
            scopes: ["offline_access", "User.Read", "MailboxSettings.Read", "Calendars.ReadWrite"]
        )
        try TokenStore(configuration: configuration).save(account)
        return baseEnvironment
    }

    /// Runs the built graph-ics against the stand-in with `environment`.
    func run(
        _ arguments: [String], environment: [String: String], stdin: StandardInput = .null,
        timeout: Double = defaultTimeout
    ) throws -> ProcessResult {
        try graphICS(arguments, stdin: stdin, in: folder, environment: environment, timeout: timeout)
    }
}
