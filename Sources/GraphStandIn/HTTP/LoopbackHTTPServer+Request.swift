// The request value LoopbackHTTPServer hands its handler, and the decoding of request targets and query
// strings (also used for `application/x-www-form-urlencoded` bodies).
import Foundation

extension LoopbackHTTPServer {
    /// One parsed request as the handler sees it.
    public struct Request: Sendable {
        /// The request method as sent (`GET`, `POST`, …).
        public var method: String
        /// The raw request target, path plus query, exactly as it arrived (`/v1.0/me/calendarView?$top=10`).
        public var target: String
        /// The percent-decoded path without the query.
        public var path: String
        /// Query parameters, names and values percent-decoded (`+` reads as a space); the last one wins.
        public var query: [String: String]
        /// Header fields in arrival order, names as written.
        public var headers: [(name: String, value: String)]
        /// The request body (de-chunked); empty when there is none.
        public var body: Data
        /// Which connection the request came on: equal numbers mean the same (kept-alive) connection.
        public var connectionID: Int
        /// When the request head was read.
        public var receivedAt: Date

        /// A request from its parts; `path` and `query` are derived from `target`.
        public init(
            method: String,
            target: String,
            headers: [(name: String, value: String)] = [],
            body: Data = Data(),
            connectionID: Int = 0,
            receivedAt: Date = Date()
        ) {
            self.method = method
            self.target = target
            let (path, query) = Self.split(target: target)
            self.path = path
            self.query = query
            self.headers = headers
            self.body = body
            self.connectionID = connectionID
            self.receivedAt = receivedAt
        }

        /// The first value of a header field, matched case-insensitively.
        public func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }

        /// Splits a request target into its decoded path and decoded query parameters.
        static func split(target: String) -> (path: String, query: [String: String]) {
            var rawPath = target
            var rawQuery = ""
            if let mark = target.firstIndex(of: "?") {
                rawPath = String(target[..<mark])
                rawQuery = String(target[target.index(after: mark)...])
            }
            // An absolute-form target (`http://host/path`) is reduced to its path.
            if rawPath.hasPrefix("http://") || rawPath.hasPrefix("https://"),
                let schemeEnd = rawPath.range(of: "://")
            {
                let rest = rawPath[schemeEnd.upperBound...]
                rawPath = rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? "/"
            }
            let path = rawPath.removingPercentEncoding ?? rawPath
            return (path, decodeQuery(rawQuery))
        }

        /// Decodes `a=1&b=x%20y` form-style: `+` is a space, percent escapes decoded, the last name wins.
        static func decodeQuery(_ raw: String) -> [String: String] {
            var result: [String: String] = [:]
            for pair in raw.split(separator: "&", omittingEmptySubsequences: true) {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = decodeComponent(String(parts[0]))
                let value = parts.count > 1 ? decodeComponent(String(parts[1])) : ""
                result[name] = value
            }
            return result
        }

        static func decodeComponent(_ raw: String) -> String {
            let spaced = raw.replacingOccurrences(of: "+", with: " ")
            return spaced.removingPercentEncoding ?? spaced
        }
    }
}
