// Stands in for Graph's JSON batching (`POST /v1.0/$batch`): up to 20 requests per envelope, each routed
// through the same handlers as a plain request (so each may be throttled on its own and gets its own 429
// with Retry-After), parts without `dependsOn` run four at a time like Graph dispatches them to Outlook,
// `dependsOn` chains run in order with 424 for dependants of a failure, and the responses may come back in
// another order than the requests.
import Foundation

extension GraphStandIn {
    /// The most requests one `$batch` may carry.
    static let batchLimit = 20
    /// How many parts of one batch Graph runs at the same time.
    static let batchParallelism = 4

    /// The answers of one batch's parts, filled from several threads.
    final class BatchResults: @unchecked Sendable {
        private let lock = NSLock()
        private var responses: [String: LoopbackHTTPServer.Response] = [:]

        subscript(id: String) -> LoopbackHTTPServer.Response? {
            get { lock.withLock { responses[id] } }
            set { lock.withLock { responses[id] = newValue } }
        }
    }

    struct BatchPart: Sendable {
        var id: String
        var method: String
        var url: String
        var headers: [(name: String, value: String)]
        var body: Data
        var dependsOn: [String]
    }

    func serveBatch(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Response {
        let envelope = GraphCall(request, viaBatch: false, batchRequestID: nil)
        let context = RequestContext(envelope)
        return finish(batchResponse(envelope, request, context), context)
    }

    private func batchResponse(
        _ envelope: GraphCall, _ request: LoopbackHTTPServer.Request, _ context: RequestContext
    ) -> LoopbackHTTPServer.Response {
        guard envelope.method == "POST" else {
            return graphError(405, "BadRequest", "The $batch endpoint only accepts POST.", context)
        }
        if case .failure(let rejection) = authenticate(envelope, context) { return rejection.response }
        let parts: [BatchPart]
        switch parseBatch(envelope.body, context) {
        case .success(let found): parts = found
        case .failure(let rejection): return rejection.response
        }

        let results = BatchResults()
        if parts.contains(where: { !$0.dependsOn.isEmpty }) {
            for part in parts {
                let failed = part.dependsOn.contains { results[$0].map { $0.status >= 400 } ?? true }
                results[part.id] =
                    failed
                    ? graphError(424, "FailedDependency", "The request depends on a request that failed.", context)
                    : servePart(part, envelope: request)
            }
        } else {
            var index = 0
            while index < parts.count {
                let group = DispatchGroup()
                for part in parts[index..<min(index + Self.batchParallelism, parts.count)] {
                    group.enter()
                    let thread = Thread { [self] in
                        results[part.id] = servePart(part, envelope: request)
                        group.leave()
                    }
                    thread.start()
                }
                group.wait()
                index += Self.batchParallelism
            }
        }

        var ordered = parts.map(\.id)
        if locked({ $0.reorderBatchResponses }) { ordered.reverse() }
        let responses: [[String: Any]] = ordered.compactMap { id in
            guard let response = results[id] else { return nil }
            return batchItem(id: id, response)
        }
        return graphJSON(200, ["responses": responses])
    }

    /// One entry of the `responses` array: `{id, status, headers, body}` (no body for an empty answer).
    func batchItem(id: String, _ response: LoopbackHTTPServer.Response) -> [String: Any] {
        var headers: [String: String] = [:]
        for (name, value) in response.headers where name.lowercased() != "date" {
            headers[name] = value
        }
        var item: [String: Any] = ["id": id, "status": response.status, "headers": headers]
        if !response.body.isEmpty {
            if let json = try? JSONSerialization.jsonObject(with: response.body, options: [.fragmentsAllowed]) {
                item["body"] = json
            } else {
                item["body"] = response.body.base64EncodedString()
            }
        }
        return item
    }

    /// Reads the envelope; Graph refuses the whole batch (400) for malformed or oversized ones.
    func parseBatch(_ body: Data, _ context: RequestContext) -> Result<[BatchPart], Rejection> {
        guard let object = Self.parseBody(body), let requests = object["requests"] as? [[String: Any]] else {
            return .failure(reject(400, "BadRequest", "Invalid batch payload format.", context))
        }
        guard !requests.isEmpty else {
            return .failure(reject(400, "BadRequest", "Invalid batch payload format: no requests.", context))
        }
        guard requests.count <= Self.batchLimit else {
            return .failure(
                reject(400, "BadRequest", "Number of requests exceeds the limit of \(Self.batchLimit).", context))
        }
        var parts: [BatchPart] = []
        var seen: Set<String> = []
        for item in requests {
            let id = (item["id"] as? String) ?? (item["id"] as? Int).map(String.init)
            guard let id, !id.isEmpty, let method = item["method"] as? String, let url = item["url"] as? String else {
                return .failure(
                    reject(
                        400, "BadRequest", "Invalid batch payload format: each request needs id, method and url.",
                        context))
            }
            guard seen.insert(id).inserted else {
                return .failure(reject(400, "BadRequest", "Request Id's must be unique; '\(id)' repeats.", context))
            }
            var headers: [(name: String, value: String)] = []
            for (name, value) in item["headers"] as? [String: Any] ?? [:] {
                headers.append((name, value as? String ?? "\(value)"))
            }
            var bodyData = Data()
            if let body = item["body"], !(body is NSNull) {
                if let text = body as? String {
                    bodyData = Data(base64Encoded: text) ?? Data(text.utf8)
                } else if JSONSerialization.isValidJSONObject(body),
                    let data = try? JSONSerialization.data(withJSONObject: body)
                {
                    bodyData = data
                }
            }
            let upper = method.uppercased()
            let writes = upper == "POST" || upper == "PATCH" || upper == "PUT"
            let hasContentType = headers.contains { $0.name.caseInsensitiveCompare("Content-Type") == .orderedSame }
            if writes && (bodyData.isEmpty || !hasContentType) && !url.lowercased().hasSuffix("/cancel") {
                return .failure(
                    reject(
                        400, "BadRequest", "Write request id : \(id) does not contain Content-Type header or body.",
                        context))
            }
            let dependsOn = (item["dependsOn"] as? [Any] ?? []).map { "\($0)" }
            parts.append(
                BatchPart(id: id, method: upper, url: url, headers: headers, body: bodyData, dependsOn: dependsOn))
        }
        for part in parts {
            for dependency in part.dependsOn where !seen.contains(dependency) {
                return .failure(
                    reject(
                        400, "BadRequest", "Request '\(part.id)' depends on unknown request '\(dependency)'.", context))
            }
        }
        return .success(parts)
    }

    /// Serves one part through the plain pipeline, with the envelope's `Authorization`.
    func servePart(_ part: BatchPart, envelope: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Response {
        var headers = part.headers
        if !headers.contains(where: { $0.name.caseInsensitiveCompare("Authorization") == .orderedSame }),
            let authorization = envelope.header("Authorization")
        {
            headers.append(("Authorization", authorization))
        }
        let lowerURL = part.url.lowercased()
        if lowerURL.hasPrefix("http://") || lowerURL.hasPrefix("https://") {
            var context = RequestContext(GraphCall(envelope, viaBatch: true, batchRequestID: part.id))
            context.preferencesApplied = []
            return finish(
                graphError(400, "BadRequest", "Batch requests must use relative URLs.", context), context)
        }
        let relative = part.url.hasPrefix("/") ? part.url : "/" + part.url
        let inner = LoopbackHTTPServer.Request(
            method: part.method, target: "/v1.0" + relative, headers: headers, body: part.body,
            connectionID: envelope.connectionID, receivedAt: envelope.receivedAt)
        if inner.path.lowercased().hasSuffix("/$batch") {
            let call = GraphCall(inner, viaBatch: true, batchRequestID: part.id)
            let context = RequestContext(call)
            return finish(graphError(400, "BadRequest", "Nested $batch requests are not supported.", context), context)
        }
        return serveGraph(GraphCall(inner, viaBatch: true, batchRequestID: part.id))
    }
}
