// Reading a `$batch` envelope the way Graph does: at most 20 requests, unique ids, relative urls, a body and
// Content-Type on every write, and `dependsOn` naming only requests of the same batch. A malformed
// envelope fails as a whole with 400.
import Foundation

extension GraphStandIn {
    /// One request of a `$batch` envelope.
    struct BatchPart: Sendable {
        var id: String
        var method: String
        var url: String
        var headers: [(name: String, value: String)]
        var body: Data
        var dependsOn: [String]
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
            switch parsePart(item, context) {
            case .success(let part):
                guard seen.insert(part.id).inserted else {
                    return .failure(
                        reject(400, "BadRequest", "Request Id's must be unique; '\(part.id)' repeats.", context))
                }
                if let problem = checkWrite(part, context) { return .failure(problem) }
                parts.append(part)
            case .failure(let rejection):
                return .failure(rejection)
            }
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

    /// One entry of `requests`: id (a string or a number), method, url, headers, body and dependsOn.
    private func parsePart(_ item: [String: Any], _ context: RequestContext) -> Result<BatchPart, Rejection> {
        let id = (item["id"] as? String) ?? (item["id"] as? Int).map(String.init)
        guard let id, !id.isEmpty, let method = item["method"] as? String, let url = item["url"] as? String else {
            return .failure(
                reject(
                    400, "BadRequest", "Invalid batch payload format: each request needs id, method and url.",
                    context))
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
        let dependsOn = (item["dependsOn"] as? [Any] ?? []).map { "\($0)" }
        return .success(
            BatchPart(
                id: id, method: method.uppercased(), url: url, headers: headers, body: bodyData, dependsOn: dependsOn))
    }

    /// Graph's 400 for a write (POST, PATCH, PUT) without a body or a `Content-Type`; `cancel` needs neither.
    private func checkWrite(_ part: BatchPart, _ context: RequestContext) -> Rejection? {
        let writes = part.method == "POST" || part.method == "PATCH" || part.method == "PUT"
        let hasContentType = part.headers.contains {
            $0.name.caseInsensitiveCompare("Content-Type") == .orderedSame
        }
        guard writes && (part.body.isEmpty || !hasContentType) && !part.url.lowercased().hasSuffix("/cancel") else {
            return nil
        }
        return reject(
            400, "BadRequest", "Write request id : \(part.id) does not contain Content-Type header or body.", context)
    }
}
