import Foundation
import ICalBridge

/// A feed's body as calendar apps get it, rendered once per change and served from memory.
public struct RenderedFeed: Sendable, Equatable {
    /// The VCALENDAR, exactly as `graph-ics export` writes the feed's window at its detail.
    public var body: Data
    /// A strong validator: `"<SHA-256 of the body in hex>"`, quotes included.
    public var etag: String
    /// When the body last changed, in whole seconds (HTTP dates have no finer unit); kept across restarts.
    public var lastModified: Date
    /// VEVENTs in the body.
    public var eventCount: Int

    public init(body: Data, etag: String, lastModified: Date, eventCount: Int) {
        self.body = body
        self.etag = etag
        self.lastModified = lastModified
        self.eventCount = eventCount
    }
}

/// How a feed's refreshes went, for `/healthz` and the log. No content of the calendar is in it.
public struct FeedStatus: Sendable, Equatable {
    /// When a refresh last succeeded.
    public var lastSuccess: Date?
    /// The last failure, as one line without tokens or event contents; it stays after a later success
    /// (``isFailing`` tells which came last).
    public var lastError: String?
    /// When ``lastError`` happened.
    public var lastErrorAt: Date?

    public init(lastSuccess: Date? = nil, lastError: String? = nil, lastErrorAt: Date? = nil) {
        self.lastSuccess = lastSuccess
        self.lastError = lastError
        self.lastErrorAt = lastErrorAt
    }

    /// Whether the last refresh failed (an error after the last success, or one before any success).
    public var isFailing: Bool {
        guard let lastErrorAt else { return false }
        return lastSuccess.map { lastErrorAt >= $0 } ?? true
    }
}

/// What one refresh did to the body.
public enum FeedRefreshOutcome: Sendable, Equatable {
    /// The body and its ETag stayed byte for byte what they were.
    case unchanged
    /// A new body (or the first one).
    case changed
}

/// What the last refresh cost, for `serve -v` and `scripts/bench-serve`.
public struct FeedRefreshReport: Sendable, Equatable {
    public enum Round: String, Sendable, Equatable {
        /// A delta round resumed from the stored link (the primary calendar).
        case changes
        /// A delta round over the whole window: the first, a new day's window, or after Graph's 410.
        case full
        /// The calendar's calendarView read whole (not the primary calendar).
        case calendarView
    }

    public var round: Round
    /// Pages Graph answered (each one request; retries of a request are not counted).
    public var requests: Int
    /// Whether the body was rendered again (the events changed, or the cache was behind them).
    public var rendered: Bool
    /// Events that could not be converted and were left out (by id and subject, never their contents).
    public var diagnostics: [Diagnostic]

    public init(round: Round, requests: Int, rendered: Bool, diagnostics: [Diagnostic] = []) {
        self.round = round
        self.requests = requests
        self.rendered = rendered
        self.diagnostics = diagnostics
    }
}
