import Foundation
import GraphICS

/// An in-process ``HTTPTransport`` for tests: answers from a script and logs every request.
///
/// Answers come first from the queue (``enqueue(_:)``, ``enqueueJSON(_:_:headers:)``,
/// ``enqueue(error:)``), in order; when the queue is empty, from the responder closure given at
/// creation; with neither, `send` throws ``FakeTransport/Unscripted``. Thread-safe: one lock guards the
/// queue and the log (the responder runs outside it, so it may block to let threads pile up).
final class FakeTransport: HTTPTransport, @unchecked Sendable {
    /// Thrown when a request arrives that the script has no answer for.
    struct Unscripted: Error, CustomStringConvertible {
        var method: String
        var url: URL
        var description: String { "FakeTransport has no answer for \(method) \(url)" }
    }

    typealias Responder = @Sendable (HTTPRequest) throws -> HTTPResponse

    private let lock = NSLock()
    private var queue: [Result<HTTPResponse, any Error>] = []
    private var log: [HTTPRequest] = []
    private let responder: Responder?

    init(responder: Responder? = nil) {
        self.responder = responder
    }

    /// Every request sent so far, in order.
    var requests: [HTTPRequest] {
        lock.withLock { log }
    }

    /// How many scripted answers are still queued.
    var pendingCount: Int {
        lock.withLock { queue.count }
    }

    func enqueue(_ response: HTTPResponse) {
        lock.withLock { queue.append(.success(response)) }
    }

    func enqueue(error: any Error) {
        lock.withLock { queue.append(.failure(error)) }
    }

    /// Queues a JSON response built from a dictionary or array.
    func enqueueJSON(_ status: Int, _ object: Any, headers: [(name: String, value: String)] = []) {
        enqueue(FakeTransport.json(status, object, headers: headers))
    }

    func send(_ request: HTTPRequest) throws -> HTTPResponse {
        let next: Result<HTTPResponse, any Error>? = lock.withLock {
            log.append(request)
            return queue.isEmpty ? nil : queue.removeFirst()
        }
        if let next { return try next.get() }
        if let responder { return try responder(request) }
        throw Unscripted(method: request.method, url: request.url)
    }

    /// A response with a JSON body and `Content-Type: application/json`.
    static func json(_ status: Int, _ object: Any, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return HTTPResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: body)
    }
}

extension HTTPRequest {
    /// The body as `application/x-www-form-urlencoded` fields (`+` read as a space), last value wins.
    var formFields: [String: String] {
        guard let body else { return [:] }
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String {
                text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
            }
            let name = decode(parts[0])
            fields[name] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return fields
    }

    /// The body as a JSON object, or `nil`.
    var jsonObject: [String: Any]? {
        guard let body else { return nil }
        return (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
    }
}
