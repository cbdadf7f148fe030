// Stands in for Microsoft Graph v1.0 (users, mailbox settings, calendars, events, $batch) and the Microsoft
// identity platform's v2.0 token endpoints, on loopback, so graph-ics's tests can prove its networked
// behaviour offline. This file holds the state, the configuration tests change, and the request pipeline
// (recording, fault injection, authentication, throttling, headers); the endpoints live in the
// `GraphStandIn+*.swift` files next to it.
import Foundation

/// A loopback Microsoft Graph that graph-ics's tests start themselves.
///
/// It serves `baseURL` (`http://127.0.0.1:PORT/v1.0`) like Graph and `authority` (`http://127.0.0.1:PORT`)
/// like `login.microsoftonline.com`: paged calendar views with absolute `@odata.nextLink`s, Graph's error
/// bodies, `Prefer: outlook.timezone`, JSON batching, throttling with `Retry-After`, a four-request
/// concurrency limit per mailbox, device-code, refresh-token and client-credentials grants. Tests seed
/// users, calendars and events, configure faults, and afterwards read what was asked of it (`requests`,
/// `sentInvitations`, `retryAfterViolations`, …).
///
/// Thread-safety: every member may be used from any thread; state sits behind one lock and handlers run on
/// the server's connection threads. Call `stop()` when done (deinit does it too).
public final class GraphStandIn: @unchecked Sendable {
    /// One request as it reached the stand-in, for assertions.
    public struct RecordedRequest: Sendable {
        /// The method as sent (upper-case for `$batch` parts).
        public var method: String
        /// Path and query as sent (for a `$batch` part: `/v1.0` plus the part's relative url).
        public var target: String
        /// The percent-decoded path.
        public var path: String
        /// Decoded query parameters.
        public var query: [String: String]
        /// Header fields in arrival order (a `$batch` part: its own headers plus the envelope's
        /// `Authorization`).
        public var headers: [(name: String, value: String)]
        /// The body as received (a `$batch` part: its `body` re-serialised as JSON).
        public var body: Data
        /// When the request head was read (a `$batch` part: when its envelope's head was read).
        public var receivedAt: Date
        /// True for a request that arrived inside a `$batch` envelope.
        public var viaBatch: Bool
        /// The part's `id` inside its `$batch`, nil for plain HTTP requests.
        public var batchRequestID: String?
        /// The connection the request (or its `$batch` envelope) came on: equal ids mean a reused connection.
        public var connectionID: Int
        /// The status answered (nil while the request is being served, or when a fault answered it without one).
        public var status: Int?
        /// True when the request came sooner after a 429 than its `Retry-After` allowed (see
        /// `retryAfterViolations`).
        public var violatedRetryAfter = false

        /// The first value of a header field, matched case-insensitively.
        public func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }

        /// The body parsed as JSON, nil when it is empty or not JSON.
        public var jsonBody: Any? {
            body.isEmpty ? nil : try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])
        }

        /// The body parsed as an `application/x-www-form-urlencoded` form (token endpoint requests).
        public var formBody: [String: String] {
            LoopbackHTTPServer.Request.decodeQuery(String(decoding: body, as: UTF8.self))
        }
    }

    /// A seeding mistake in a test (an event without a usable start or end, an unknown user or calendar).
    public struct SeedError: Error, CustomStringConvertible {
        /// What was wrong with the seed.
        public var description: String
    }

    /// The HTTP server underneath (its counters count every HTTP request, token endpoints included).
    public let server: LoopbackHTTPServer

    /// `http://127.0.0.1:PORT/v1.0`: what graph-ics takes as its Graph URL.
    public var baseURL: String { server.baseURL + "/v1.0" }

    /// `http://127.0.0.1:PORT`: what graph-ics takes as its authority (`/{tenant}/oauth2/v2.0/...` below it).
    public var authority: String { server.baseURL }

    let lock = NSLock()
    var state = State()

    /// Starts the stand-in on an ephemeral loopback port, with no users, no events and no faults.
    public init() throws {
        let router = Router()
        server = try LoopbackHTTPServer { request in
            guard let standIn = router.standIn else { return .closeConnection }
            return standIn.handle(request)
        }
        router.standIn = self
    }

    deinit {
        server.stop()
    }

    /// Stops serving; open connections are closed.
    public func stop() {
        server.stop()
    }

    /// Breaks the reference cycle between the server's handler and the stand-in.
    private final class Router: @unchecked Sendable {
        weak var standIn: GraphStandIn?
    }

    func locked<T>(_ body: (inout State) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }

    // MARK: - Configuration

    /// Time added to every Graph request (each part of a `$batch` too) while it holds its mailbox slot.
    public var latency: Duration {
        get { locked { $0.latency } }
        set { locked { $0.latency = newValue } }
    }

    /// Time added to every HTTP request to `/v1.0` (a `$batch` envelope once, not per part), before it is
    /// served: the round trip of a distant network, which batching saves and server work does not.
    public var networkLatency: Duration {
        get { locked { $0.networkLatency } }
        set { locked { $0.networkLatency = newValue } }
    }

    /// Every Nth Graph request (counting `$batch` parts, not envelopes) is answered 429 `TooManyRequests`.
    public var throttleEvery: Int? {
        get { locked { $0.throttleEvery } }
        set { locked { $0.throttleEvery = newValue } }
    }

    /// The `Retry-After` sent with every 429 (fractional seconds allowed); nil sends none.
    public var retryAfter: Duration? {
        get { locked { $0.retryAfter } }
        set { locked { $0.retryAfter = newValue } }
    }

    /// How many Graph requests may be in flight for one mailbox before 429 `ApplicationThrottled`
    /// (Exchange's MailboxConcurrency limit is 4); nil disables the check.
    public var mailboxConcurrencyLimit: Int? {
        get { locked { $0.mailboxConcurrencyLimit } }
        set { locked { $0.mailboxConcurrencyLimit = newValue } }
    }

    /// When false, Graph requests need no bearer token and act as the first user with every scope.
    public var requireAuthentication: Bool {
        get { locked { $0.requireAuthentication } }
        set { locked { $0.requireAuthentication = newValue } }
    }

    /// Whether `$batch` responses come back in a different order than requested (reversed), as Graph may.
    public var reorderBatchResponses: Bool {
        get { locked { $0.reorderBatchResponses } }
        set { locked { $0.reorderBatchResponses = newValue } }
    }

    /// Whether a POST or PATCH naming a property the v1.0 event type lacks is refused with 400 like Graph.
    public var rejectUnknownEventProperties: Bool {
        get { locked { $0.rejectUnknownEventProperties } }
        set { locked { $0.rejectUnknownEventProperties = newValue } }
    }

    /// The scheme, host and port put in front of `@odata.nextLink`s (default: the stand-in's own,
    /// `http://127.0.0.1:PORT`); set another origin to prove graph-ics refuses a nextLink to a foreign host.
    public var nextLinkOrigin: String? {
        get { locked { $0.nextLinkOrigin } }
        set { locked { $0.nextLinkOrigin = newValue } }
    }

    /// Queues a one-shot fault: the next `times` HTTP requests whose target or decoded path contains
    /// `fragment` get `action` instead of their normal answer (closed connection, garbage, a truncated body,
    /// a 500 or 503, a slow answer, …). Faults are consumed in the order they were queued.
    public func injectFault(_ action: LoopbackHTTPServer.Action, forPathContaining fragment: String, times: Int = 1) {
        guard times > 0 else { return }
        locked { $0.faults.append(Fault(fragment: fragment, action: action, remaining: times)) }
    }

    // MARK: - Observations

    /// Every HTTP request in arrival order (token endpoints included, `$batch` envelopes as one request).
    public var requests: [RecordedRequest] { locked { $0.requests } }

    /// Every Graph operation handled: plain requests and each part of every `$batch`, in arrival order.
    public var operations: [RecordedRequest] { locked { $0.operations } }

    /// Retries that came sooner after a 429 than its `Retry-After` allowed.
    ///
    /// Throttling is per mailbox, as Graph's is per app and mailbox: after a 429 for a mailbox, every request
    /// to that mailbox that arrives before the `Retry-After` ran out is answered 429 again. Only a request
    /// the client certainly sent after reading that 429 counts here: a retry with the `client-request-id`
    /// of a request that was answered 429, arriving before that answer's `Retry-After` ran out. Whether
    /// other threads of the client held back is not visible from here (a request may have left before
    /// the 429 reached the client); the client's own throttle gate records that, and its tests check it.
    public var retryAfterViolations: Int { locked { $0.retryAfterViolations } }

    /// How many 429 answers were given (plain and inside `$batch`).
    public var throttledCount: Int { locked { $0.throttledCount } }

    /// The most Graph requests that were ever in flight for one mailbox at the same moment.
    public var maxInFlightPerMailbox: Int { locked { $0.maxInFlightPerMailbox } }

    /// One address per attendee invitation Graph would have mailed (event created or updated with attendees).
    public var sentInvitations: [String] { locked { $0.sentInvitations } }

    /// One address per attendee told of a cancellation (`cancel` on a meeting with attendees).
    public var sentCancellations: [String] { locked { $0.sentCancellations } }

    // MARK: - State

    struct Fault {
        var fragment: String
        var action: LoopbackHTTPServer.Action
        var remaining: Int
    }

    struct State {
        var users: [StandInUser] = []
        var calendars: [StandInCalendar] = []
        var events: [String: StoredEvent] = [:]
        var nextSequence = 0
        /// "userID\ntransactionId" → event id.
        var transactions: [String: String] = [:]

        var accessTokens: [String: AccessTokenRecord] = [:]
        var refreshTokens: [String: RefreshTokenRecord] = [:]
        var deviceCodes: [String: DeviceCodeRecord] = [:]
        var apps: [String: RegisteredApp] = [:]
        var oauth = OAuthSettings()
        var devicePollTimes: [Date] = []
        var devicePollIntervalViolations = 0

        var latency: Duration = .zero
        var networkLatency: Duration = .zero
        var throttleEvery: Int?
        var retryAfter: Duration? = .milliseconds(50)
        var mailboxConcurrencyLimit: Int? = 4
        var requireAuthentication = true
        var reorderBatchResponses = true
        var rejectUnknownEventProperties = true
        var nextLinkOrigin: String?

        var faults: [Fault] = []
        /// Opaque `$skiptoken` → offset into the collection it pages.
        var skipTokens: [String: Int] = [:]
        var throttleCounter = 0
        /// Per mailbox: until when the Retry-After of its last 429 refuses requests.
        var refusedUntil: [String: Date] = [:]
        /// Per `client-request-id` answered 429 with a Retry-After: until when a retry of it is early.
        var retryNotBefore: [String: Date] = [:]
        var retryAfterViolations = 0
        var throttledCount = 0
        var mailboxInFlight: [String: Int] = [:]
        var maxInFlightPerMailbox = 0

        var requests: [RecordedRequest] = []
        var operations: [RecordedRequest] = []
        var sentInvitations: [String] = []
        var sentCancellations: [String] = []
    }

    // MARK: - Pipeline

    /// Entry point for every HTTP request the server reads.
    func handle(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Action {
        let record = RecordedRequest(
            method: request.method, target: request.target, path: request.path, query: request.query,
            headers: request.headers, body: request.body, receivedAt: request.receivedAt, viaBatch: false,
            batchRequestID: nil, connectionID: request.connectionID)
        var index = 0
        let fault: LoopbackHTTPServer.Action? = locked { state in
            state.requests.append(record)
            index = state.requests.count - 1
            guard
                let index = state.faults.firstIndex(where: {
                    request.target.contains($0.fragment) || request.path.contains($0.fragment)
                })
            else { return nil }
            let action = state.faults[index].action
            state.faults[index].remaining -= 1
            if state.faults[index].remaining <= 0 { state.faults.remove(at: index) }
            return action
        }
        let action = fault ?? route(request)
        let status: Int? =
            switch action {
            case .respond(let response), .delayed(_, let response): response.status
            case .truncated(let response, _): response.status
            case .closeConnection, .raw: nil
            }
        locked { $0.requests[index].status = status }
        return action
    }

    /// Serves a request no fault took.
    private func route(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Action {
        if request.path.hasPrefix("/v1.0") {
            let delay = locked { $0.networkLatency }
            if delay > .zero { sleep(for: delay) }
        }

        if request.path == "/v1.0/$batch" || request.path.lowercased() == "/v1.0/$batch" {
            return .respond(serveBatch(request))
        }
        if request.path.hasPrefix("/v1.0/") || request.path == "/v1.0" {
            return .respond(serveGraph(GraphCall(request, viaBatch: false, batchRequestID: nil)))
        }
        if let response = serveOAuth(request) {
            return .respond(response)
        }
        return .respond(.text(404, "The stand-in serves /v1.0/... and /{tenant}/oauth2/v2.0/{devicecode,token}."))
    }

    /// One Graph request to serve, from the wire or from a `$batch` part.
    struct GraphCall {
        var method: String
        var target: String
        var path: String
        /// Query parameters with lower-cased names (OData names and Graph's parameters ignore case).
        var query: [String: String]
        var headers: [(name: String, value: String)]
        var body: Data
        var receivedAt: Date
        var viaBatch: Bool
        var batchRequestID: String?
        var connectionID: Int

        init(_ request: LoopbackHTTPServer.Request, viaBatch: Bool, batchRequestID: String?) {
            connectionID = request.connectionID
            method = request.method.uppercased()
            target = request.target
            path = request.path
            var lowered: [String: String] = [:]
            for (name, value) in request.query { lowered[name.lowercased()] = value }
            query = lowered
            headers = request.headers
            body = request.body
            receivedAt = request.receivedAt
            self.viaBatch = viaBatch
            self.batchRequestID = batchRequestID
        }

        func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }

        /// The raw query string as sent, without the leading `?`.
        var rawQuery: String {
            target.firstIndex(of: "?").map { String(target[target.index(after: $0)...]) } ?? ""
        }

        /// The raw path as sent (still percent-encoded).
        var rawPath: String {
            target.firstIndex(of: "?").map { String(target[..<$0]) } ?? target
        }
    }

    /// Per-request facts every answer needs: ids for the headers and error bodies, and the preferences.
    struct RequestContext {
        var requestID = UUID().uuidString.lowercased()
        var clientRequestID: String
        var date = Date()
        /// The zone named in `Prefer: outlook.timezone`, with the name as sent.
        var preferredZone: (name: String, zone: TimeZone)?
        /// `Prefer: outlook.body-content-type` ("text" or "html"), lower-cased.
        var preferredBodyType: String?
        var preferencesApplied: [String] = []

        init(_ call: GraphCall) {
            clientRequestID = call.header("client-request-id") ?? ""
            if clientRequestID.isEmpty { clientRequestID = requestID }
            for preference in GraphStandIn.preferences(in: call.headers) {
                let (name, value) = preference
                switch name.lowercased() {
                case "outlook.timezone":
                    if let zone = GraphStandIn.timeZone(named: value) {
                        preferredZone = (value, zone)
                        preferencesApplied.append("outlook.timezone=\"\(value)\"")
                    }
                case "outlook.body-content-type":
                    let kind = value.lowercased()
                    if kind == "text" || kind == "html" {
                        preferredBodyType = kind
                        preferencesApplied.append("outlook.body-content-type=\"\(kind)\"")
                    }
                case "idtype":
                    preferencesApplied.append("IdType=\"\(value)\"")
                default:
                    break
                }
            }
        }
    }

    /// `name="value"` preferences of every `Prefer` header (several per header, comma-separated).
    static func preferences(in headers: [(name: String, value: String)]) -> [(String, String)] {
        var result: [(String, String)] = []
        for header in headers where header.name.caseInsensitiveCompare("Prefer") == .orderedSame {
            var current = ""
            var inQuotes = false
            var parts: [String] = []
            for character in header.value {
                if character == "\"" { inQuotes.toggle() }
                if character == "," && !inQuotes {
                    parts.append(current)
                    current = ""
                } else {
                    current.append(character)
                }
            }
            parts.append(current)
            for part in parts {
                let pieces = part.split(separator: "=", maxSplits: 1).map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                guard let name = pieces.first, !name.isEmpty else { continue }
                var value = pieces.count > 1 ? pieces[1] : ""
                if value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 {
                    value = String(value.dropFirst().dropLast())
                }
                result.append((name, value))
            }
        }
        return result
    }

    /// Serves one Graph request (plain or a `$batch` part): authentication, routing, throttling, latency,
    /// the endpoint itself, and the headers Graph puts on every answer.
    func serveGraph(_ call: GraphCall) -> LoopbackHTTPServer.Response {
        let context = RequestContext(call)
        let record = RecordedRequest(
            method: call.method, target: call.target, path: call.path, query: call.query,
            headers: call.headers, body: call.body, receivedAt: call.receivedAt, viaBatch: call.viaBatch,
            batchRequestID: call.batchRequestID, connectionID: call.connectionID)
        let index = locked { state in
            state.operations.append(record)
            return state.operations.count - 1
        }
        var violated = false
        let response = serveAuthenticated(call, context, violated: &violated)
        locked { state in
            state.operations[index].status = response.status
            state.operations[index].violatedRetryAfter = violated
        }
        return finish(response, context)
    }

    private func serveAuthenticated(_ call: GraphCall, _ context: RequestContext, violated: inout Bool)
        -> LoopbackHTTPServer.Response
    {
        let principal: Principal
        switch authenticate(call, context) {
        case .success(let found): principal = found
        case .failure(let rejection): return rejection.response
        }
        let route: GraphRoute
        switch resolveRoute(call, principal, context) {
        case .success(let found): route = found
        case .failure(let rejection): return rejection.response
        }
        if let denied = authorize(route, call, principal, context) { return denied }

        // Throttling happens per mailbox, before any work.
        let mailbox = route.mailboxUserID
        if let refusal = admit(mailbox: mailbox, at: call.receivedAt, context, violated: &violated) { return refusal }
        defer { release(mailbox: mailbox) }
        let delay = locked { $0.latency }
        if delay > .zero { sleep(for: delay) }
        return perform(route, call, principal, context)
    }

    /// Checks the refusal window, the every-Nth throttle and the mailbox's concurrency; on success the
    /// request holds one slot of its mailbox until `release`.
    func admit(mailbox: String, at arrival: Date, _ context: RequestContext, violated: inout Bool)
        -> LoopbackHTTPServer.Response?
    {
        locked { state in
            let now = Date()
            state.retryNotBefore = state.retryNotBefore.filter { $0.value > now }
            // A retry of a request answered 429 was sent after the client read that answer: if it came
            // before the answer's Retry-After ran out, the client did not wait.
            if let notBefore = state.retryNotBefore[context.clientRequestID], arrival < notBefore {
                state.retryAfterViolations += 1
                violated = true
            }
            if let until = state.refusedUntil[mailbox], arrival < until {
                state.throttledCount += 1
                let left = Duration.milliseconds(Int64(max(1, (until.timeIntervalSince(now) * 1000).rounded(.up))))
                if state.retryAfter != nil { state.retryNotBefore[context.clientRequestID] = until }
                return throttled(
                    code: "TooManyRequests", message: "Application is over its resource limit.",
                    retryAfter: state.retryAfter == nil ? nil : left, context)
            }
            state.mailboxInFlight[mailbox, default: 0] += 1
            let inFlight = state.mailboxInFlight[mailbox, default: 0]
            state.throttleCounter += 1
            var refusal: (code: String, message: String)?
            if let every = state.throttleEvery, every > 0, state.throttleCounter % every == 0 {
                refusal = ("TooManyRequests", "Application is over its resource limit.")
            } else if let limit = state.mailboxConcurrencyLimit, inFlight > limit {
                refusal = ("ApplicationThrottled", "Application is over its MailboxConcurrency limit.")
            }
            guard let refusal else {
                state.maxInFlightPerMailbox = max(state.maxInFlightPerMailbox, inFlight)
                return nil
            }
            state.mailboxInFlight[mailbox, default: 1] -= 1
            state.throttledCount += 1
            if let wait = state.retryAfter {
                let until = now.addingTimeInterval(Self.seconds(wait))
                state.refusedUntil[mailbox] = max(state.refusedUntil[mailbox] ?? until, until)
                state.retryNotBefore[context.clientRequestID] = until
            }
            return throttled(code: refusal.code, message: refusal.message, retryAfter: state.retryAfter, context)
        }
    }

    func release(mailbox: String) {
        locked { state in
            let left = state.mailboxInFlight[mailbox, default: 1] - 1
            state.mailboxInFlight[mailbox] = left > 0 ? left : nil
        }
    }

    func throttled(code: String, message: String, retryAfter: Duration?, _ context: RequestContext)
        -> LoopbackHTTPServer.Response
    {
        var response = graphError(429, code, message, context)
        if let retryAfter { response.headers.append(("Retry-After", Self.retryAfterText(retryAfter))) }
        return response
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    func sleep(for duration: Duration) {
        let micros = Self.seconds(duration) * 1_000_000
        if micros >= 1 { usleep(useconds_t(min(micros, 60_000_000))) }
    }

    /// Adds `request-id`, `client-request-id`, `Preference-Applied` and `Date` to an answer.
    func finish(_ response: LoopbackHTTPServer.Response, _ context: RequestContext) -> LoopbackHTTPServer.Response {
        var response = response
        response.headers.append(("request-id", context.requestID))
        response.headers.append(("client-request-id", context.clientRequestID))
        if !context.preferencesApplied.isEmpty && (200..<300).contains(response.status) {
            response.headers.append(("Preference-Applied", context.preferencesApplied.joined(separator: ", ")))
        }
        response.headers.append(("Date", Self.httpDate(context.date)))
        return response
    }

    /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) for the `Date` header.
    static func httpDate(_ date: Date) -> String {
        let time = GraphDateTime(date, in: utc)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[time.weekday]), \(two(time.day)) \(months[time.month - 1]) \(time.year) "
            + "\(two(time.hour)):\(two(time.minute)):\(two(time.second)) GMT"
    }

    // MARK: - Answers

    /// Graph's JSON content type.
    static let jsonContentType =
        "application/json;odata.metadata=minimal;odata.streaming=true;IEEE754Compatible=false;charset=utf-8"

    /// A JSON answer with Graph's content type.
    func graphJSON(_ status: Int, _ object: Any) -> LoopbackHTTPServer.Response {
        guard let body = Self.jsonData(object) else {
            return .text(500, "stand-in produced a value that is not JSON")
        }
        return LoopbackHTTPServer.Response(
            status: status, headers: [("Content-Type", Self.jsonContentType)], body: body)
    }

    /// Graph's error body: `{"error":{"code","message","innerError":{"date","request-id","client-request-id"}}}`.
    func graphError(_ status: Int, _ code: String, _ message: String, _ context: RequestContext)
        -> LoopbackHTTPServer.Response
    {
        graphJSON(
            status,
            [
                "error": [
                    "code": code,
                    "message": message,
                    "innerError": [
                        "date": Self.innerErrorDate(context.date),
                        "request-id": context.requestID,
                        "client-request-id": context.clientRequestID,
                    ],
                ]
            ])
    }

    /// A failed step of the pipeline, carrying the answer to give.
    struct Rejection: Error {
        var response: LoopbackHTTPServer.Response
    }

    func reject(_ status: Int, _ code: String, _ message: String, _ context: RequestContext) -> Rejection {
        Rejection(response: graphError(status, code, message, context))
    }

    /// A Graph-like opaque identifier (URL-safe base64 with Exchange's `AAMkA` prefix).
    static func newItemID(prefix: String = "AAMkAGI2") -> String {
        // 48 random bytes as URL-safe base64 (64 characters), like Exchange's REST ids.
        let bytes = random.bytes(48)
        var text = prefix
        text.reserveCapacity(prefix.count + 65)
        var index = 0
        while index < bytes.count {
            let word = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            for shift in [18, 12, 6, 0] { text.append(tokenAlphabet[Int((word >> UInt32(shift)) & 63)]) }
            index += 3
        }
        return text + "="
    }

    private static let tokenAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

    /// A random opaque string for tokens and codes.
    static func randomToken(length: Int = 40) -> String {
        String(random.bytes(length).map { tokenAlphabet[Int($0 & 63)] })
    }
}
