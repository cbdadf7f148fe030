import Foundation

/// The bearer token given in `GRAPH_ICS_ACCESS_TOKEN`, used as is.
///
/// graph-ics cannot refresh it: after a 401 ``tokenAfterRejection(of:)`` throws ``AuthError`` with
/// ``AuthError/Code/tokenRejected``. Its description shows the token's length only.
/// Thread-safety: immutable.
public struct StaticTokenSource: AccessTokenSource, CustomStringConvertible, CustomDebugStringConvertible {
    /// The environment variable graph-ics reads the token from.
    public static let environmentVariable = "GRAPH_ICS_ACCESS_TOKEN"

    private let token: String

    /// A source for this token (surrounding white space removed).
    public init(token: String) {
        self.token = token.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The source for `GRAPH_ICS_ACCESS_TOKEN`, or `nil` when it is unset or empty.
    public static func fromEnvironment(_ environment: [String: String]) -> StaticTokenSource? {
        guard let value = environment[environmentVariable] else { return nil }
        let source = StaticTokenSource(token: value)
        return source.token.isEmpty ? nil : source
    }

    public func accessToken() throws -> String { token }

    public func tokenAfterRejection(of token: String) throws -> String {
        throw AuthError(
            .tokenRejected,
            "Microsoft Graph refused the access token in GRAPH_ICS_ACCESS_TOKEN and graph-ics cannot refresh it; "
                + "set a new token, or unset GRAPH_ICS_ACCESS_TOKEN and run `graph-ics login`."
        )
    }

    public var description: String { "StaticTokenSource(\(redacted(token)))" }
    public var debugDescription: String { description }
}
