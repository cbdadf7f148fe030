import Foundation

/// Chooses how a graph-ics command authenticates, from the environment and the token store.
///
/// In this order:
/// 1. `GRAPH_ICS_ACCESS_TOKEN` set: ``StaticTokenSource``.
/// 2. A client secret configured (`GRAPH_ICS_CLIENT_SECRET` or `GRAPH_ICS_CLIENT_SECRET_FILE`) and a
///    user named (`--user`): ``ClientCredentialsTokenSource`` (app-only, `/users/{upn}`).
/// 3. A stored account matching the configuration: ``RefreshingTokenSource``.
/// 4. Otherwise ``AuthError`` with ``AuthError/Code/notSignedIn``: "run `graph-ics login`".
public enum TokenSourceFactory {
    /// The token source for a command.
    ///
    /// - Parameters:
    ///   - need: what the command does; a stored sign-in without write permission is refused for `.write`.
    ///   - user: the UPN given with `--user`, if any.
    public static func make(
        need: AccessNeed,
        user: String?,
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
        let account = try storedAccount(for: configuration, in: store)
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
    /// account, so after `graph-ics login --client-id X --tenant T` other commands need neither. When
    /// several accounts match, the one with exactly the defaulted key wins; otherwise the user is asked
    /// to name one.
    public static func storedAccount(
        for configuration: AuthConfiguration,
        in store: TokenStore
    ) throws(AuthError) -> AccountTokens {
        let accounts = try store.list()
        let candidates = accounts.filter { account in
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
            if let exact = candidates.first(where: { $0.accountKey == key }) { return exact }
        }
        throw AuthError(
            .notSignedIn,
            "graph-ics has \(candidates.count) saved sign-ins; choose one with GRAPH_ICS_TENANT and GRAPH_ICS_CLIENT_ID."
        )
    }
}
