import Foundation
import ICalBridge

/// One request inside a Graph `$batch` (JSON batching).
public struct BatchRequest: Sendable, Equatable {
    /// Unique within one ``GraphClient/batch(_:)`` call; the response carries it back.
    public var id: String
    public var method: String
    /// The URL relative to the service root, such as `/me/events` (see ``GraphClient/eventsPath(calendarID:)``).
    public var url: String
    /// A JSON body (an event payload), if any.
    public var body: Data?
    /// Extra headers; `Content-Type: application/json` (with a body) and graph-ics' `Prefer` header are
    /// added.
    public var headers: [String: String]

    public init(id: String, method: String, url: String, body: Data? = nil, headers: [String: String] = [:]) {
        self.id = id
        self.method = method
        self.url = url
        self.body = body
        self.headers = headers
    }
}

/// Graph's answer to one ``BatchRequest``.
public struct BatchResponse: Sendable, Equatable {
    /// The ``BatchRequest/id`` this answers.
    public var id: String
    /// The HTTP status of the inner request (a 429 that stayed throttled after every retry included).
    public var status: Int
    public var headers: [String: String]
    /// The inner response's body as JSON (empty for a 204).
    public var body: Data

    public init(id: String, status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.id = id
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Whether the inner request succeeded (2xx).
    public var succeeded: Bool { (200..<300).contains(status) }

    /// A header of the inner response, matched case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The inner failure as a ``GraphError`` naming `operation`; `nil` for a success.
    public func error(operation: String) -> GraphError? {
        guard !succeeded else { return nil }
        return GraphError.response(
            HTTPResponse(status: status, headers: headers.map { ($0.key, $0.value) }, body: body),
            operation: operation)
    }
}

// How graph-ics batches, and why it keeps Graph's mailbox concurrency limit.
//
// Outlook allows four concurrent requests per app and mailbox (`MailboxConcurrency`), and Graph counts the
// requests inside a `$batch` one by one against that limit: a batch of twenty parallel creates to one
// mailbox runs them at once and gets most of them throttled. So every batch graph-ics sends is a serial
// chain: each inner request `dependsOn` the one before it (one of the two shapes Graph's docs recommend,
// "fully sequential or fully parallel"), and Graph runs one of them at a time. One batch therefore costs one
// request slot at the mailbox, and takes one `RequestLimiter` permit like any other request; up to
// `limiter.limit` batches (four) go at once, each on its own thread. Together with all other requests of
// the client that is never more than four requests running at the mailbox, inner requests included.
//
// In a chain, a failed inner request makes Graph answer every later one with 424 (Failed Dependency)
// without running it: those are sent again in the next round, at once. Inner 429/503/504 answers are
// retried as the RetryPolicy says, not before their own `Retry-After` (the longest one of the round), and
// only for requests that may be repeated (a POST only when its body carries a `transactionId`): the
// throttled request and everything after it go again in a new chain. The outer request goes through
// `perform` (permit, 401 refresh, retries of the whole batch on 429/503/504 and dropped connections, the
// latter only when every inner request may be repeated).

extension GraphClient {
    /// The most inner requests Graph accepts in one `$batch`.
    public static let batchLimit = 20

    /// Sends `requests` as `$batch` requests of up to 20 and returns Graph's answers in the order of
    /// `requests`, matched by id (Graph answers in any order).
    ///
    /// Inner requests run one after another within a batch and up to four batches run at once (see the
    /// comment above this extension). Throttled inner requests are retried; other inner failures are
    /// returned as they are, for the caller to report per event.
    ///
    /// - Throws: ``GraphError`` with kind `.badRequest` for duplicate ids or a body that is not JSON (before
    ///   anything is sent); the first error of an outer request (after its retries), once the batches
    ///   already running have finished; inner requests of batches that went through have taken effect
    ///   then, and a create carrying a `transactionId` is safe to send again.
    ///
    /// `onChunk` is called with each `$batch`'s answers (and the position of its first request in
    /// `requests`) as soon as it has them all, on the thread that sent it, while the others still run:
    /// what went through is known before the whole call returns (an interrupted import reports it).
    public func batch(
        _ requests: [BatchRequest], onChunk: (@Sendable (_ offset: Int, _ answers: [BatchResponse]) -> Void)? = nil
    ) throws -> [BatchResponse] {
        let operation = "sending a batch"
        var seen = Set<String>()
        for request in requests {
            guard seen.insert(request.id.lowercased()).inserted else {
                throw GraphError(
                    .badRequest, operation: operation, message: "two batch requests share the id \(request.id)")
            }
            if let body = request.body,
                (try? JSONSerialization.jsonObject(with: body, options: .fragmentsAllowed)) == nil
            {
                throw GraphError(
                    .badRequest, operation: operation, message: "the body of batch request \(request.id) is not JSON")
            }
        }
        guard !requests.isEmpty else { return [] }
        let chunks = stride(from: 0, to: requests.count, by: Self.batchLimit).map {
            Array(requests[$0..<min($0 + Self.batchLimit, requests.count)])
        }
        if chunks.count == 1 {
            let answers = try sendChain(chunks[0])
            onChunk?(0, answers)
            return answers
        }

        let answers = try Parallel.blockingMap(count: chunks.count, workers: limiter.limit) { [self] index in
            let answers = try sendChain(chunks[index])
            onChunk?(index * Self.batchLimit, answers)
            return answers
        }
        return answers.flatMap { $0 }
    }

    /// Sends one chunk (≤ 20) as serial chains until every request has a final answer.
    func sendChain(_ requests: [BatchRequest]) throws -> [BatchResponse] {
        let operation = "sending a batch"
        var final: [String: BatchResponse] = [:]
        var attempts: [String: Int] = [:]
        var pending = requests
        var waitedOut: Int?
        let started = ContinuousClock.now
        while !pending.isEmpty {
            let (answers, held) = try sendBatch(pending, operation: operation, waitedOut: waitedOut)
            waitedOut = nil
            var next: [BatchRequest] = []
            var wait: Duration?
            var progressed = false
            for request in pending {
                guard let answer = answers[request.id.lowercased()] else {
                    throw GraphError.malformed("no response for batch request \(request.id)", operation: operation)
                }
                if answer.status == 424 {
                    next.append(request)  // not run: an earlier request in the chain failed
                    continue
                }
                let tries = (attempts[request.id] ?? 0) + 1
                attempts[request.id] = tries
                let response = HTTPResponse(status: answer.status, headers: answer.headers.map { ($0.key, $0.value) })
                let time = now()
                if RetryPolicy.retryableStatuses.contains(answer.status), innerRepeatable(request),
                    let delay = retry.delay(
                        afterAttempt: tries, response: response, error: nil, now: time,
                        elapsed: started.duration(to: ContinuousClock.now))
                {
                    wait = max(wait ?? .zero, delay)
                    next.append(request)
                    progressed = true
                    continue
                }
                final[request.id] = answer
                progressed = true
            }
            if !progressed {
                // Every answer was 424 although nothing before failed: take them as final, not loop.
                for request in next { final[request.id] = answers[request.id.lowercased()] }
                break
            }
            pending = next
            if let wait, !pending.isEmpty {
                sleep(wait)
                waitedOut = held  // the wait is at least every inner Retry-After of that batch
            }
        }
        return try requests.map { request in
            guard let answer = final[request.id] else {
                throw GraphError.malformed("no response for batch request \(request.id)", operation: operation)
            }
            return answer
        }
    }

    /// Whether an inner request may be sent twice (the RetryPolicy's rule, applied to the inner request).
    func innerRepeatable(_ request: BatchRequest) -> Bool {
        guard let url = URL(string: root + request.url) ?? URL(string: root) else { return false }
        return retry.isRetryable(request: HTTPRequest(method: request.method, url: url, body: request.body))
    }

    /// POSTs one `$batch` whose requests form a serial chain; returns the answers by lower-cased id, and
    /// the throttle hold its inner `Retry-After`s set, if any.
    private func sendBatch(
        _ requests: [BatchRequest],
        operation: String,
        waitedOut: Int?
    ) throws -> (answers: [String: BatchResponse], held: Int?) {
        var body = Data(#"{"requests":["#.utf8)
        for (index, request) in requests.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            var headers = request.headers
            if !headers.keys.contains(where: { $0.caseInsensitiveCompare("Prefer") == .orderedSame }) {
                headers["Prefer"] = Self.preferences
            }
            if request.body != nil,
                !headers.keys.contains(where: { $0.caseInsensitiveCompare("Content-Type") == .orderedSame })
            {
                headers["Content-Type"] = "application/json"
            }
            var text = #"{"id":"# + Self.jsonString(request.id) + #","method":"# + Self.jsonString(request.method)
            text += #","url":"# + Self.jsonString(request.url)
            text += #","headers":{"#
            text += headers.sorted { $0.key < $1.key }.map { Self.jsonString($0.key) + ":" + Self.jsonString($0.value) }
                .joined(separator: ",")
            text += "}"
            if index > 0 { text += #","dependsOn":["# + Self.jsonString(requests[index - 1].id) + "]" }
            body.append(contentsOf: text.utf8)
            if let payload = request.body {
                body.append(contentsOf: #","body":"#.utf8)
                body.append(payload)
            }
            body.append(UInt8(ascii: "}"))
        }
        body.append(contentsOf: "]}".utf8)
        let repeatable = requests.allSatisfy(innerRepeatable)
        var held: Int?
        let response = try perform(
            HTTPRequest(method: "POST", url: url("/$batch"), body: body), operation: operation, repeatable: repeatable,
            waitedOut: waitedOut
        ) { [self] envelope in
            // Inner 429s hold every thread of the client now, before this batch's permit is released.
            held = nil
            guard envelope.status == 200,
                let object = try? JSONSerialization.jsonObject(with: envelope.body) as? [String: Any],
                let responses = object["responses"] as? [[String: Any]]
            else { return nil }
            let time = now()
            for item in responses {
                guard let status = (item["status"] as? NSNumber)?.intValue, [429, 503].contains(status) else {
                    continue
                }
                let headers = (item["headers"] as? [String: Any] ?? [:]).map { ($0.key, "\($0.value)") }
                if let generation = holdIfAsked(HTTPResponse(status: status, headers: headers), now: time) {
                    held = generation
                }
            }
            return held
        }
        guard let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any],
            let responses = object["responses"] as? [[String: Any]]
        else {
            throw GraphError.malformed("no \"responses\" array", operation: operation, response: response)
        }
        var answers: [String: BatchResponse] = [:]
        for item in responses {
            guard let id = item["id"] as? String, let status = (item["status"] as? NSNumber)?.intValue else {
                throw GraphError.malformed(
                    "a batch response without id or status", operation: operation, response: response)
            }
            var headers: [String: String] = [:]
            for (name, value) in item["headers"] as? [String: Any] ?? [:] {
                if let text = value as? String { headers[name] = text } else { headers[name] = "\(value)" }
            }
            var data = Data()
            if let inner = item["body"], !(inner is NSNull) {
                data = (try? JSONSerialization.data(withJSONObject: inner, options: [.fragmentsAllowed])) ?? Data()
            }
            answers[id.lowercased()] = BatchResponse(id: id, status: status, headers: headers, body: data)
        }
        return (answers, held)
    }

    /// `text` as a JSON string literal, quotes included.
    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
