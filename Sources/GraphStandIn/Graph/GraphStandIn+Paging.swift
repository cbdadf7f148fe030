// OData paging and projection as Graph applies them: `$top` (with a per-collection cap), `$skip`, opaque
// `$skiptoken`s behind absolute `@odata.nextLink`s that repeat the request's query, and `$select`.
import Foundation

extension GraphStandIn {
    /// One page of a collection: `$top` (default `defaultTop`, capped at `maxTop`), `$skip`, and an absolute
    /// `@odata.nextLink` that repeats the request's own path and query with a `$skiptoken` added.
    func page(
        _ items: [[String: Any]], _ call: GraphCall, _ context: RequestContext, defaultTop: Int, maxTop: Int,
        contextPath: String
    ) -> LoopbackHTTPServer.Response {
        page(
            count: items.count, render: { Array(items[$0]) }, call, context, defaultTop: defaultTop, maxTop: maxTop,
            contextPath: contextPath)
    }

    /// Like `page(_:…)`, rendering only the items of the page (`render` gets their index range).
    func page(
        count: Int, render: (Range<Int>) -> [[String: Any]], _ call: GraphCall, _ context: RequestContext,
        defaultTop: Int, maxTop: Int, contextPath: String
    ) -> LoopbackHTTPServer.Response {
        var top = defaultTop
        if let raw = call.query["$top"] {
            guard let value = Int(raw), value >= 0 else {
                return graphError(400, "BadRequest", "Invalid value '\(raw)' for query option '$top'.", context)
            }
            top = min(value, maxTop)
        }
        var offset = 0
        if let raw = call.query["$skip"] {
            guard let value = Int(raw), value >= 0 else {
                return graphError(400, "BadRequest", "Invalid value '\(raw)' for query option '$skip'.", context)
            }
            offset = value
        }
        if let token = call.query["$skiptoken"] {
            guard let stored = locked({ $0.skipTokens[token] }) else {
                return graphError(400, "BadRequest", "The skip token '\(token)' is not valid.", context)
            }
            offset = stored
        }
        let end = min(count, offset + top)
        let slice = offset < end ? render(offset..<end) : []
        var body: [String: Any] = [
            "@odata.context": baseURL + "/$metadata#\(contextPath)",
            "value": slice.map { select($0, call) },
        ]
        if end < count && top > 0 {
            let token = Self.randomToken(length: 24)
            locked { $0.skipTokens[token] = end }
            body["@odata.nextLink"] = nextLink(call, skipToken: token)
        }
        return graphJSON(200, body)
    }

    /// The request's own URL with `$skiptoken` (and any `$skip`) replaced, absolute, query kept as sent.
    func nextLink(_ call: GraphCall, skipToken: String) -> String {
        let kept = call.rawQuery.split(separator: "&").filter { pair in
            let name = pair.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            let decoded = (name.removingPercentEncoding ?? name).lowercased()
            return decoded != "$skiptoken" && decoded != "$skip"
        }
        let query = (kept + ["%24skiptoken=\(skipToken)"]).joined(separator: "&")
        let origin = locked { $0.nextLinkOrigin } ?? server.baseURL
        return origin + call.rawPath + "?" + query
    }

    /// Keeps only the `$select`ed properties (plus `id` and OData annotations); everything without `$select`.
    func select(_ item: [String: Any], _ call: GraphCall) -> [String: Any] {
        guard let raw = call.query["$select"], !raw.isEmpty else { return item }
        let wanted = Set(raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
        return item.filter { key, _ in
            key == "id" || key.hasPrefix("@odata.") || key == "singleValueExtendedProperties"
                || wanted.contains(key.lowercased())
        }
    }
}
