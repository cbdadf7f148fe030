// What the stand-in remembers of each request it served, for tests to assert on.
import Foundation

extension GraphStandIn {
    /// One request as it reached the stand-in, for assertions.
    public struct RecordedRequest: Sendable {
        /// The method as sent (upper-case for `$batch` parts).
        public var method: String
        /// Path and query as sent (for a `$batch` part: `/v1.0` plus the part's relative url).
        public var target: String
        /// The percent-decoded path.
        public var path: String
        /// Decoded query parameters.
        public var query: [String: String]
        /// Header fields in arrival order (a `$batch` part: its own headers plus the envelope's
        /// `Authorization`).
        public var headers: [(name: String, value: String)]
        /// The body as received (a `$batch` part: its `body` re-serialised as JSON).
        public var body: Data
        /// When the request head was read (a `$batch` part: when its envelope's head was read).
        public var receivedAt: Date
        /// True for a request that arrived inside a `$batch` envelope.
        public var viaBatch: Bool
        /// The part's `id` inside its `$batch`, nil for plain HTTP requests.
        public var batchRequestID: String?
        /// The connection the request (or its `$batch` envelope) came on: equal ids mean a reused connection.
        public var connectionID: Int
        /// The status answered (nil while the request is being served, or when a fault answered it without one).
        public var status: Int?
        /// True when the request came sooner after a 429 than its `Retry-After` allowed (see
        /// `retryAfterViolations`).
        public var violatedRetryAfter = false

        /// The first value of a header field, matched case-insensitively.
        public func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }

        /// The body parsed as JSON, nil when it is empty or not JSON.
        public var jsonBody: Any? {
            body.isEmpty ? nil : try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])
        }

        /// The body parsed as an `application/x-www-form-urlencoded` form (token endpoint requests).
        public var formBody: [String: String] {
            LoopbackHTTPServer.Request.decodeQuery(String(decoding: body, as: UTF8.self))
        }
    }
}
