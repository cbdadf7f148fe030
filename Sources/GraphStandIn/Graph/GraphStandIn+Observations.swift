// What a test reads back after exercising the stand-in: the requests and operations it saw, throttling
// counts, and the invitations and cancellations Graph would have mailed.
import Foundation

extension GraphStandIn {
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
}
