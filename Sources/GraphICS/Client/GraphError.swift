import Foundation

/// An error of graph-ics' Graph client: what Microsoft Graph (or the way to it) refused, while doing what.
///
/// Shaped like NIO's `FileSystemError`: a ``Kind`` that callers switch on (the CLI turns it into an exit
/// status), the HTTP status and Graph's own `error.code` and `error.message` when Graph answered, the
/// operation graph-ics was doing (`reading calendarView`), the `request-id` Microsoft support asks for, and
/// the error underneath (a `CurlError`, a decoding error) when there is one.
///
/// Sign-in failures are not wrapped: the client lets `AuthError` from its token source through unchanged.
/// Neither the message nor the description ever contains a token or an `Authorization` header.
public struct GraphError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What kind of failure this is, in the terms of graph-ics' exit statuses.
    public enum Kind: String, Equatable, Sendable, CustomStringConvertible {
        /// Graph refused the credentials: 401 even after one token refresh, or 403 (no permission on the
        /// mailbox or calendar). Exit status 77.
        case unauthorized
        /// Graph stayed unavailable: every try was throttled (429), failed with 5xx or lost its
        /// connection, until the retry policy gave up. Exit status 69.
        case unavailable
        /// A failure that may pass, met on a request graph-ics must not repeat on its own (a create whose
        /// connection broke: it may or may not exist now). Exit status 75.
        case temporary
        /// The event, calendar or user does not exist (404).
        case notFound
        /// Graph refused the request as malformed or invalid (400, 405, 409, 412, 413, 415, 422).
        case badRequest
        /// Anything else: a response graph-ics cannot read, a paging link to another host, an
        /// unexpected status.
        case other

        public var description: String { rawValue }
    }

    /// The kind of failure.
    public var kind: Kind
    /// What graph-ics was doing, as a phrase: `reading calendarView`, `creating an event`.
    public var operation: String
    /// The HTTP status of Graph's last answer; `nil` when no answer came.
    public var status: Int?
    /// Graph's `error.code` (`ErrorItemNotFound`, `ApplicationThrottled`), when Graph sent one.
    public var code: String?
    /// Graph's `error.message`, or graph-ics' own sentence when Graph said nothing usable.
    public var message: String
    /// Graph's `request-id` (from the response header, else from `error.innerError`), for support.
    public var requestID: String?
    /// The error underneath, if any (a `CurlError` for a failure below HTTP).
    public var underlying: (any Error & Sendable)?
    /// How many times graph-ics tried, when it gave up on a host it could not reach.
    public var attempts: Int?

    public init(
        _ kind: Kind,
        operation: String,
        status: Int? = nil,
        code: String? = nil,
        message: String,
        requestID: String? = nil,
        underlying: (any Error & Sendable)? = nil
    ) {
        self.kind = kind
        self.operation = operation
        self.status = status
        self.code = code
        self.message = message
        self.requestID = requestID
        self.underlying = underlying
    }

    /// One sentence: the operation, the status and Graph's code, the message, and the request-id.
    public var description: String {
        if let curl = underlying as? CurlError, curl.code == .couldNotConnect {
            // Nothing reached Graph: name the host once, not libcurl's sentence blamed on Graph.
            let tries = attempts.map { $0 > 1 ? " (tried \($0) times)" : "" } ?? ""
            return "\(message) while \(operation)\(tries); check the network and the Graph URL."
        }
        var text = "Microsoft Graph failed while \(operation)"
        if let status {
            text += ": HTTP \(status)"
            if let code, !code.isEmpty { text += " \(code)" }
        }
        var message = message.trimmingCharacters(in: .whitespacesAndNewlines)
        while message.hasSuffix(".") { message.removeLast() }
        if !message.isEmpty { text += (status == nil ? ": " : ", ") + message }
        // A DecodingError's description is a Swift dump; its sense is in the message already (key path: reason).
        if let underlying, !(underlying is DecodingError) {
            let detail = "\(underlying)"
            if !message.isEmpty, detail.hasPrefix(message) {
                // The message was taken from the underlying error (a CurlError's): add only what it adds,
                // such as "(libcurl error 1)", instead of repeating the sentence.
                let rest = detail.dropFirst(message.count).trimmingCharacters(in: CharacterSet(charactersIn: ". "))
                if !rest.isEmpty { text += " " + rest }
            } else {
                text += " (\(detail))"
            }
        }
        if let requestID { text += " [request-id \(requestID)]" }
        return text + "."
    }

    /// Two errors are equal when everything but the underlying error is; underlying errors are compared
    /// by their descriptions.
    public static func == (lhs: GraphError, rhs: GraphError) -> Bool {
        lhs.kind == rhs.kind && lhs.operation == rhs.operation && lhs.status == rhs.status && lhs.code == rhs.code
            && lhs.message == rhs.message && lhs.requestID == rhs.requestID
            && lhs.underlying.map { "\($0)" } == rhs.underlying.map { "\($0)" }
    }
}

extension GraphError {
    /// The kind graph-ics gives a final (not retried, or retried in vain) HTTP status.
    static func kind(forStatus status: Int) -> Kind {
        switch status {
        case 401, 403: .unauthorized
        case 404, 410: .notFound
        case 400, 405, 409, 411, 412, 413, 414, 415, 416, 422: .badRequest
        case 408, 425: .temporary
        case 429, 500...599: .unavailable
        default: .other
        }
    }

    /// The error for a Graph answer that is not a success, read from its error body:
    /// `{"error": {"code": "…", "message": "…", "innerError": {"request-id": "…"}}}`.
    ///
    /// `kind` overrides the status's own kind (a 401 after the refresh is `.unauthorized` either way; a
    /// 429 after the policy gave up is `.unavailable`).
    static func response(_ response: HTTPResponse, operation: String, kind: Kind? = nil) -> GraphError {
        let body = GraphErrorBody(response.body)
        let requestID = response.header("request-id") ?? body.requestID
        let message = body.message ?? defaultMessage(forStatus: response.status)
        return GraphError(
            kind ?? Self.kind(forStatus: response.status),
            operation: operation,
            status: response.status,
            code: body.code,
            message: message,
            requestID: requestID
        )
    }

    /// The error for a response that did not have the shape graph-ics expected.
    static func malformed(_ what: String, operation: String, response: HTTPResponse? = nil) -> GraphError {
        GraphError(
            .other,
            operation: operation,
            status: response?.status,
            message: "Graph's answer could not be read: \(what)",
            requestID: response?.header("request-id")
        )
    }

    private static func defaultMessage(forStatus status: Int) -> String {
        switch status {
        case 401: "the access token was refused; sign in again with 'graph-ics login'"
        case 403: "access denied: the signed-in account may not use this mailbox or calendar"
        case 404: "not found"
        case 429: "too many requests (throttled)"
        case 500...599: "the service is unavailable"
        default: "unexpected HTTP status"
        }
    }
}

/// The parts of Graph's error body graph-ics reports.
struct GraphErrorBody {
    var code: String?
    var message: String?
    var requestID: String?

    init(_ data: Data) {
        guard !data.isEmpty,
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let error = object["error"] as? [String: Any]
        else { return }
        code = (error["code"] as? String).flatMap { $0.isEmpty ? nil : $0 }
        message = (error["message"] as? String).flatMap { $0.isEmpty ? nil : $0 }
        let inner = (error["innerError"] ?? error["innererror"]) as? [String: Any]
        requestID = inner?["request-id"] as? String
    }
}
