import Foundation

/// Answers one request from the feeds as they are now: `/<secret>/<NAME>.ics`, `/healthz`, 404 for
/// anything else. A pure function of the request, the feeds and the time, so that every rule of the HTTP
/// contract is tested without a socket.
///
/// Anything unknown (a wrong secret, a wrong name, a path with `..`, a percent-encoded path) gets the same
/// 404, never 401 or 403, which would confirm that a feed exists.
public struct FeedRouter: Sendable {
    /// The feeds, in the order of feeds.json (`/healthz` lists them in that order).
    public var feeds: [ServedFeed]
    /// `--refresh`, in seconds: `Cache-Control: max-age` and the `Retry-After` of a feed without a body.
    public var refreshInterval: Int

    public init(feeds: [ServedFeed], refreshInterval: Int) {
        self.feeds = feeds
        self.refreshInterval = refreshInterval
    }

    /// The content type of every feed.
    public static let calendarType = "text/calendar; charset=utf-8"
    static let notFoundBody = HTTPBody(Data("not found\n".utf8))

    public func respond(to request: HTTPServerRequest, now: Date = Date()) -> HTTPServerResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return text(405, "only GET and HEAD are served\n", extra: [("Allow", "GET, HEAD")])
        }
        if request.path == "/healthz" { return health(now: now) }
        guard let feed = feed(at: request.path) else {
            return HTTPServerResponse(
                status: 404, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Self.notFoundBody)
        }
        guard let body = feed.body else {
            return text(503, "this feed has not been read from Graph yet\n", extra: [("Retry-After", retryAfter)])
        }
        return answer(request, feed: feed, body: body, now: now)
    }

    /// The feed `path` addresses: exactly `/<secret>/<NAME>.ics`. Every feed's secret is compared in
    /// constant time, whatever the name, so that timing tells nothing of names or secrets.
    func feed(at path: String) -> ServedFeed? {
        let parts = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map(Substring.init)
        guard parts.count == 3, parts[0].isEmpty, parts[2].hasSuffix(".ics") else { return nil }
        let name = parts[2].dropLast(4)
        var found: ServedFeed?
        for feed in feeds where FeedSecret.matches(parts[1], feed.secret) && feed.name == name {
            found = feed
        }
        return found
    }

    private var retryAfter: String { String(max(1, min(refreshInterval, 60))) }

    private func answer(
        _ request: HTTPServerRequest, feed: ServedFeed, body: PreparedFeedBody, now: Date
    ) -> HTTPServerResponse {
        var headers: [(name: String, value: String)] = [
            ("Content-Type", Self.calendarType), ("ETag", body.rendered.etag), ("Last-Modified", body.lastModified),
            ("Cache-Control", "private, max-age=\(refreshInterval)"), ("Vary", "Accept-Encoding"),
        ]
        if feed.isStale {
            let since = feed.status.lastSuccess ?? body.rendered.lastModified
            headers.append(("Age", String(max(0, Int(now.timeIntervalSince(since))))))
            headers.append(("Warning", "110 - \"Response is Stale\""))
        }
        if RequestHeaders.notModified(request, etag: body.rendered.etag, lastModified: body.rendered.lastModified) {
            return HTTPServerResponse(status: 304, headers: headers)
        }
        if let gzip = body.gzip, RequestHeaders.acceptsGzip(request.header("Accept-Encoding")) {
            headers.append(("Content-Encoding", "gzip"))
            return HTTPServerResponse(status: 200, headers: headers, body: gzip)
        }
        return HTTPServerResponse(status: 200, headers: headers, body: body.identity)
    }

    /// `/healthz`: `ok` when every feed's last refresh succeeded, else `degraded`; per feed, in order, the
    /// last success and the last error (``healthSummary(_:)``) with its time. No names, secrets or contents:
    /// it answers without a secret.
    private func health(now: Date) -> HTTPServerResponse {
        let formatter = ISO8601DateFormatter()
        func date(_ value: Date?) -> Any { value.map { formatter.string(from: $0) as Any } ?? NSNull() }
        let entries: [[String: Any]] = feeds.map { feed in
            [
                "lastSuccess": date(feed.status.lastSuccess),
                "lastError": feed.status.lastError.map { Self.healthSummary($0) as Any } ?? NSNull(),
                "lastErrorAt": date(feed.status.lastErrorAt),
            ]
        }
        let healthy = feeds.allSatisfy { $0.body != nil && !$0.isStale }
        let document: [String: Any] = ["status": healthy ? "ok" : "degraded", "feeds": entries]
        let data =
            (try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data()
        return HTTPServerResponse(
            status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
            body: HTTPBody(data + Data("\n".utf8)))
    }

    /// What `/healthz` shows of an error: the HTTP status and Graph's error code when the message gives them
    /// (`HTTP 503 ServiceUnavailable`), else `refresh failed`; never the message itself, which may name a
    /// calendar or a mailbox (serve's log has it whole).
    public static func healthSummary(_ message: String) -> String {
        guard let match = message.firstMatch(of: /HTTP ([1-5][0-9][0-9])( [A-Za-z][A-Za-z0-9_]{0,63})?/) else {
            return "refresh failed"
        }
        return "HTTP \(match.1)" + (match.2.map(String.init) ?? "")
    }

    private func text(_ status: Int, _ message: String, extra: [(name: String, value: String)]) -> HTTPServerResponse {
        HTTPServerResponse(
            status: status, headers: [("Content-Type", "text/plain; charset=utf-8")] + extra,
            body: HTTPBody(Data(message.utf8)))
    }
}
