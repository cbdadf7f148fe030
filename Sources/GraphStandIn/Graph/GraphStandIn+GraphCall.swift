// One Graph request as the endpoints see it, whether it came on the wire or inside a `$batch`.
import Foundation

extension GraphStandIn {
    /// One Graph request to serve, from the wire or from a `$batch` part.
    struct GraphCall {
        var method: String
        var target: String
        var path: String
        /// Query parameters with lower-cased names (OData names and Graph's parameters ignore case).
        var query: [String: String]
        var headers: [(name: String, value: String)]
        var body: Data
        var receivedAt: Date
        var viaBatch: Bool
        var batchRequestID: String?
        var connectionID: Int

        init(_ request: LoopbackHTTPServer.Request, viaBatch: Bool, batchRequestID: String?) {
            connectionID = request.connectionID
            method = request.method.uppercased()
            target = request.target
            path = request.path
            var lowered: [String: String] = [:]
            for (name, value) in request.query { lowered[name.lowercased()] = value }
            query = lowered
            headers = request.headers
            body = request.body
            receivedAt = request.receivedAt
            self.viaBatch = viaBatch
            self.batchRequestID = batchRequestID
        }

        func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }

        /// The raw query string as sent, without the leading `?`.
        var rawQuery: String {
            target.firstIndex(of: "?").map { String(target[target.index(after: $0)...]) } ?? ""
        }

        /// The raw path as sent (still percent-encoded).
        var rawPath: String {
            target.firstIndex(of: "?").map { String(target[..<$0]) } ?? target
        }
    }
}
