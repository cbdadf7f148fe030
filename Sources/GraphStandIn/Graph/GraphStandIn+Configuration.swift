// The knobs a test turns on the Graph side: latency, throttling, the mailbox concurrency limit, strictness,
// the origin of nextLinks, and one-shot faults. The identity platform's knobs live in OAuth/.
import Foundation

extension GraphStandIn {
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

    /// Test knob with no Graph counterpart: events are answered without `isOrganizer` (as a proxy or an
    /// older server might), so that a test proves a missing field is read the careful way (as organising).
    public var omitsIsOrganizer: Bool {
        get { locked { $0.omitsIsOrganizer } }
        set { locked { $0.omitsIsOrganizer = newValue } }
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

    /// Drops every queued fault not yet consumed (Graph is well again).
    public func clearFaults() {
        locked { $0.faults.removeAll() }
    }
}
