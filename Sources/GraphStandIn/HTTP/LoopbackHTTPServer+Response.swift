// What a LoopbackHTTPServer handler returns: a response to write, or one of the transport faults a test
// injects.
import Foundation

extension LoopbackHTTPServer {
    /// One response to write. `Content-Length` is always computed by the server.
    public struct Response: Sendable {
        /// The status code; the reason phrase is the server's.
        public var status: Int
        /// Header fields to write (`Content-Length`, `Connection` and `Transfer-Encoding` are the server's).
        public var headers: [(name: String, value: String)]
        /// The whole body (not written for 204 and 304).
        public var body: Data

        /// A response from its parts.
        public init(status: Int, headers: [(name: String, value: String)] = [], body: Data = Data()) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// A JSON response: `object` serialised with JSONSerialization, `Content-Type: application/json`.
        ///
        /// An object JSONSerialization cannot write yields a 500 with a plain-text explanation, so a test
        /// mistake shows up as a failing request instead of a crash.
        public static func json(_ status: Int, _ object: Any) -> Response {
            guard JSONSerialization.isValidJSONObject(object),
                let body = try? JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes])
            else {
                return text(500, "stand-in handler returned a value that is not JSON")
            }
            return Response(
                status: status, headers: [("Content-Type", "application/json; charset=utf-8")], body: body)
        }

        /// A plain-text response.
        public static func text(_ status: Int, _ text: String) -> Response {
            Response(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Data(text.utf8))
        }

        /// The first value of a header field, matched case-insensitively.
        public func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    /// What the server does with one request: answer it, or one of the faults the transport must survive.
    public enum Action: Sendable {
        /// Write this response (the connection stays open unless the request asked to close it).
        case respond(Response)
        /// Wait, then write the response; the request counts as in flight while waiting.
        case delayed(Duration, Response)
        /// Close the connection without writing anything (the client sees an empty reply or a reset).
        case closeConnection
        /// Write these bytes verbatim, then close the connection.
        case raw(Data)
        /// Write the head with the full `Content-Length`, then only the first `keepingBytes` body bytes, then
        /// close: the client sees a partial transfer.
        case truncated(Response, keepingBytes: Int)
    }
}
