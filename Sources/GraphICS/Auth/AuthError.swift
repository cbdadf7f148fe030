import Foundation

/// An error of graph-ics' sign-in layer: what went wrong and what the user can do about it.
///
/// Shaped like NIO's `FileSystemError`: a ``Code`` that callers switch on (the CLI maps
/// ``Code/notSignedIn`` and ``Code/tokenRejected`` to exit status 77), a one-sentence message that says
/// what to do next, and optionally the error underneath. Two errors are equal when their codes and
/// messages are; the underlying error is not compared.
///
/// Messages never contain an access token, a refresh token, a client secret or a device code: the
/// identity platform's `error_description` is shown, but any secret graph-ics sent in that request is
/// cut out of it first.
public struct AuthError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Code: Equatable, Sendable, CustomStringConvertible {
        /// No usable sign-in: nothing stored, or the stored sign-in expired or was revoked
        /// (`invalid_grant`, `interaction_required`). The user runs `graph-ics login`.
        case notSignedIn
        /// Microsoft Graph refused a token that graph-ics cannot refresh (`GRAPH_ICS_ACCESS_TOKEN`).
        case tokenRejected
        /// The saved sign-in does not carry the permission the command needs (read-only sign-in, write
        /// command). The user signs in again.
        case insufficientScope
        /// The user declined the sign-in request (`authorization_declined`, `access_denied`).
        case declined
        /// The device code expired before the user finished signing in (`expired_token` or `expires_in`).
        case deviceCodeExpired
        /// The identity platform did not recognise the device code (`bad_verification_code`).
        case badVerificationCode
        /// The identity platform refused a grant (`invalid_grant`); wrapped in ``notSignedIn`` for refreshes.
        case invalidGrant
        /// Any other OAuth error the identity platform returned, by its `error` code.
        case server(error: String)
        /// The identity platform answered with something that is not an OAuth reply.
        case malformedResponse
        /// The identity platform could not be reached (after retries).
        case transport
        /// The token store could not be read or written.
        case storeFailure
        /// A file or directory that holds secrets is not private to this user, or an endpoint is not HTTPS.
        case insecureConfiguration
        /// A setting is missing or invalid (client id, tenant, authority, secret).
        case invalidConfiguration

        public var description: String {
            switch self {
            case .notSignedIn: "notSignedIn"
            case .tokenRejected: "tokenRejected"
            case .insufficientScope: "insufficientScope"
            case .declined: "declined"
            case .deviceCodeExpired: "deviceCodeExpired"
            case .badVerificationCode: "badVerificationCode"
            case .invalidGrant: "invalidGrant"
            case .server(let error): "server(\(error))"
            case .malformedResponse: "malformedResponse"
            case .transport: "transport"
            case .storeFailure: "storeFailure"
            case .insecureConfiguration: "insecureConfiguration"
            case .invalidConfiguration: "invalidConfiguration"
            }
        }
    }

    public var code: Code
    /// One sentence a person can act on.
    public var message: String
    /// The error underneath (a transport error, an errno, the identity platform's own error), if any.
    public var underlying: (any Error)?

    public init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// Whether the user must sign in (again) to go on: the CLI exits with 77 for these.
    public var requiresSignIn: Bool {
        switch code {
        case .notSignedIn, .tokenRejected, .insufficientScope, .invalidGrant: true
        default: false
        }
    }

    public var description: String {
        if let underlying { return "\(message) (\(underlying))" }
        return message
    }

    public static func == (lhs: AuthError, rhs: AuthError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message
    }
}

extension AuthError {
    /// An error for a failed system call, naming the path and the errno text.
    static func posix(_ code: Code, _ what: String, path: String, errno number: Int32) -> AuthError {
        let reason = String(cString: strerror(number))
        return AuthError(code, "\(what) \(path): \(reason).", underlying: POSIXErrorBox(number: number))
    }
}

/// An errno value as an underlying error.
struct POSIXErrorBox: Error, Sendable, CustomStringConvertible {
    var number: Int32
    var description: String { "errno \(number)" }
}
