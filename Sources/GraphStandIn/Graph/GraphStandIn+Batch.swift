// Stands in for Graph's JSON batching (`POST /v1.0/$batch`): up to 20 requests per envelope, each routed
// through the same handlers as a plain request (so each may be throttled on its own and gets its own 429
// with Retry-After), parts without `dependsOn` run four at a time like Graph dispatches them to Outlook,
// `dependsOn` chains run in order with 424 for dependants of a failure, and the responses may come back in
// another order than the requests. The envelope is read in GraphStandIn+BatchParsing.swift.
import Foundation
import Synchronization

extension GraphStandIn {
    /// The most requests one `$batch` may carry.
    static let batchLimit = 20
    /// How many parts of one batch Graph runs at the same time.
    static let batchParallelism = 4

    /// The answers of one batch's parts, filled from several threads.
    final class BatchResults: Sendable {
        private let responses = Mutex<[String: LoopbackHTTPServer.Response]>([:])

        subscript(id: String) -> LoopbackHTTPServer.Response? {
            get { responses.withLock { $0[id] } }
            set { responses.withLock { $0[id] = newValue } }
        }
    }

    /// Serves `POST /v1.0/$batch`: the envelope's own answer carries Graph's headers, each part its own.
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
            runInOrder(parts, envelope: request, into: results, context)
        } else {
            runInParallel(parts, envelope: request, into: results)
        }
        var ordered = parts.map(\.id)
        if locked({ $0.reorderBatchResponses }) { ordered.reverse() }
        let responses: [[String: Any]] = ordered.compactMap { id in
            guard let response = results[id] else { return nil }
            return batchItem(id: id, response)
        }
        return graphJSON(200, ["responses": responses])
    }

    /// A batch with `dependsOn`: parts one after another in the order given; a part that depends on a failed
    /// (or not yet answered) part gets 424 without running.
    private func runInOrder(
        _ parts: [BatchPart], envelope: LoopbackHTTPServer.Request, into results: BatchResults,
        _ context: RequestContext
    ) {
        for part in parts {
            let failed = part.dependsOn.contains { results[$0].map { $0.status >= 400 } ?? true }
            results[part.id] =
                failed
                ? graphError(424, "FailedDependency", "The request depends on a request that failed.", context)
                : servePart(part, envelope: envelope)
        }
    }

    /// A batch without `dependsOn`: parts in groups of `batchParallelism`, each part on a thread of its own,
    /// the next group once the last one is done.
    private func runInParallel(_ parts: [BatchPart], envelope: LoopbackHTTPServer.Request, into results: BatchResults) {
        var index = 0
        while index < parts.count {
            let group = DispatchGroup()
            for part in parts[index..<min(index + Self.batchParallelism, parts.count)] {
                group.enter()
                let thread = Thread { [self] in
                    results[part.id] = servePart(part, envelope: envelope)
                    group.leave()
                }
                thread.start()
            }
            group.wait()
            index += Self.batchParallelism
        }
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
