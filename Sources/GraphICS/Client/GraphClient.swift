import Foundation
import ICalBridge
import Synchronization

/// graph-ics' client of Microsoft Graph for one mailbox: the signed-in user, mailbox settings, calendars,
/// calendarView pages, calendarView delta rounds, events (read, create, update, delete, cancel, look up by
/// extended property; update and delete also with `If-Match`) and `$batch`.
///
/// Every call goes through one path (``perform(_:operation:)``) that
/// - sets `Authorization: Bearer …` from the ``AccessTokenSource``, one `Prefer` header with
///   `outlook.timezone="UTC"`, `outlook.body-content-type="text"` and `IdType="ImmutableId"` (followed by
///   the request's own `Prefer`, such as delta's `odata.maxpagesize`), a fresh
///   `client-request-id`, `Accept: application/json` and, with a body, `Content-Type: application/json`
///   (the transport adds `User-Agent`);
/// - holds one ``RequestLimiter`` permit per attempt, never while it waits, so at most four requests are
///   in flight for the mailbox however many threads call the client;
/// - retries what the ``RetryPolicy`` allows (429, 503, 504, dropped connections), never sooner than
///   Graph's `Retry-After`; after a 429 or 503 with `Retry-After` no request of this client goes to Graph
///   before that time (Graph throttles per app and mailbox, not per request);
/// - after a 401, asks the token source once for a new token and replays; a second 401 is an error.
///
/// Failures are ``GraphError``s naming the operation and Graph's request-id; `AuthError`s from the token
/// source pass through unchanged. The optional `log` closure receives one line per attempt (method, path
/// with token-like query values elided, status, request-id, duration) for `--verbose`; no header value is
/// ever logged.
///
/// Thread-safety: all methods may be called from several threads at once. They block the calling thread.
public final class GraphClient: Sendable {
    /// Graph's service root, such as `https://graph.microsoft.com/v1.0` or the stand-in's.
    public let baseURL: URL
    /// The mailbox the calls address.
    public let mailbox: Mailbox
    let transport: any HTTPTransport
    let tokens: any AccessTokenSource
    let retry: RetryPolicy
    let limiter: RequestLimiter
    let log: (@Sendable (String) -> Void)?
    /// Told, once per wait, that graph-ics waits before trying again (``RetryNotice``).
    let notice: RetryNotice?
    let sleep: @Sendable (Duration) -> Void
    let now: @Sendable () -> Date
    /// The instant before which no request goes out, after Graph asked to wait.
    let throttle = ThrottleGate()
    /// `baseURL` as text, without a trailing slash.
    let root: String

    /// The longest range one calendarView request covers; longer ranges are fetched in windows of this
    /// length (Graph answers long ranges, but slowly).
    public static let calendarViewWindow: TimeInterval = 31 * 86_400

    /// The longest `startDateTime`–`endDateTime` span Graph answers at all (calendarView, instances): 1825
    /// days. A longer one gets 400 `ErrorInvalidRequest` ("Maximum number of days: 1825").
    public static let longestRange: TimeInterval = 1825 * 86_400

    /// Creates a client for `mailbox` at `baseURL`.
    ///
    /// - Parameters:
    ///   - notice: receives `retrying in 4 s (2/6): Graph answered 503` before a wait (the command's
    ///     terminal shows it); waits of several threads that overlap are told once.
    ///   - sleep: how the client waits before a retry; tests inject a recorder. It must not return
    ///     before the duration has passed, unless the requests are being cancelled
    ///     (``RequestCancellation/sleep(for:)``: the next try then throws ``RequestCancelled``).
    ///   - now: the wall clock, for `Retry-After` dates and the policy's deadline.
    public init(
        baseURL: URL,
        mailbox: Mailbox = .me,
        transport: any HTTPTransport,
        tokens: any AccessTokenSource,
        retry: RetryPolicy = .init(),
        limiter: RequestLimiter = .init(limit: 4),
        log: (@Sendable (String) -> Void)? = nil,
        notice: (@Sendable (String) -> Void)? = nil,
        sleep: @escaping @Sendable (Duration) -> Void = GraphClient.sleep(for:),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.baseURL = baseURL
        self.mailbox = mailbox
        self.transport = transport
        self.tokens = tokens
        self.retry = retry
        self.limiter = limiter
        self.log = log
        self.notice = notice.map { RetryNotice($0) }
        self.sleep = sleep
        self.now = now
        var root = baseURL.absoluteString
        while root.hasSuffix("/") { root.removeLast() }
        self.root = root
    }

    /// Blocks the calling thread for at least `duration` (a monotonic clock decides, so it never wakes early).
    public static func sleep(for duration: Duration) {
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: duration)
        while true {
            let left = clock.now.duration(to: end)
            if left <= .zero { return }
            Thread.sleep(forTimeInterval: timeInterval(left))
        }
    }

    // MARK: Calls

    /// The user whose mailbox this is (`GET /me` or `GET /users/{upn}`).
    public func me() throws -> GraphUser {
        let response = try get(
            mailbox.path, query: [("$select", "id,displayName,mail,userPrincipalName")],
            operation: "reading the signed-in user")
        return try decode(GraphUser.self, from: response, operation: "reading the signed-in user")
    }

    /// The mailbox's settings; graph-ics reads the time zone (`GET …/mailboxSettings`).
    public func mailboxSettings() throws -> GraphMailboxSettings {
        let operation = "reading mailbox settings"
        let response = try get(mailbox.path + "/mailboxSettings", operation: operation)
        return try decode(GraphMailboxSettings.self, from: response, operation: operation)
    }

    /// Every calendar of the mailbox, following `@odata.nextLink` (`GET …/calendars`).
    public func calendars() throws -> [GraphCalendar] {
        let operation = "listing calendars"
        var calendars: [GraphCalendar] = []
        try pages(
            from: url(mailbox.path + "/calendars", query: [("$top", "100")]), operation: operation
        ) { response in
            calendars += try decode(GraphCollection<GraphCalendar>.self, from: response, operation: operation).value
        }
        return calendars
    }

    // MARK: Paths

    /// The path of a calendar relative to ``baseURL``: `/me/calendar` for `nil` (the default calendar),
    /// else `/me/calendars/{id}`.
    public func calendarPath(_ calendarID: String?) -> String {
        guard let calendarID else { return mailbox.path + "/calendar" }
        return mailbox.path + "/calendars/" + GraphQuery.encodePathSegment(calendarID)
    }

    /// The collection new events are posted to, relative to ``baseURL`` (for ``BatchRequest/url``):
    /// `/me/events` for `nil`, else `/me/calendars/{id}/events`.
    public func eventsPath(calendarID: String?) -> String {
        guard calendarID != nil else { return mailbox.path + "/events" }
        return calendarPath(calendarID) + "/events"
    }

    /// The path of one event relative to ``baseURL`` (for ``BatchRequest/url``).
    public func eventPath(id: String) -> String {
        mailbox.path + "/events/" + GraphQuery.encodePathSegment(id)
    }

    /// `baseURL` + `path` + `?query`, the query values percent-encoded.
    func url(_ path: String, query: [(String, String)] = []) throws -> URL {
        var text = root + path
        if !query.isEmpty {
            text += "?" + GraphQuery.queryString(query.map { (name: $0.0, value: $0.1) })
        }
        guard let url = URL(string: text) else {
            throw GraphError(.other, operation: "building a request", message: "invalid URL path \(path)")
        }
        return url
    }

    func rangeQuery(start: Date, end: Date, pageSize: Int) -> [(String, String)] {
        [
            ("startDateTime", Self.iso8601(start)),
            ("endDateTime", Self.iso8601(end)),
            ("$top", String(min(max(pageSize, 1), 1000))),
        ]
    }

    /// `2026-03-02T08:00:00Z`.
    static func iso8601(_ date: Date) -> String {
        Self.graphUTC(date) + "Z"
    }

    /// `2026-03-02T08:00:00`: how Graph writes a UTC `dateTime` (before its fraction).
    static func graphUTC(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String {
            let value = value ?? 0
            return value < 10 ? "0\(value)" : "\(value)"
        }
        var year = String(parts.year ?? 0)
        while year.count < 4 { year = "0" + year }
        return "\(year)-\(two(parts.month))-\(two(parts.day))T\(two(parts.hour)):\(two(parts.minute)):"
            + two(parts.second)
    }

    // MARK: Requests

    /// GETs `path` (relative to ``baseURL``).
    func get(_ path: String, query: [(String, String)] = [], operation: String) throws -> HTTPResponse {
        try send("GET", url(path, query: query), body: nil, operation: operation)
    }

    /// Sends one request through ``perform(_:operation:)``.
    func send(_ method: String, _ url: URL, body: Data?, operation: String) throws -> HTTPResponse {
        try perform(HTTPRequest(method: method, url: url, body: body), operation: operation)
    }

    /// GETs `first`, then each `@odata.nextLink`, handing every response to `body` before the next
    /// request; every request carries `headers`. A nextLink to another origin than ``baseURL`` is refused.
    func pages(
        from first: URL, operation: String, headers: [(name: String, value: String)] = [],
        _ body: (HTTPResponse) throws -> Void
    ) throws {
        var next: URL? = first
        while let url = next {
            let response = try perform(HTTPRequest(method: "GET", url: url, headers: headers), operation: operation)
            guard let links = GraphPage.links(in: response.body) else {
                throw GraphError.malformed("a page is not a JSON object", operation: operation, response: response)
            }
            try body(response)
            next = try links.nextLink.map { try followable($0, operation: operation) }
        }
    }

    /// The URL of a nextLink, used verbatim, if it points at ``baseURL``'s scheme, host and port.
    func followable(_ link: String, operation: String) throws -> URL {
        guard let url = URL(string: link), Self.sameOrigin(url, baseURL) else {
            // Host and port, so that a link to another port of the same host does not read "127.0.0.1, not
            // 127.0.0.1".
            func place(_ url: URL?) -> String? {
                guard let url, let host = url.host, !host.isEmpty else { return nil }
                return url.port.map { "\(host):\($0)" } ?? host
            }
            throw GraphError(
                .other,
                operation: operation,
                code: "foreignNextLink",
                message: "Graph's next-page link points to \(place(URL(string: link)) ?? "an unreadable URL"), not to"
                    + " \(place(baseURL) ?? "the Graph host"); graph-ics does not follow it, so the access token is not"
                    + " sent there"
            )
        }
        return url
    }

    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        func origin(_ url: URL) -> (String, String, Int)? {
            guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
            let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
            return (scheme, host, port)
        }
        guard let left = origin(a), let right = origin(b) else { return false }
        return left == right
    }

    /// The one path every request takes: headers, limiter permit, retries, token refresh.
    ///
    /// Returns a 2xx response; throws ``GraphError`` for any other final answer or failure, and
    /// `AuthError` from the token source and ``RequestCancelled`` from the transport unchanged.
    ///
    /// - Parameters:
    ///   - repeatable: overrides the policy's `isRetryable(request:)` (a `$batch` is repeatable only when
    ///     every request inside it is).
    ///   - waitedOut: the throttle hold (``ThrottleGate`` generation) the caller has already waited out,
    ///     so the first attempt does not wait for it twice.
    ///   - inspect: runs on every response while the limiter permit is still held, so that a `Retry-After`
    ///     inside it (a `$batch`'s inner 429) holds the other threads before any of them can send; returns
    ///     the hold it set, if any.
    func perform(
        _ original: HTTPRequest,
        operation: String,
        repeatable: Bool? = nil,
        waitedOut: Int? = nil,
        inspect: ((HTTPResponse) -> Int?)? = nil
    ) throws -> HTTPResponse {
        var request = original
        request.setHeader("Accept", "application/json")
        // A caller's own preference (odata.maxpagesize) joins the ones every request carries.
        request.setHeader("Prefer", original.header("Prefer").map { Self.preferences + ", " + $0 } ?? Self.preferences)
        request.setHeader("client-request-id", UUID().uuidString.lowercased())
        if request.body != nil, request.header("Content-Type") == nil {
            request.setHeader("Content-Type", "application/json")
        }
        let retryable = repeatable ?? retry.isRetryable(request: request)
        let started = ContinuousClock.now
        var token = try tokens.accessToken()
        var refreshed = false
        var attempt = 0
        var waited = waitedOut
        while true {
            attempt += 1
            request.setHeader("Authorization", "Bearer " + token)
            let (outcome, held) = attemptOnce(request, attempt: attempt, waitedOut: waited, inspect: inspect)
            waited = nil
            var response: HTTPResponse?
            var failure: (any Error)?
            switch outcome {
            case .success(let answer):
                if (200..<300).contains(answer.status) { return answer }
                if answer.status == 401 {
                    if refreshed {
                        throw GraphError.response(answer, operation: operation, kind: .unauthorized)
                    }
                    refreshed = true
                    token = try tokens.tokenAfterRejection(of: token)
                    attempt -= 1  // a replay with a new token is not a retry
                    continue
                }
                response = answer
            case .failure(let error):
                // Stopping is not Graph failing: no retry, no GraphError around it.
                if error is RequestCancelled { throw error }
                failure = error
            }
            let time = now()
            // A connection that could not be made sent nothing: even a create may go again.
            let allowed = retryable || (failure as? CurlError)?.code == .couldNotConnect
            if allowed,
                let delay = retry.delay(
                    afterAttempt: attempt, response: response, error: failure, now: time,
                    elapsed: started.duration(to: ContinuousClock.now))
            {
                notice?.waiting(
                    delay, before: attempt + 1, of: retry.maxAttempts,
                    because: RetryNotice.reason(request.url, response: response, failure: failure))
                sleep(delay)
                waited = held  // the delay is at least what this answer's Retry-After asked for
                continue
            }
            throw finalError(
                request, response: response, failure: failure, attempts: attempt, retryable: retryable,
                operation: operation)
        }
    }

    /// The `Prefer` header of every request: times in UTC, bodies as text, immutable ids.
    static let preferences = #"outlook.timezone="UTC", outlook.body-content-type="text", IdType="ImmutableId""#

    /// After a 429 or 503 with `Retry-After`, holds every request of this client for that long; returns
    /// the hold's generation when this answer set or extended it.
    @discardableResult
    func holdIfAsked(_ response: HTTPResponse, now: Date) -> Int? {
        guard [429, 503].contains(response.status), let header = response.header("Retry-After"),
            let wait = RetryPolicy.retryAfter(header, now: now)
        else { return nil }
        return throttle.hold(for: wait)
    }

    /// One try: waits out the throttle hold (unless it is the one `waitedOut` names), takes a permit, and
    /// sends, unless the hold changed while this thread waited for its permit (then it gives the permit
    /// back and waits again). A `Retry-After` in the answer holds the other threads before the permit is
    /// released; returns the generation of that hold, if any.
    private func attemptOnce(
        _ request: HTTPRequest,
        attempt: Int,
        waitedOut: Int?,
        inspect: ((HTTPResponse) -> Int?)?
    ) -> (Result<HTTPResponse, any Error>, held: Int?) {
        let clock = ContinuousClock()
        var waited = waitedOut
        while true {
            if let hold = throttle.remaining(unless: waited) {
                sleep(hold.left)
                waited = hold.generation
            }
            let outcome: (Result<HTTPResponse, any Error>, held: Int?)? = limiter.withPermit {
                guard throttle.admit(unless: waited) else { return nil }
                let sent = clock.now
                let outcome = Result { try transport.send(request) }
                let duration = sent.duration(to: clock.now)
                var held: Int?
                if case .success(let response) = outcome {
                    held = holdIfAsked(response, now: now())
                    if let inner = inspect?(response) { held = max(held ?? inner, inner) }
                }
                if let log { log(Self.logLine(request, outcome, duration: duration, attempt: attempt)) }
                return (outcome, held)
            }
            if let outcome { return outcome }
        }
    }

    private func finalError(
        _ request: HTTPRequest,
        response: HTTPResponse?,
        failure: (any Error)?,
        attempts: Int,
        retryable: Bool,
        operation: String
    ) -> GraphError {
        let retried = attempts > 1
        if let response {
            let kind: GraphError.Kind? = [429, 503, 504].contains(response.status) ? .unavailable : nil
            return GraphError.response(response, operation: operation, kind: kind)
        }
        let error = failure ?? GraphError(.other, operation: operation, message: "no response")
        if let graphError = error as? GraphError { return graphError }
        if let curl = error as? CurlError {
            let kind: GraphError.Kind
            switch curl.code {
            case .couldNotConnect, .timedOut, .connectionDropped:
                // Retried in vain: Graph is unreachable. Not retried (a create without a transactionId,
                // or a policy that allows one try): the next run may well succeed.
                kind = retried || (retryable && retry.maxAttempts > 1) ? .unavailable : .temporary
            case .couldNotResolveHost: kind = .unavailable
            default: kind = .other
            }
            if curl.code == .couldNotConnect {
                // The host is not there: say so once, without libcurl's sentence and without blaming Graph.
                var error = GraphError(
                    kind, operation: operation, message: "cannot reach \(RetryNotice.hostAndPort(of: request))",
                    underlying: curl)
                error.attempts = attempts
                return error
            }
            return GraphError(kind, operation: operation, message: curl.message, underlying: curl)
        }
        return GraphError(.other, operation: operation, message: "\(error)", underlying: error)
    }

    /// `GET /v1.0/me/calendarView?startDateTime=…&$skiptoken=… → 200 in 31 ms (request-id …, attempt 1)`.
    static func logLine(
        _ request: HTTPRequest,
        _ outcome: Result<HTTPResponse, any Error>,
        duration: Duration,
        attempt: Int
    ) -> String {
        var target = request.url.path
        if let query = request.url.query, !query.isEmpty {
            let items = query.split(separator: "&", omittingEmptySubsequences: true).map { item -> String in
                let parts = item.split(separator: "=", maxSplits: 1)
                let name = String(parts[0])
                let secret = ["token", "code", "secret", "password", "signature", "sig"].contains {
                    name.lowercased().contains($0)
                }
                guard parts.count == 2 else { return name }
                return secret ? name + "=…" : String(item)
            }
            target += "?" + items.joined(separator: "&")
        }
        let milliseconds = Int((timeInterval(duration) * 1000).rounded())
        switch outcome {
        case .success(let response):
            let requestID = response.header("request-id") ?? "-"
            return "\(request.method) \(target) → \(response.status) in \(milliseconds) ms "
                + "(request-id \(requestID), attempt \(attempt))"
        case .failure(let error):
            let reason = (error as? CurlError)?.message ?? "\(type(of: error))"
            return "\(request.method) \(target) → failed in \(milliseconds) ms: \(reason) (attempt \(attempt))"
        }
    }

    func decode<T: Decodable>(_ type: T.Type, from response: HTTPResponse, operation: String) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: response.body)
        } catch {
            throw GraphError(
                .other, operation: operation, status: response.status,
                message: "Graph's answer could not be read as \(T.self): \(Self.describe(error))",
                requestID: response.header("request-id"), underlying: error)
        }
    }

    /// A decoding error as `key path: reason`.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context) -> String {
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return path.isEmpty ? "" : path.joined(separator: ".") + ": "
        }
        switch error {
        case .keyNotFound(let key, let context): return path(context) + "missing \"\(key.stringValue)\""
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return path(context) + context.debugDescription
        @unknown default: return "\(error)"
        }
    }
}

/// `{"value": [...]}`.
struct GraphCollection<Element: Decodable>: Decodable {
    var value: [Element]
}

/// A duration in seconds.
private func timeInterval(_ duration: Duration) -> TimeInterval {
    let parts = duration.components
    return TimeInterval(parts.seconds) + TimeInterval(parts.attoseconds) / 1e18
}
