import Foundation
import Synchronization

/// Delegated tokens from the token store, refreshed when they near expiry or Graph rejects them.
///
/// ``accessToken()`` refreshes when the current token expires within ``refreshMargin`` (5 minutes);
/// ``tokenAfterRejection(of:)`` refreshes once after a 401. Every refresh writes the new access and
/// refresh tokens to the store at once (atomically), since the identity platform may invalidate the old
/// refresh token. A refresh, from re-reading the store to writing the new tokens, holds the account's
/// file lock (``TokenStore/withLock(accountKey:timeout:_:)``), so `serve`, a `sync` from cron and one-shot
/// commands refresh one at a time: the one that waited re-reads the store and uses the token the other
/// process has just written, or refreshes with the newest refresh token stored, never with one already
/// spent.
///
/// A refresh the identity platform refuses (`invalid_grant`, `interaction_required`, …) throws
/// ``AuthError`` with ``AuthError/Code/notSignedIn`` telling the user to run `graph-ics login`.
///
/// If the sign-in service cannot be reached when a token merely nears expiry, the current token is
/// returned while it has at least 60 seconds left.
///
/// Thread-safety: all state is behind one mutex, held across the refresh request (and the wait for the
/// file lock), so concurrent callers wait for a single refresh and all get its token.
public final class RefreshingTokenSource: AccessTokenSource, Sendable {
    /// Tokens expiring within this are refreshed before use.
    public let refreshMargin: Duration
    private let store: TokenStore
    private let client: TokenEndpointClient
    private struct State {
        var account: AccountTokens
        var refreshes = 0
    }

    private let state: Mutex<State>

    /// - Parameters:
    ///   - account: the stored account to use; its authority, tenant and client id are used to refresh.
    ///   - store: where refreshed tokens are written.
    ///   - transport: sends the refresh requests.
    ///   - clock: the clock that decides expiry (and the retry sleep).
    public init(
        account: AccountTokens,
        store: TokenStore,
        transport: any HTTPTransport,
        clock: AuthClock = .system,
        refreshMargin: Duration = .seconds(300)
    ) {
        self.state = Mutex(State(account: account))
        self.store = store
        self.client = TokenEndpointClient(transport: transport, clock: clock)
        self.refreshMargin = refreshMargin
    }

    /// The account as it is now (after any refresh), for `whoami`.
    public var currentAccount: AccountTokens {
        state.withLock { $0.account }
    }

    /// How many refresh requests this source has made.
    public var refreshCount: Int {
        state.withLock { $0.refreshes }
    }

    public func accessToken() throws -> String {
        try state.withLock { state throws(AuthError) in
            if isFresh(state.account) { return state.account.accessToken }
            do throws(AuthError) {
                return try refresh(&state, rejected: nil)
            } catch {
                // The sign-in service is unreachable, but the token still has a while to go: use it.
                let remaining = state.account.expiresAt.timeIntervalSince(client.clock.now())
                if error.code == .transport, remaining >= 60 { return state.account.accessToken }
                throw error
            }
        }
    }

    public func tokenAfterRejection(of token: String) throws -> String {
        try state.withLock { state throws(AuthError) in
            if state.account.accessToken != token, isFresh(state.account) { return state.account.accessToken }
            return try refresh(&state, rejected: token)
        }
    }

    /// Records the user's sign-in name (learned from `GET /me`) in memory and in the store.
    ///
    /// The name is written into the stored account as it is now, under the account's lock: tokens another
    /// process has renewed meanwhile are kept, not replaced by this process's older ones.
    public func recordUserName(_ name: String) throws {
        try state.withLock { state throws(AuthError) in
            guard state.account.userName != name else { return }
            try store.withLock(accountKey: state.account.accountKey) { () throws(AuthError) in
                if let stored = try? store.load(accountKey: state.account.accountKey) { state.account = stored }
                state.account.userName = name
                try store.save(state.account)
            }
        }
    }

    private func isFresh(_ tokens: AccountTokens) -> Bool {
        tokens.expiresAt.timeIntervalSince(client.clock.now()) > refreshMargin.seconds
    }

    /// Refreshes the tokens under the account's file lock; the caller holds ``state``.
    private func refresh(_ state: inout State, rejected: String?) throws(AuthError) -> String {
        try store.withLock(accountKey: state.account.accountKey) { () throws(AuthError) in
            // Another graph-ics process may have refreshed already.
            if let stored = try? store.load(accountKey: state.account.accountKey) {
                if stored.accessToken != state.account.accessToken, stored.accessToken != rejected,
                    isFresh(stored)
                {
                    state.account = stored
                    return stored.accessToken
                }
                // The stored refresh token is the newest: the one in memory may have been spent since.
                state.account = stored
            }
            return try redeemRefreshToken(&state)
        }
    }

    /// Sends the refresh request and stores what it returns; the caller holds ``state`` and the file lock.
    private func redeemRefreshToken(_ state: inout State) throws(AuthError) -> String {
        guard let refreshToken = state.account.refreshToken else {
            throw AuthError(
                .notSignedIn,
                "The saved sign-in for \(state.account.accountKey) has expired and cannot be renewed; run `graph-ics login`."
            )
        }
        let endpoint = try AuthConfiguration.endpoint(
            authority: state.account.authority, tenant: state.account.tenant, "token")
        var scopes = state.account.scopes.filter {
            !["openid", "profile", "email"].contains($0.lowercased())
        }
        if !scopes.contains(where: { $0.lowercased() == "offline_access" }) {
            scopes.insert("offline_access", at: 0)
        }
        let secrets = [refreshToken, state.account.accessToken]
        let sent = client.clock.now()
        state.refreshes += 1
        let reply = try client.post(
            endpoint,
            [
                ("client_id", state.account.clientID),
                ("grant_type", "refresh_token"),
                ("refresh_token", refreshToken),
                ("scope", scopes.joined(separator: " ")),
            ],
            secrets: secrets
        )
        if let error = reply.error {
            let underlying = reply.serverError("Renewing the sign-in", secrets: secrets)
            switch error {
            case "invalid_grant", "interaction_required", "consent_required", "login_required":
                throw AuthError(
                    .notSignedIn,
                    "The saved sign-in for \(state.account.accountKey) has expired or was revoked; run `graph-ics login`.",
                    underlying: underlying
                )
            default:
                throw underlying
            }
        }
        var renewed = try AccountTokens(
            reply: reply,
            sentAt: sent,
            authority: state.account.authority,
            tenant: state.account.tenant,
            clientID: state.account.clientID,
            previous: state.account
        )
        renewed.refreshTokenUsedAt = sent
        state.account = renewed
        try store.save(renewed)
        return renewed.accessToken
    }
}
