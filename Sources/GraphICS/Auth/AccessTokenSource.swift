import Foundation

/// Where `GraphClient` gets the bearer token for each request.
///
/// Implementations are safe to call from several threads at once. graph-ics has three: a token from the
/// store that refreshes itself (``RefreshingTokenSource``), an app-only token from a client secret
/// (``ClientCredentialsTokenSource``) and a token given in `GRAPH_ICS_ACCESS_TOKEN` (``StaticTokenSource``);
/// ``TokenSourceFactory`` picks one.
public protocol AccessTokenSource: Sendable {
    /// A token that stays valid for at least another 60 seconds, refreshing it first when needed.
    func accessToken() throws -> String

    /// The token to replay a request with after Graph answered 401 to `token`.
    ///
    /// Refreshes once if `token` is still the current one; returns the newer token if another thread has
    /// refreshed meanwhile; throws ``AuthError`` when no new token can be had.
    func tokenAfterRejection(of token: String) throws -> String
}

/// The clock and the sleep graph-ics' sign-in code uses, injectable so tests run without waiting.
public struct AuthClock: Sendable {
    /// The current instant.
    public var now: @Sendable () -> Date
    /// Blocks the calling thread for the given duration.
    public var sleep: @Sendable (Duration) -> Void

    public init(now: @escaping @Sendable () -> Date, sleep: @escaping @Sendable (Duration) -> Void) {
        self.now = now
        self.sleep = sleep
    }

    /// The wall clock and `Thread.sleep`.
    public static let system = AuthClock(
        now: { Date() },
        sleep: { duration in Thread.sleep(forTimeInterval: duration.seconds) }
    )
}

extension Duration {
    /// The duration in seconds, as a `TimeInterval`.
    var seconds: TimeInterval {
        let parts = components
        return TimeInterval(parts.seconds) + TimeInterval(parts.attoseconds) / 1e18
    }
}

/// How token-carrying values describe themselves: the length, never the text.
func redacted(_ secret: String?) -> String {
    guard let secret else { return "nil" }
    return "<redacted \(secret.utf8.count) chars>"
}
