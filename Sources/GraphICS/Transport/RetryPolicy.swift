import Foundation

/// When and how long graph-ics waits before sending a request again.
///
/// Retried: responses 429 (throttled), 503 and 504, and `CurlError`s that are connection failures
/// (refused, reset, closed without a reply or mid-body, timed out). Not retried: any other status
/// (a 401 is the caller's business: refresh the token once, then replay), TLS and resolve failures, a
/// body that was too large, a refused `http://` URL.
///
/// The wait honours `Retry-After` exactly (seconds, fractional seconds like `2.128`, or an HTTP date),
/// never less than it says and not capped by `maxDelay`; without one it is exponential backoff,
/// `baseDelay × 2^(attempt − 1)` capped at `maxDelay`, with jitter. graph-ics gives up after
/// `maxAttempts` tries or when the next try would start after `deadline` (counted from the first try).
///
/// Only requests that are safe to repeat are retried; see `isRetryable(request:)`.
public struct RetryPolicy: Sendable {
    /// How the backoff delay is randomised so that parallel clients do not retry in step.
    public enum Jitter: Sendable, Equatable {
        /// Exactly the exponential delay (for tests).
        case none
        /// A uniformly random delay between half the exponential delay and all of it.
        case equal
        /// A uniformly random delay between zero and the exponential delay.
        case full
    }

    /// Tries in total, the first included.
    public var maxAttempts: Int
    /// The backoff before the second try.
    public var baseDelay: Duration
    /// The longest backoff (a server's `Retry-After` may ask for more and is honoured).
    public var maxDelay: Duration
    /// The time from the first try after which graph-ics does not start another.
    public var deadline: Duration
    /// How backoff delays are randomised.
    public var jitter: Jitter

    /// The policy graph-ics uses against Microsoft Graph: 6 tries, 0.5 s doubling to at most 60 s,
    /// 300 s in total.
    public init(
        maxAttempts: Int = 6,
        baseDelay: Duration = .milliseconds(500),
        maxDelay: Duration = .seconds(60),
        deadline: Duration = .seconds(300),
        jitter: Jitter = .equal
    ) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.deadline = deadline
        self.jitter = jitter
    }

    /// The statuses that mean "try again later".
    public static let retryableStatuses: Set<Int> = [429, 503, 504]

    /// How long to wait before the next try, or `nil` to give up.
    ///
    /// - Parameters:
    ///   - attempt: how many tries have been made (1 after the first).
    ///   - response: the last try's response, if it got one.
    ///   - error: the last try's error, if it threw.
    ///   - now: the current time (for `Retry-After` dates).
    ///   - elapsed: time since the first try; the wait must end within `deadline`.
    /// This does not look at the request: check `isRetryable(request:)` first (`run` does).
    public func delay(
        afterAttempt attempt: Int,
        response: HTTPResponse?,
        error: (any Error)?,
        now: Date,
        elapsed: Duration = .zero
    ) -> Duration? {
        guard attempt >= 1, attempt < maxAttempts else {
            return nil
        }
        var wait: Duration
        if let response {
            guard Self.retryableStatuses.contains(response.status) else {
                return nil
            }
            if let header = response.header("Retry-After"), let asked = Self.retryAfter(header, now: now) {
                wait = asked
            } else {
                wait = backoff(afterAttempt: attempt)
            }
        } else if let error = error as? CurlError, error.isConnectionFailure {
            wait = backoff(afterAttempt: attempt)
        } else {
            return nil
        }
        if wait < .zero {
            wait = .zero
        }
        let remaining = deadline - elapsed
        guard wait <= remaining else {
            return nil
        }
        return wait
    }

    /// The backoff before try `attempt + 1`: `baseDelay × 2^(attempt − 1)`, capped at `maxDelay`, jittered.
    public func backoff(afterAttempt attempt: Int) -> Duration {
        let exponent = min(max(attempt - 1, 0), 40)
        let base = max(baseDelay, .zero)
        let cap = max(maxDelay, .zero)
        // Compared in floating point first so the multiplication below cannot overflow.
        let exponential =
            Self.seconds(base) * Double(1 << exponent) >= Self.seconds(cap) ? cap : base * (1 << exponent)
        switch jitter {
        case .none:
            return exponential
        case .equal:
            return exponential / 2 + (exponential / 2) * Double.random(in: 0...1)
        case .full:
            return exponential * Double.random(in: 0...1)
        }
    }

    /// Parses a `Retry-After` value: delay-seconds (graph-ics also takes a fraction, `2.128`, as Graph
    /// sends it) or an HTTP date (IMF-fixdate, or the obsolete RFC 850 and asctime forms).
    ///
    /// A date in the past gives zero. Returns `nil` for anything else (negative numbers, words, empty),
    /// so the caller falls back to backoff.
    public static func retryAfter(_ value: String, now: Date) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = delaySeconds(text) {
            return .seconds(min(seconds, maximumRetryAfterSeconds))
        }
        if let date = httpDate(text) {
            let seconds = date.timeIntervalSince(now)
            return .seconds(min(max(seconds, 0), maximumRetryAfterSeconds))
        }
        return nil
    }

    /// Whether graph-ics may send `request` more than once.
    ///
    /// - GET, HEAD, OPTIONS, PUT, PATCH and DELETE: yes (idempotent; a PATCH of Graph properties sets
    ///   the same values again).
    /// - POST: only when repeating it cannot duplicate anything:
    ///   - its JSON body is an object with a non-empty string `"transactionId"` (Graph creates the event
    ///     once per transactionId);
    ///   - its path ends in `/$batch` — graph-ics assumes every create inside a batch carries its own
    ///     transactionId (the Graph client builds them so), and the other inner requests are idempotent;
    ///   - it goes to a Microsoft identity platform endpoint ending in `/oauth2/v2.0/token`,
    ///     `/oauth2/token` or `/oauth2/v2.0/devicecode` (token requests and device-code polling create
    ///     nothing; a second device code request just returns another code).
    /// - Anything else: no.
    ///
    /// `run` still retries a request that is not retryable when the connection could not be made at
    /// all (`CurlError.Code.couldNotConnect`): nothing was sent.
    public func isRetryable(request: HTTPRequest) -> Bool {
        switch request.method.uppercased() {
        case "GET", "HEAD", "OPTIONS", "PUT", "PATCH", "DELETE":
            return true
        case "POST":
            let path = request.url.path
            if path.hasSuffix("/$batch") {
                return true
            }
            if ["/oauth2/v2.0/token", "/oauth2/token", "/oauth2/v2.0/devicecode"].contains(where: path.hasSuffix) {
                return true
            }
            guard let body = request.body,
                let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
                let transactionID = object["transactionId"] as? String
            else {
                return false
            }
            return !transactionID.isEmpty
        default:
            return false
        }
    }

    /// Sends `request` with `transport`, retrying as this policy says; see `run(_:sleep:now:attempt:)`.
    public func run(
        _ request: HTTPRequest,
        transport: any HTTPTransport,
        sleep: (Duration) -> Void = RetryPolicy.threadSleep,
        now: () -> Date = Date.init
    ) throws -> HTTPResponse {
        try run(request, sleep: sleep, now: now) { _ in try transport.send(request) }
    }

    /// Runs `attempt` (given the 1-based try number) until it returns a response that is not retried or
    /// this policy gives up; returns the last response (a final 429 included) or rethrows the last error.
    ///
    /// `request` decides whether retries are allowed at all (`isRetryable(request:)`); `attempt` may send
    /// a changed copy (a fresh token, inside a `RequestLimiter` permit). Between tries it calls `sleep`
    /// with the delay; `now` is read for `Retry-After` dates and the deadline. The deadline is checked
    /// between tries: a try that has started runs to its own timeout.
    public func run(
        _ request: HTTPRequest,
        sleep: (Duration) -> Void = RetryPolicy.threadSleep,
        now: () -> Date = Date.init,
        attempt: (Int) throws -> HTTPResponse
    ) throws -> HTTPResponse {
        let retryable = isRetryable(request: request)
        let start = now()
        var tries = 0
        while true {
            tries += 1
            let response: HTTPResponse?
            let failure: (any Error)?
            do {
                response = try attempt(tries)
                failure = nil
            } catch {
                response = nil
                failure = error
            }
            let allowed: Bool
            if retryable {
                allowed = true
            } else if let curlError = failure as? CurlError, curlError.code == .couldNotConnect {
                allowed = true
            } else {
                allowed = false
            }
            let current = now()
            let elapsed = Duration.seconds(max(current.timeIntervalSince(start), 0))
            guard allowed,
                let wait = delay(
                    afterAttempt: tries, response: response, error: failure, now: current, elapsed: elapsed)
            else {
                if let response {
                    return response
                }
                throw failure ?? CurlError(code: .other(-1), host: "(none)", message: "No response")
            }
            sleep(wait)
        }
    }

    /// The default `sleep` for `run`: blocks the calling thread.
    public static func threadSleep(_ duration: Duration) {
        let seconds = Self.seconds(duration)
        if seconds > 0 {
            Thread.sleep(forTimeInterval: seconds)
        }
    }

    // MARK: Parsing helpers

    /// A `Retry-After` of more than this (about 31 years) is read as this, so the conversion cannot overflow.
    private static let maximumRetryAfterSeconds: Double = 1_000_000_000

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Digits with at most one decimal point (`120`, `2.128`, `.5`); no sign, exponent or spaces.
    private static func delaySeconds(_ text: String) -> Double? {
        var digits = 0
        var points = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits += 1
            case UInt8(ascii: "."): points += 1
            default: return nil
            }
        }
        guard digits > 0, points <= 1, let value = Double(text), value.isFinite else {
            return nil
        }
        return value
    }

    /// An HTTP date in any of the three forms RFC 9110 says recipients must accept, always GMT.
    private static func httpDate(_ text: String) -> Date? {
        // asctime pads the day with a space (`Nov  6`): compare with single spaces.
        let collapsed = text.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        let formats = ["EEE, dd MMM yyyy HH:mm:ss 'GMT'", "EEEE, dd-MMM-yy HH:mm:ss 'GMT'", "EEE MMM d HH:mm:ss yyyy"]
        for format in formats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.isLenient = false
            formatter.dateFormat = format
            if let date = formatter.date(from: collapsed) {
                return date
            }
        }
        return nil
    }
}
