// Everything the stand-in knows, kept in one value behind GraphStandIn's lock: the directory, the
// calendars' events, tokens, settings, and the bookkeeping of throttling and observations.
import Foundation

extension GraphStandIn {
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
        /// "userID\ntransactionId" → the body first created with it (JSON, keys sorted).
        var transactionBodies: [String: Data] = [:]

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
        var omitsIsOrganizer = false
        var nextLinkOrigin: String?

        var faults: [Fault] = []
        /// Opaque `$skiptoken` → offset into the collection it pages.
        var skipTokens: [String: Int] = [:]
        /// calendarView/delta: `$skiptoken` → the page it resumes; `$deltatoken` → the state it stands for.
        var deltaPages: [String: DeltaPage] = [:]
        var deltaStates: [String: DeltaState] = [:]
        /// State tokens reset by `resetDeltaSync()` → the view they tracked.
        var deltaResets: [String: DeltaScope] = [:]
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
        var sentUpdates: [String] = []
        /// Online meetings a PATCH of their body turned off (api/event-update.md), by event id.
        var disabledOnlineMeetings: [String] = []
        var sentResponses: [SentResponse] = []
    }
}

extension GraphStandIn.State {
    /// A user by id, UPN or mail; nil key means the first user.
    func user(_ key: String?) -> StandInUser? {
        guard let key else { return users.first }
        return users.first { $0.matches(key) }
    }

    func defaultCalendar(of userID: String) -> StandInCalendar? {
        calendars.first { $0.userID == userID && $0.isDefault } ?? calendars.first { $0.userID == userID }
    }

    /// A calendar of that user by id; nil id means the default calendar.
    func calendar(_ id: String?, of userID: String) -> StandInCalendar? {
        guard let id else { return defaultCalendar(of: userID) }
        return calendars.first { $0.userID == userID && $0.id == id }
    }
}
