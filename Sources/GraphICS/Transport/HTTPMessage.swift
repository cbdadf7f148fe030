import Foundation

/// One HTTP request as graph-ics sends it: a value, so it can be replayed after a refresh or a 429.
public struct HTTPRequest: Sendable, Equatable {
    public var method: String
    public var url: URL
    /// Header fields in order; names as written (matching is case-insensitive).
    public var headers: [(name: String, value: String)]
    public var body: Data?
    /// Whole-transfer timeout; `nil` uses the transport's default.
    public var timeout: Duration?

    public init(
        method: String,
        url: URL,
        headers: [(name: String, value: String)] = [],
        body: Data? = nil,
        timeout: Duration? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    /// The first value of a header field, matched case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Replaces every field of that name with one value.
    public mutating func setHeader(_ name: String, _ value: String) {
        headers.removeAll { $0.name.caseInsensitiveCompare(name) == .orderedSame }
        headers.append((name, value))
    }

    public static func == (lhs: HTTPRequest, rhs: HTTPRequest) -> Bool {
        lhs.method == rhs.method && lhs.url == rhs.url && lhs.body == rhs.body && lhs.timeout == rhs.timeout
            && lhs.headers.map(\.name) == rhs.headers.map(\.name)
            && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }
}

/// A complete HTTP response (status line, header fields of the final response, whole body).
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: Data

    public init(status: Int, headers: [(name: String, value: String)] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of a header field, matched case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    public static func == (lhs: HTTPResponse, rhs: HTTPResponse) -> Bool {
        lhs.status == rhs.status && lhs.body == rhs.body
            && lhs.headers.map(\.name) == rhs.headers.map(\.name)
            && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }
}

/// Sends one request and returns its whole response, blocking the calling thread.
///
/// Implementations are safe to call from several threads at once (graph-ics keeps at most four
/// requests in flight per mailbox). A transport does not retry: `RetryPolicy` decides that. It throws
/// `CurlError` for failures below HTTP (refused, reset, timed out, TLS, response too large); any HTTP
/// status, 4xx and 5xx included, is a response.
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest) throws -> HTTPResponse
}
