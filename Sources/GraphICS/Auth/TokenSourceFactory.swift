import Foundation

/// Chooses how a graph-ics command authenticates, from the environment and the token store.
///
/// In this order:
/// 1. `GRAPH_ICS_ACCESS_TOKEN` set: ``StaticTokenSource``.
/// 2. A client secret configured (`GRAPH_ICS_CLIENT_SECRET` or `GRAPH_ICS_CLIENT_SECRET_FILE`) and a
///    user named (`--user`): ``ClientCredentialsTokenSource`` (app-only, `/users/{upn}`).
/// 3. A stored account matching the configuration (and `--account`, or the configured default):
///    ``RefreshingTokenSource``.
/// 4. Otherwise ``AuthError`` with ``AuthError/Code/notSignedIn``: "run `graph-ics login`".
public enum TokenSourceFactory {
    /// The token source for a command.
    ///
    /// - Parameters:
    ///   - need: what the command does; a stored sign-in without write permission is refused for `.write`.
    ///   - user: the UPN given with `--user`, if any.
    ///   - account: which saved sign-in to use (`--account`, else the configured default), if any.
    public static func make(
        need: AccessNeed,
        user: String?,
        account accountName: String? = nil,
        configuration: AuthConfiguration,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        transport: any HTTPTransport,
        clock: AuthClock = .system
    ) throws(AuthError) -> any AccessTokenSource {
        if let source = StaticTokenSource.fromEnvironment(environment) {
            return source
        }
        if let user, !user.isEmpty, ClientCredentialsTokenSource.isConfigured(in: environment) {
            return try ClientCredentialsTokenSource(
                environment: environment,
                configuration: configuration,
                transport: transport,
                clock: clock
            )
        }
        let store = TokenStore(configuration: configuration)
        let account = try storedAccount(for: configuration, in: store, named: accountName)
        guard need.isSatisfied(by: account.scopes) else {
            throw AuthError(
                .insufficientScope,
                "The saved sign-in for \(account.accountKey) may only read calendars; run `graph-ics login` again "
                    + "to let graph-ics add events."
            )
        }
        return RefreshingTokenSource(account: account, store: store, transport: transport, clock: clock)
    }

    /// The stored account the configuration refers to.
    ///
    /// Settings the user gave (authority, tenant, client id) must match; settings left out match any
    /// account, so after `graph-ics login --client-id X --tenant T` other commands need neither. With
    /// `name` (`--account`, or the configured default) the one sign-in of that name, user name or key
    /// is used. Otherwise, when several accounts match, the one with exactly the defaulted key wins, or
    /// the user is asked to choose one with `--account`.
    public static func storedAccount(
        for configuration: AuthConfiguration,
        in store: TokenStore,
        named name: String? = nil
    ) throws(AuthError) -> AccountTokens {
        let candidates = try matching(configuration, in: store)
        if let name, !name.isEmpty { return try account(named: name, among: candidates) }
        if candidates.count == 1, let only = candidates.first { return only }
        if candidates.isEmpty {
            throw AuthError(.notSignedIn, "graph-ics is not signed in; run `graph-ics login`.")
        }
        if let clientID = configuration.clientID {
            let key = AccountTokens.accountKey(
                authority: configuration.resolvedAuthority,
                tenant: configuration.resolvedTenant,
                clientID: clientID
            )
            let exact = candidates.filter {
                AccountTokens.accountKey(authority: $0.authority, tenant: $0.tenant, clientID: $0.clientID) == key
            }
            if exact.count == 1, let only = exact.first { return only }
        }
        throw AuthError(
            .notSignedIn,
            "graph-ics has \(candidates.count) saved sign-ins (\(names(candidates))); choose one with --account NAME, "
                + "or make one the default with `graph-ics accounts default NAME`."
        )
    }

    /// The one candidate `name` names (``AccountTokens/isNamed(_:)``).
    public static func account(named name: String, among candidates: [AccountTokens]) throws(AuthError) -> AccountTokens
    {
        let named = candidates.filter { $0.isNamed(name) }
        if named.count == 1, let only = named.first { return only }
        if candidates.isEmpty {
            throw AuthError(.notSignedIn, "graph-ics is not signed in; run `graph-ics login`.")
        }
        if named.isEmpty {
            throw AuthError(
                .notSignedIn,
                "no saved sign-in is named '\(name)' (there are: \(names(candidates))); see `graph-ics accounts`.")
        }
        // Names, not the long keys: an unnamed one is told apart by its tenant, and can be named.
        let labels = named.map { $0.name ?? "unnamed, tenant \($0.tenant)" }
        let unnamed = named.contains { $0.name == nil }
        throw AuthError(
            .notSignedIn,
            "\(named.count) saved sign-ins answer to '\(name)' (\(names(labels))); give --account "
                + (unnamed
                    ? "a name (sign in again with --name NAME to name an unnamed one; see `graph-ics accounts`)."
                    : "one of these names (see `graph-ics accounts`)."))
    }

    public static func names(_ accounts: [AccountTokens]) -> String {
        names(accounts.map(\.displayName))
    }

    public static func names(_ list: [String]) -> String {
        list.map { "'\($0)'" }.joined(separator: ", ")
    }

    /// The stored accounts whose authority, tenant and client id match those the user gave.
    public static func matching(
        _ configuration: AuthConfiguration, in store: TokenStore
    ) throws(AuthError) -> [AccountTokens] {
        let accounts = try store.list()
        return accounts.filter { account in
            if let authority = configuration.explicitAuthority,
                AccountTokens.authorityHost(authority) != AccountTokens.authorityHost(account.authority)
            {
                return false
            }
            if let tenant = configuration.tenant, tenant.lowercased() != account.tenant.lowercased() { return false }
            if let clientID = configuration.clientID, clientID.lowercased() != account.clientID.lowercased() {
                return false
            }
            return true
        }
    }
}
