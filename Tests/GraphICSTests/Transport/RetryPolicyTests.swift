import Foundation
import GraphICS
import GraphStandIn
import Testing

/// A transport that plays back a script of responses and errors, counting the requests it gets.
final class RetryScriptedTransport: HTTPTransport, @unchecked Sendable {
    enum Step {
        case status(Int, retryAfter: String?)
        case failure(CurlError)
    }

    private let lock = NSLock()
    private var steps: [Step]
    private var sent: [HTTPRequest] = []

    init(_ steps: [Step]) {
        self.steps = steps
    }

    var requests: [HTTPRequest] {
        lock.lock()
        defer { lock.unlock() }
        return sent
    }

    func send(_ request: HTTPRequest) throws -> HTTPResponse {
        lock.lock()
        sent.append(request)
        // The last step repeats forever.
        let step = steps.count > 1 ? steps.removeFirst() : steps.first
        lock.unlock()
        switch step {
        case .status(let status, let retryAfter)?:
            return HTTPResponse(
                status: status, headers: retryAfter.map { [("Retry-After", $0)] } ?? [], body: Data("\(status)".utf8))
        case .failure(let error)?:
            throw error
        case nil:
            return HTTPResponse(status: 200)
        }
    }
}

/// A clock for `run`: `sleep` moves it forward instead of waiting.
final class RetryTestClock: @unchecked Sendable {
    private(set) var now = Date(timeIntervalSince1970: 1_700_000_000)
    private(set) var sleeps: [Duration] = []

    func sleep(_ duration: Duration) {
        sleeps.append(duration)
        now += Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

@Suite struct RetryPolicyTests {
    static let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT

    static func get() throws -> HTTPRequest {
        HTTPRequest(method: "GET", url: try #require(URL(string: "https://graph.microsoft.com/v1.0/me")))
    }

    static func dropped() -> CurlError {
        CurlError(code: .connectionDropped, host: "graph.microsoft.com", message: "reset", curlCode: 56)
    }

    @Test(
        "Retry-After values: seconds, fractions, HTTP dates",
        arguments: [
            ("2", 2.0), ("0", 0.0), (" 7 ", 7.0), ("2.128", 2.128), ("0.05", 0.05), (".5", 0.5),
            ("Sun, 06 Nov 1994 08:50:07 GMT", 30.0),  // IMF-fixdate, 30 s ahead
            ("Sunday, 06-Nov-94 08:49:47 GMT", 10.0),  // RFC 850
            ("Sun Nov  6 08:49:42 1994", 5.0),  // asctime
            ("Sun, 06 Nov 1994 08:00:00 GMT", 0.0),  // in the past: go now
        ])
    func retryAfterParses(value: String, seconds: Double) throws {
        let parsed = try #require(RetryPolicy.retryAfter(value, now: Self.now))
        #expect(abs(RetryPolicyTestSupport.seconds(parsed) - seconds) < 0.000_001)
    }

    @Test(
        "garbage Retry-After values are ignored",
        arguments: [
            "", "-1", "-0.5", "soon", "1e3", "inf", "nan", "+3", "1.2.3", "0x10", "3 s",
            "Sun, 06 Nov 1994 08:49:37 PST",
            "Funday, 99 Nov 1994 08:49:37 GMT",
        ])
    func retryAfterRejectsGarbage(value: String) {
        #expect(RetryPolicy.retryAfter(value, now: Self.now) == nil)
    }

    @Test("a garbage Retry-After falls back to backoff")
    func garbageFallsBackToBackoff() {
        let policy = RetryPolicy(baseDelay: .seconds(1), jitter: .none)
        let response = HTTPResponse(status: 429, headers: [("Retry-After", "later")])
        #expect(policy.delay(afterAttempt: 3, response: response, error: nil, now: Self.now) == .seconds(4))
    }

    @Test("the delay is never less than Retry-After, even past maxDelay")
    func neverLessThanRetryAfter() {
        let policy = RetryPolicy(maxDelay: .seconds(10), jitter: .full)
        for status in [429, 503, 504] {
            for attempt in 1..<6 {
                for value in ["0.05", "2.128", "7", "45"] {
                    let response = HTTPResponse(status: status, headers: [("retry-after", value)])
                    let wait = policy.delay(afterAttempt: attempt, response: response, error: nil, now: Self.now)
                    let asked = RetryPolicy.retryAfter(value, now: Self.now)
                    #expect(wait != nil && wait == asked)
                }
            }
        }
    }

    @Test("a Retry-After beyond the deadline gives up")
    func retryAfterBeyondDeadlineGivesUp() {
        let policy = RetryPolicy(deadline: .seconds(300))
        let far = HTTPResponse(status: 429, headers: [("Retry-After", "301")])
        #expect(policy.delay(afterAttempt: 1, response: far, error: nil, now: Self.now) == nil)
        let near = HTTPResponse(status: 429, headers: [("Retry-After", "60")])
        #expect(policy.delay(afterAttempt: 1, response: near, error: nil, now: Self.now) == .seconds(60))
        #expect(
            policy.delay(afterAttempt: 1, response: near, error: nil, now: Self.now, elapsed: .seconds(250)) == nil)
    }

    @Test("backoff doubles from baseDelay and stops at maxDelay")
    func backoffDoublesAndCaps() {
        let exact = RetryPolicy(maxAttempts: 20, baseDelay: .milliseconds(500), maxDelay: .seconds(60), jitter: .none)
        let expected: [Double] = [0.5, 1, 2, 4, 8, 16, 32, 60, 60, 60]
        for (index, seconds) in expected.enumerated() {
            #expect(RetryPolicyTestSupport.seconds(exact.backoff(afterAttempt: index + 1)) == seconds)
        }
        #expect(RetryPolicyTestSupport.seconds(exact.backoff(afterAttempt: 10_000)) == 60)
        let equal = RetryPolicy(baseDelay: .seconds(1), maxDelay: .seconds(60), jitter: .equal)
        let full = RetryPolicy(baseDelay: .seconds(1), maxDelay: .seconds(60), jitter: .full)
        for _ in 0..<200 {
            let e = RetryPolicyTestSupport.seconds(equal.backoff(afterAttempt: 4))
            #expect(e >= 4 && e <= 8)
            let f = RetryPolicyTestSupport.seconds(full.backoff(afterAttempt: 4))
            #expect(f >= 0 && f <= 8)
            #expect(RetryPolicyTestSupport.seconds(equal.backoff(afterAttempt: 30)) <= 60)
        }
    }

    @Test("what is retried: 429, 503, 504 and connection failures; not 500, 401, TLS or too large")
    func whatIsRetried() {
        let policy = RetryPolicy()
        for status in [429, 503, 504] {
            #expect(
                policy.delay(afterAttempt: 1, response: HTTPResponse(status: status), error: nil, now: Self.now) != nil)
        }
        for status in [200, 201, 400, 401, 403, 404, 409, 500, 502] {
            #expect(
                policy.delay(afterAttempt: 1, response: HTTPResponse(status: status), error: nil, now: Self.now) == nil)
        }
        for code in [CurlError.Code.couldNotConnect, .timedOut, .connectionDropped] {
            let error = CurlError(code: code, host: "h", message: "m")
            #expect(policy.delay(afterAttempt: 1, response: nil, error: error, now: Self.now) != nil)
        }
        for code in [CurlError.Code.tls, .responseTooLarge, .insecureURL, .couldNotResolveHost, .other(3)] {
            let error = CurlError(code: code, host: "h", message: "m")
            #expect(policy.delay(afterAttempt: 1, response: nil, error: error, now: Self.now) == nil)
        }
        #expect(policy.delay(afterAttempt: 1, response: nil, error: CocoaError(.fileNoSuchFile), now: Self.now) == nil)
    }

    @Test("which requests may be repeated")
    func idempotentRequests() throws {
        let policy = RetryPolicy()
        func request(_ method: String, _ url: String, _ body: String? = nil) throws -> HTTPRequest {
            HTTPRequest(method: method, url: try #require(URL(string: url)), body: body.map { Data($0.utf8) })
        }
        let graph = "https://graph.microsoft.com/v1.0"
        for method in ["GET", "PUT", "PATCH", "DELETE", "get"] {
            #expect(policy.isRetryable(request: try request(method, graph + "/me/events/1")))
        }
        #expect(policy.isRetryable(request: try request("POST", graph + "/me/events", #"{"transactionId":"abc"}"#)))
        #expect(policy.isRetryable(request: try request("POST", graph + "/$batch", #"{"requests":[]}"#)))
        #expect(
            policy.isRetryable(
                request: try request("POST", "https://login.microsoftonline.com/common/oauth2/v2.0/token")))
        #expect(!policy.isRetryable(request: try request("POST", graph + "/me/events", #"{"subject":"x"}"#)))
        #expect(!policy.isRetryable(request: try request("POST", graph + "/me/events", #"{"transactionId":""}"#)))
        #expect(!policy.isRetryable(request: try request("POST", graph + "/me/events", #"{"transactionId":5}"#)))
        #expect(!policy.isRetryable(request: try request("POST", graph + "/me/events", "not json")))
        #expect(!policy.isRetryable(request: try request("POST", graph + "/me/events/1/cancel")))
        #expect(!policy.isRetryable(request: try request("CONNECT", graph + "/")))
    }

    @Test("run gives up after maxAttempts and returns the last response")
    func runStopsAtMaxAttempts() throws {
        let transport = RetryScriptedTransport([.status(503, retryAfter: nil)])
        let clock = RetryTestClock()
        let policy = RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(100), jitter: .none)
        let response = try policy.run(try Self.get(), transport: transport, sleep: clock.sleep, now: { clock.now })
        #expect(response.status == 503)
        #expect(transport.requests.count == 4)
        #expect(clock.sleeps == [.milliseconds(100), .milliseconds(200), .milliseconds(400)])
    }

    @Test("run stops at the deadline")
    func runStopsAtDeadline() throws {
        let transport = RetryScriptedTransport([.status(429, retryAfter: "1.5")])
        let clock = RetryTestClock()
        let policy = RetryPolicy(maxAttempts: 100, deadline: .seconds(4))
        let response = try policy.run(try Self.get(), transport: transport, sleep: clock.sleep, now: { clock.now })
        #expect(response.status == 429)
        // Tries at 0 s, 1.5 s and 3 s; a fourth at 4.5 s would pass the deadline.
        #expect(transport.requests.count == 3)
        #expect(clock.sleeps == [.milliseconds(1500), .milliseconds(1500)])
    }

    @Test("run retries connection failures and returns the response that follows")
    func runRetriesConnectionFailures() throws {
        let transport = RetryScriptedTransport([
            .failure(Self.dropped()), .status(503, retryAfter: "0.25"), .status(200, retryAfter: nil),
        ])
        let clock = RetryTestClock()
        let policy = RetryPolicy(baseDelay: .milliseconds(10), jitter: .none)
        let response = try policy.run(try Self.get(), transport: transport, sleep: clock.sleep, now: { clock.now })
        #expect(response.status == 200)
        #expect(transport.requests.count == 3)
        #expect(clock.sleeps == [.milliseconds(10), .milliseconds(250)])
    }

    @Test("run rethrows the last error when it gives up, and does not retry a TLS failure")
    func runRethrows() throws {
        let clock = RetryTestClock()
        let policy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10), jitter: .none)
        let dropping = RetryScriptedTransport([.failure(Self.dropped())])
        #expect(throws: Self.dropped()) {
            try policy.run(try Self.get(), transport: dropping, sleep: clock.sleep, now: { clock.now })
        }
        #expect(dropping.requests.count == 3)

        let tls = CurlError(code: .tls, host: "graph.microsoft.com", message: "bad certificate", curlCode: 60)
        let failingTLS = RetryScriptedTransport([.failure(tls)])
        #expect(throws: tls) {
            try policy.run(try Self.get(), transport: failingTLS, sleep: clock.sleep, now: { clock.now })
        }
        #expect(failingTLS.requests.count == 1)
    }

    @Test("a POST without transactionId is sent once; with one it is retried")
    func postWithoutTransactionIDIsNotRetried() throws {
        let clock = RetryTestClock()
        let policy = RetryPolicy(baseDelay: .milliseconds(10), jitter: .none)
        let url = try #require(URL(string: "https://graph.microsoft.com/v1.0/me/events"))

        let plain = RetryScriptedTransport([.status(503, retryAfter: "1"), .status(201, retryAfter: nil)])
        let once = HTTPRequest(method: "POST", url: url, body: Data(#"{"subject":"x"}"#.utf8))
        #expect(try policy.run(once, transport: plain, sleep: clock.sleep, now: { clock.now }).status == 503)
        #expect(plain.requests.count == 1)

        let dropped = RetryScriptedTransport([.failure(Self.dropped()), .status(201, retryAfter: nil)])
        #expect(throws: Self.dropped()) {
            try policy.run(once, transport: dropped, sleep: clock.sleep, now: { clock.now })
        }
        #expect(dropped.requests.count == 1)

        // Nothing reached the server: safe even for a plain POST.
        let refused = CurlError(code: .couldNotConnect, host: "graph.microsoft.com", message: "refused", curlCode: 7)
        let refusing = RetryScriptedTransport([.failure(refused), .status(201, retryAfter: nil)])
        #expect(try policy.run(once, transport: refusing, sleep: clock.sleep, now: { clock.now }).status == 201)
        #expect(refusing.requests.count == 2)

        let keyed = RetryScriptedTransport([.status(503, retryAfter: "1"), .status(201, retryAfter: nil)])
        let twice = HTTPRequest(method: "POST", url: url, body: Data(#"{"subject":"x","transactionId":"t1"}"#.utf8))
        #expect(try policy.run(twice, transport: keyed, sleep: clock.sleep, now: { clock.now }).status == 201)
        #expect(keyed.requests.count == 2)
    }

    @Test("run over the real transport waits out a fractional Retry-After")
    func runOverCurlHonoursRetryAfter() throws {
        // Throttles every request except those marked as a second or later try.
        let server = try LoopbackHTTPServer { request in
            if let attempt = request.query["try"].flatMap(Int.init), attempt > 1 {
                return .respond(.text(200, "ok"))
            }
            return .respond(LoopbackHTTPServer.Response(status: 429, headers: [("Retry-After", "0.05")]))
        }
        defer { server.stop() }
        let transport = CurlTransport()
        let policy = RetryPolicy(maxAttempts: 3)
        let request = HTTPRequest(method: "GET", url: try #require(URL(string: server.baseURL + "/me")))
        let started = Date()
        let response = try policy.run(request, transport: transport)
        #expect(response.status == 429)
        #expect(server.requestCount == 3)
        #expect(Date().timeIntervalSince(started) >= 0.1)

        // With the attempt closure each try may send a changed request.
        let sent = try policy.run(request) { attempt in
            try transport.send(
                HTTPRequest(method: "GET", url: try #require(URL(string: server.baseURL + "/me?try=\(attempt)"))))
        }
        #expect(sent.status == 200)
        #expect(server.requestCount == 5)
    }
}

enum RetryPolicyTestSupport {
    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
