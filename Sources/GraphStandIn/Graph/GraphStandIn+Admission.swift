// Graph's throttling as the stand-in applies it, per mailbox and before any work: the Retry-After window
// after a 429, the every-Nth throttle tests ask for, and Exchange's MailboxConcurrency limit.
import Foundation

extension GraphStandIn {
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
}
