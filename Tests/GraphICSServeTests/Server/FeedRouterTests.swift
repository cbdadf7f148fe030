import Foundation
import Testing

@testable import GraphICSServe

@Suite struct FeedRouterTests {
    static let secret = String(repeating: "ab", count: 32)
    static let otherSecret = String(repeating: "cd", count: 32)
    static let modified = Date(timeIntervalSince1970: 1_790_000_000)
    static var calendar: Data { Data("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:test\r\nEND:VCALENDAR\r\n".utf8) }

    static func rendered(_ body: Data = calendar, etag: String = "\"e1\"") -> RenderedFeed {
        RenderedFeed(body: body, etag: etag, lastModified: modified, eventCount: 0)
    }

    static func router(status: FeedStatus = FeedStatus(lastSuccess: modified), body: Bool = true) -> FeedRouter {
        FeedRouter(
            feeds: [
                ServedFeed(
                    name: "work", secret: secret, body: body ? PreparedFeedBody(rendered()) : nil, status: status),
                ServedFeed(
                    name: "team", secret: otherSecret, body: PreparedFeedBody(rendered(etag: "\"e2\"")),
                    status: FeedStatus(lastSuccess: modified)),
            ], refreshInterval: 300)
    }

    static func request(
        _ path: String, method: String = "GET", headers: [(name: String, value: String)] = []
    ) -> HTTPServerRequest {
        HTTPServerRequest(
            method: method, path: path, version: "HTTP/1.1", headers: headers, remoteAddress: "127.0.0.1:50000")
    }

    static func header(_ response: HTTPServerResponse, _ name: String) -> String? {
        response.headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    static let workPath = "/\(secret)/work.ics"

    @Test("a feed's path answers its body with the caching headers of the contract")
    func servesTheFeed() throws {
        let response = Self.router().respond(to: Self.request(Self.workPath))
        #expect(response.status == 200)
        #expect(response.body.data == Self.calendar)
        #expect(Self.header(response, "Content-Type") == "text/calendar; charset=utf-8")
        #expect(Self.header(response, "ETag") == "\"e1\"")
        #expect(Self.header(response, "Last-Modified") == HTTPDate.format(Self.modified))
        #expect(Self.header(response, "Cache-Control") == "private, max-age=300")
        #expect(Self.header(response, "Vary") == "Accept-Encoding")
        #expect(Self.header(response, "Content-Encoding") == nil)
        #expect(Self.header(response, "Warning") == nil)
    }

    @Test("each feed answers only at its own secret and name")
    func feedsAreAddressedBySecretAndName() {
        let team = Self.router().respond(to: Self.request("/\(Self.otherSecret)/team.ics"))
        #expect(Self.header(team, "ETag") == "\"e2\"")
    }

    @Test(
        "anything unknown is the same 404: wrong secret, wrong name, another feed's secret, '..', extra segments",
        arguments: [
            "/\(String(repeating: "00", count: 32))/work.ics", "/\(secret)/other.ics", "/\(otherSecret)/work.ics",
            "/\(secret)/../\(secret)/work.ics", "/\(secret)/work.ics/", "/\(secret)/work", "/\(secret)/%77ork.ics",
            "/\(secret)", "/", "/work.ics", "//\(secret)/work.ics", "/\(secret.uppercased())/work.ics",
            "/\(secret.prefix(63))/work.ics", "/healthz/x",
        ])
    func unknownIsNotFound(path: String) {
        let response = Self.router().respond(to: Self.request(path))
        #expect(response.status == 404)
        #expect(response.body.data == FeedRouter.notFoundBody.data)
    }

    @Test(
        "methods other than GET and HEAD get 405 with Allow", arguments: ["POST", "PUT", "DELETE", "OPTIONS", "PATCH"])
    func otherMethods(method: String) {
        for path in [Self.workPath, "/nothing"] {
            let response = Self.router().respond(to: Self.request(path, method: method))
            #expect(response.status == 405)
            #expect(Self.header(response, "Allow") == "GET, HEAD")
        }
    }

    @Test("HEAD answers the GET's headers (the HTTP layer leaves the body out)")
    func head() {
        let response = Self.router().respond(to: Self.request(Self.workPath, method: "HEAD"))
        #expect(response.status == 200)
        #expect(Self.header(response, "ETag") == "\"e1\"")
        #expect(response.body.count == Self.calendar.count)
    }

    @Test(
        "If-None-Match naming the current ETag (in a list, weakly, or *) is 304 without a body",
        arguments: ["\"e1\"", "\"x\", \"e1\"", "W/\"e1\"", "*", "\"x\",W/\"e1\""])
    func ifNoneMatch(tags: String) {
        let response = Self.router().respond(to: Self.request(Self.workPath, headers: [("If-None-Match", tags)]))
        #expect(response.status == 304)
        #expect(response.body.count == 0)
        #expect(Self.header(response, "ETag") == "\"e1\"")
    }

    @Test("If-None-Match with other ETags is a full answer, whatever If-Modified-Since says")
    func ifNoneMatchOther() {
        let headers = [
            ("If-None-Match", "\"e2\", \"old\""),
            ("If-Modified-Since", HTTPDate.format(Self.modified.addingTimeInterval(60))),
        ]
        let response = Self.router().respond(to: Self.request(Self.workPath, headers: headers))
        #expect(response.status == 200)
        #expect(response.body.data == Self.calendar)
    }

    @Test("If-Modified-Since at or after Last-Modified is 304; before it, or unreadable, a full answer")
    func ifModifiedSince() {
        func status(_ value: String) -> Int {
            Self.router().respond(to: Self.request(Self.workPath, headers: [("If-Modified-Since", value)])).status
        }
        #expect(status(HTTPDate.format(Self.modified)) == 304)
        #expect(status(HTTPDate.format(Self.modified.addingTimeInterval(3600))) == 304)
        #expect(status(HTTPDate.format(Self.modified.addingTimeInterval(-1))) == 200)
        #expect(status("yesterday") == 200)
    }

    @Test("gzip when Accept-Encoding allows it, the same compressed bytes for every request")
    func gzip() throws {
        let router = Self.router()
        let first = router.respond(to: Self.request(Self.workPath, headers: [("Accept-Encoding", "gzip, deflate, br")]))
        let second = router.respond(to: Self.request(Self.workPath, headers: [("accept-encoding", "GZIP")]))
        #expect(Self.header(first, "Content-Encoding") == "gzip")
        #expect(try Gzip.decompress(first.body.data) == Self.calendar)
        #expect(first.body === second.body)
        #expect(Self.header(first, "ETag") == "\"e1\"")
    }

    @Test(
        "identity when gzip is refused or not offered",
        arguments: ["gzip;q=0", "identity", "deflate, br", "*;q=0", "br, gzip; q=0.0", ""])
    func noGzip(accept: String) {
        let response = Self.router().respond(to: Self.request(Self.workPath, headers: [("Accept-Encoding", accept)]))
        #expect(Self.header(response, "Content-Encoding") == nil)
        #expect(response.body.data == Self.calendar)
    }

    @Test("a wildcard Accept-Encoding takes gzip")
    func wildcardGzip() {
        let response = Self.router().respond(to: Self.request(Self.workPath, headers: [("Accept-Encoding", "*")]))
        #expect(Self.header(response, "Content-Encoding") == "gzip")
    }

    @Test("a body is compressed again only when it changed")
    func preparedOnce() {
        let prepared = PreparedFeedBody(Self.rendered())
        #expect(prepared.reused(for: Self.rendered()) === prepared)
        let changed = prepared.reused(for: Self.rendered(Data("other".utf8), etag: "\"e9\""))
        #expect(changed !== prepared)
        #expect(changed.identity.data == Data("other".utf8))
    }

    @Test("after a failed refresh the last body is served with a Warning and its age")
    func stale() throws {
        let failedAt = Self.modified.addingTimeInterval(600)
        let status = FeedStatus(lastSuccess: Self.modified, lastError: "Graph answered 503", lastErrorAt: failedAt)
        let response = Self.router(status: status).respond(
            to: Self.request(Self.workPath), now: Self.modified.addingTimeInterval(700))
        #expect(response.status == 200)
        #expect(response.body.data == Self.calendar)
        #expect(Self.header(response, "Warning") == "110 - \"Response is Stale\"")
        #expect(Self.header(response, "Age") == "700")
    }

    @Test("a refresh that succeeded after a failure serves without a Warning")
    func recovered() {
        let status = FeedStatus(
            lastSuccess: Self.modified.addingTimeInterval(900), lastError: "Graph answered 503",
            lastErrorAt: Self.modified.addingTimeInterval(600))
        let response = Self.router(status: status).respond(to: Self.request(Self.workPath))
        #expect(Self.header(response, "Warning") == nil)
    }

    @Test("a known feed without a body yet is 503 with Retry-After")
    func noBodyYet() throws {
        let response = Self.router(status: FeedStatus(), body: false).respond(to: Self.request(Self.workPath))
        #expect(response.status == 503)
        let retry = try #require(Self.header(response, "Retry-After").flatMap(Int.init))
        #expect(retry >= 1 && retry <= 300)
    }

    @Test("/healthz lists each feed's last success and error in order, without names or secrets")
    func health() throws {
        let failedAt = Self.modified.addingTimeInterval(600)
        let message =
            "Microsoft Graph failed while reading the calendar 'Family' of ann@contoso.example: HTTP 503 "
            + "ServiceUnavailable, Try later [request-id 42]."
        let status = FeedStatus(lastSuccess: Self.modified, lastError: message, lastErrorAt: failedAt)
        let response = Self.router(status: status).respond(to: Self.request("/healthz"))
        #expect(response.status == 200)
        let text = String(decoding: response.body.data, as: UTF8.self)
        #expect(!text.contains("work") && !text.contains("team") && !text.contains(Self.secret))
        #expect(!text.contains("Family") && !text.contains("ann@") && !text.contains("request-id"))
        let object = try #require(try JSONSerialization.jsonObject(with: response.body.data) as? [String: Any])
        #expect(object["status"] as? String == "degraded")
        let feeds = try #require(object["feeds"] as? [[String: Any]])
        #expect(feeds.count == 2)
        #expect(feeds[0]["lastError"] as? String == "HTTP 503 ServiceUnavailable")
        #expect(feeds[0]["lastErrorAt"] as? String == ISO8601DateFormatter().string(from: failedAt))
        #expect(feeds[1]["lastError"] is NSNull)
        #expect(feeds[1]["lastSuccess"] as? String == ISO8601DateFormatter().string(from: Self.modified))
        let healthy = try #require(
            try JSONSerialization.jsonObject(with: Self.router().respond(to: Self.request("/healthz")).body.data)
                as? [String: Any])
        #expect(healthy["status"] as? String == "ok")
    }

    @Test(
        "an error without an HTTP status is only 'refresh failed' in /healthz",
        arguments: ["no calendar named 'Family' (there are: 'Calendar')", "could not connect to graph.microsoft.com"])
    func healthSummaryHidesTheMessage(message: String) {
        #expect(FeedRouter.healthSummary(message) == "refresh failed")
    }

    @Test("the access log shows the path with the secret as …, the status, bytes and client")
    func accessLog() {
        let request = Self.request(Self.workPath)
        let line = AccessLog.line(request, Self.router().respond(to: request), milliseconds: 0.24)
        #expect(line == "GET /…/work.ics 200 \(Self.calendar.count) bytes 0.2 ms 127.0.0.1:50000")
        let guess = Self.request("/\(Self.secret.prefix(60))zzzz/work.ics")
        let guessed = AccessLog.line(guess, Self.router().respond(to: guess), milliseconds: 1)
        #expect(!guessed.contains(Self.secret.prefix(16)))
        #expect(guessed.hasPrefix("GET /…/work.ics 404 "))
        let dotDot = Self.request("/\(Self.secret)/../\(Self.secret)/work.ics")
        let climbed = AccessLog.line(dotDot, Self.router().respond(to: dotDot), milliseconds: 1)
        #expect(climbed.hasPrefix("GET /…/…/…/work.ics 404 ") && !climbed.contains(Self.secret))
        let head = Self.request(Self.workPath, method: "HEAD")
        #expect(AccessLog.line(head, Self.router().respond(to: head), milliseconds: 1).contains(" 200 0 bytes "))
    }
}

@Suite struct HTTPDateTests {
    @Test("Last-Modified is an IMF-fixdate")
    func format() {
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 784_111_777.9)) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    @Test(
        "If-Modified-Since is read in all three forms of RFC 9110",
        arguments: ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"])
    func parse(text: String) {
        #expect(HTTPDate.parse(text) == Date(timeIntervalSince1970: 784_111_777))
    }

    @Test("anything else is no date", arguments: ["", "06 Nov 1994", "Sun, 06 Nov 1994 08:49:37 GMT trailing"])
    func notADate(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }
}
