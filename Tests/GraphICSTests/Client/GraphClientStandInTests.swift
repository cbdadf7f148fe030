import Foundation
import GraphStandIn
import Testing

@testable import GraphICS

/// Wraps the real transport and notes, per attempt, when it left and came back, and what came back.
private final class TimedTransport: HTTPTransport, @unchecked Sendable {
    struct Attempt {
        var clientRequestID: String
        var path: String
        var sent: ContinuousClock.Instant
        var received: ContinuousClock.Instant
        var status: Int?
        var retryAfter: String?
        /// The answer to a `$batch`, read afterwards (not while the client waits for it).
        var batchBody: Data?

        /// The longest `Retry-After` of the throttled requests inside a `$batch` answer.
        var innerRetryAfter: Double? {
            guard let batchBody,
                let object = try? JSONSerialization.jsonObject(with: batchBody) as? [String: Any]
            else { return nil }
            var longest: Double?
            for item in object["responses"] as? [[String: Any]] ?? [] where item["status"] as? Int == 429 {
                let text = (item["headers"] as? [String: String])?["Retry-After"] ?? ""
                if let seconds = Double(text) { longest = max(longest ?? 0, seconds) }
            }
            return longest
        }
    }

    private let inner: any HTTPTransport
    private let lock = NSLock()
    private var recorded: [Attempt] = []

    init(_ inner: any HTTPTransport) {
        self.inner = inner
    }

    func send(_ request: HTTPRequest) throws -> HTTPResponse {
        let sent = ContinuousClock.now
        let outcome = Result { try inner.send(request) }
        let response = try? outcome.get()
        let attempt = Attempt(
            clientRequestID: request.header("client-request-id") ?? "", path: request.url.path, sent: sent,
            received: ContinuousClock.now, status: response?.status, retryAfter: response?.header("Retry-After"),
            batchBody: request.url.path.hasSuffix("/$batch") ? response?.body : nil)
        lock.withLock { recorded.append(attempt) }
        return try outcome.get()
    }

    var attempts: [Attempt] { lock.withLock { recorded } }

    /// Retries (same client-request-id) that left sooner after a 429 or 503 than its Retry-After allowed.
    var earlyRetries: Int {
        var early = 0
        let byRequest = Dictionary(grouping: attempts, by: \.clientRequestID)
        for tries in byRequest.values {
            let ordered = tries.sorted { $0.sent < $1.sent }
            for (previous, next) in zip(ordered, ordered.dropFirst()) {
                guard let text = previous.retryAfter, let seconds = Double(text) else { continue }
                if previous.received.duration(to: next.sent) < .milliseconds(Int64(seconds * 1000)) { early += 1 }
            }
        }
        return early
    }
}

/// A token source that "refreshes" by asking the stand-in for a new token.
private final class StandInTokens: AccessTokenSource, @unchecked Sendable {
    private let lock = NSLock()
    private var token: String
    private var refreshes = 0
    private let refresh: @Sendable () -> String

    init(initial: String, refresh: @escaping @Sendable () -> String) {
        token = initial
        self.refresh = refresh
    }

    func accessToken() throws -> String { lock.withLock { token } }

    func tokenAfterRejection(of rejected: String) throws -> String {
        lock.withLock {
            if token == rejected {
                token = refresh()
                refreshes += 1
            }
            return token
        }
    }

    var refreshCount: Int { lock.withLock { refreshes } }
}

/// The stand-in with one user, and a client for it over libcurl.
private struct Setup {
    let standIn: GraphStandIn
    let transport: TimedTransport
    let limiter = RequestLimiter(limit: 4)
    let client: GraphClient

    init(tokens: ((GraphStandIn) -> any AccessTokenSource)? = nil) throws {
        let standIn = try GraphStandIn()
        standIn.addUser(
            displayName: "Ada Lovelace", mail: "ada@contoso.example", mailboxTimeZone: "W. Europe Standard Time")
        let transport = TimedTransport(CurlTransport(defaultTimeout: .seconds(20)))
        let url = try #require(URL(string: standIn.baseURL))
        self.standIn = standIn
        self.transport = transport
        client = GraphClient(
            baseURL: url, transport: transport,
            tokens: tokens?(standIn) ?? StaticTokenSource(token: standIn.issueAccessToken()),
            retry: RetryPolicy(maxAttempts: 8, baseDelay: .milliseconds(20), maxDelay: .milliseconds(200)),
            limiter: limiter)
        client.throttle.startJournal()
    }

    /// Requests the client let go while it knew Graph had asked it to wait (see ``admittedWhileHeld(_:)``),
    /// after checking that the gate's journal accounts for every request the transport sent.
    func sentWhileAskedToWait() -> Int {
        let journal = client.throttle.journal
        let admitted = journal.filter { if case .admitted = $0 { true } else { false } }.count
        #expect(admitted == transport.attempts.count, "every request leaves through the gate")
        return admittedWhileHeld(journal)
    }
}

/// 2026-03-02T00:00:00Z, a Monday.
private let monday = Date(timeIntervalSince1970: 1_772_409_600)
private let fourWeeks: TimeInterval = 28 * 86_400

/// The ids of the events in one page.
private func eventIDs(_ page: Data) throws -> [String] {
    let object = try #require(try JSONSerialization.jsonObject(with: page) as? [String: Any])
    let events = try #require(object["value"] as? [[String: Any]])
    return events.compactMap { $0["id"] as? String }
}

@Suite struct GraphClientStandInTests {
    @Test func fourWeeksOfThreeThousandEventsComeInThreePagesDespiteThrottling() throws {
        let setup = try Setup()
        let seeded = try setup.standIn.addEvents(count: 3000, from: monday, to: monday.addingTimeInterval(fourWeeks))
        setup.standIn.latency = .milliseconds(20)
        setup.standIn.throttleEvery = 2
        setup.standIn.retryAfter = .milliseconds(50)
        // No refusal above four: the stand-in then counts how many really ran at once.
        setup.standIn.mailboxConcurrencyLimit = nil

        var ids: [String] = []
        var pages = 0
        try setup.client.calendarView(start: monday, end: monday.addingTimeInterval(fourWeeks)) { page in
            pages += 1
            ids += try eventIDs(page)
        }
        #expect(ids.count == 3000)
        #expect(Set(ids) == Set(seeded))
        #expect(pages == 3)
        #expect(setup.standIn.throttledCount >= 2)
        #expect(setup.standIn.retryAfterViolations == 0)
        #expect(setup.transport.earlyRetries == 0)
        let first = try #require(setup.standIn.requests.first)
        #expect(first.query["$top"] == "1000")
        #expect(first.header("Prefer")?.contains("outlook.timezone=\"UTC\"") == true)
    }

    @Test func concurrentReadersStayWithinFourRequestsPerMailbox() throws {
        let setup = try Setup()
        // Starts 1512 s apart, 5 minutes long: no event crosses a slice boundary.
        let seeded = try setup.standIn.addEvents(
            count: 1600, from: monday, to: monday.addingTimeInterval(fourWeeks), duration: .seconds(300))
        setup.standIn.latency = .milliseconds(20)
        setup.standIn.throttleEvery = 7
        setup.standIn.retryAfter = .milliseconds(50)
        // No refusal above four: the stand-in then counts how many really ran at once.
        setup.standIn.mailboxConcurrencyLimit = nil

        // Sixteen threads each read 1¾ days: sixteen calendarView calls that all want to go at once.
        let slices = 16
        let slice = fourWeeks / Double(slices)
        let collected = Collected()
        let group = DispatchGroup()
        for index in 0..<slices {
            group.enter()
            let client = setup.client
            Thread {
                defer { group.leave() }
                let start = monday.addingTimeInterval(slice * Double(index))
                do {
                    try client.calendarView(start: start, end: start.addingTimeInterval(slice)) { page in
                        collected.add(try eventIDs(page))
                    }
                } catch {
                    collected.fail(error)
                }
            }.start()
        }
        group.wait()
        #expect(collected.errors.isEmpty)
        // An event starting exactly on a slice boundary belongs to one slice only; none spans two.
        #expect(collected.ids.count == 1600)
        #expect(Set(collected.ids) == Set(seeded))
        #expect(setup.standIn.maxInFlightPerMailbox <= 4)
        #expect(setup.limiter.maxObserved == 4)
        #expect(setup.standIn.throttledCount >= 1)
        #expect(setup.transport.earlyRetries == 0)
        #expect(setup.sentWhileAskedToWait() == 0)
    }

    @Test func aNextLinkToAnotherHostIsNotFollowed() throws {
        let setup = try Setup()
        try setup.standIn.addEvents(count: 30, from: monday, to: monday.addingTimeInterval(7 * 86_400))
        let foreign = try LoopbackHTTPServer { _ in .respond(.json(200, ["value": [Any]()])) }
        defer { foreign.stop() }
        setup.standIn.nextLinkOrigin = foreign.baseURL
        var pages = 0
        let error = try #require(throws: GraphError.self) {
            try setup.client.calendarView(start: monday, end: monday.addingTimeInterval(7 * 86_400), pageSize: 10) {
                _ in pages += 1
            }
        }
        #expect(error.code == "foreignNextLink")
        #expect(pages == 1)
        #expect(foreign.requestCount == 0)
    }

    @Test func aDroppedConnectionAndAnUnavailableAnswerAreRetried() throws {
        let setup = try Setup()
        let seeded = try setup.standIn.addEvents(count: 5, from: monday, to: monday.addingTimeInterval(86_400))
        var busy = LoopbackHTTPServer.Response.json(503, ["error": ["code": "ServiceUnavailable", "message": "busy"]])
        busy.headers.append(("Retry-After", "0.05"))
        setup.standIn.injectFault(.closeConnection, forPathContaining: "calendarView")
        setup.standIn.injectFault(.respond(busy), forPathContaining: "calendarView")
        var ids: [String] = []
        try setup.client.calendarView(start: monday, end: monday.addingTimeInterval(86_400)) { ids += try eventIDs($0) }
        #expect(Set(ids) == Set(seeded))
        let attempts = setup.transport.attempts
        #expect(attempts.map(\.status) == [nil, 503, 200])
        #expect(attempts[1].received.duration(to: attempts[2].sent) >= .milliseconds(50))
        #expect(Set(attempts.map(\.clientRequestID)).count == 1)
    }

    @Test func batchedCreatesKeepFourInFlightAndARerunCreatesNothingNew() throws {
        let setup = try Setup()
        setup.standIn.latency = .milliseconds(5)
        setup.standIn.throttleEvery = 7
        setup.standIn.retryAfter = .milliseconds(50)
        // No refusal above four: the stand-in then counts how many really ran at once.
        setup.standIn.mailboxConcurrencyLimit = nil
        let requests = (0..<100).map { index in
            let start = monday.addingTimeInterval(Double(index) * 3600)
            let payload: [String: Any] = [
                "subject": "Imported \(index)",
                "start": ["dateTime": GraphDateText.utc(start), "timeZone": "UTC"],
                "end": ["dateTime": GraphDateText.utc(start.addingTimeInterval(1800)), "timeZone": "UTC"],
                "transactionId": "graph-ics-test-\(index)",
            ]
            let body = (try? JSONSerialization.data(withJSONObject: payload)) ?? Data()
            return BatchRequest(
                id: "e\(index)", method: "POST", url: setup.client.eventsPath(calendarID: nil), body: body)
        }

        let first = try setup.client.batch(requests)
        #expect(first.map(\.id) == requests.map(\.id))
        #expect(first.allSatisfy { $0.succeeded })
        #expect(setup.standIn.eventCount == 100)
        #expect(setup.standIn.throttledCount >= 1)
        #expect(setup.standIn.maxInFlightPerMailbox <= 4)
        #expect(setup.standIn.maxInFlightPerMailbox >= 2)
        #expect(setup.limiter.maxObserved <= 4)
        let envelopes = setup.standIn.requests.filter { $0.path.hasSuffix("/$batch") }
        #expect(envelopes.count >= 5)
        #expect(setup.sentWhileAskedToWait() == 0)

        setup.standIn.throttleEvery = nil
        let again = try setup.client.batch(requests)
        #expect(again.allSatisfy { $0.succeeded })
        #expect(setup.standIn.eventCount == 100)
        func createdIDs(_ answers: [BatchResponse]) throws -> [String] {
            try answers.map { answer in
                let object = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
                return try #require(object?["id"] as? String)
            }
        }
        #expect(try createdIDs(again) == createdIDs(first))
    }

    @Test func userMailboxSettingsAndCalendars() throws {
        let setup = try Setup()
        let holidays = setup.standIn.addCalendar(name: "Holidays", canEdit: false)
        let user = try setup.client.me()
        #expect(user.displayName == "Ada Lovelace")
        #expect(user.mail == "ada@contoso.example")
        #expect(try setup.client.mailboxSettings().timeZone == "W. Europe Standard Time")
        let calendars = try setup.client.calendars()
        #expect(calendars.map(\.name) == ["Calendar", "Holidays"])
        #expect(calendars.first?.isDefaultCalendar == true)
        #expect(calendars.first { $0.id == holidays }?.canEdit == false)
    }

    @Test func findsAnImportedEventByItsExtendedProperty() throws {
        let setup = try Setup()
        let property = "String {66f5a359-4659-4830-9070-00047ec6ac6e} Name graph-ics.SourceUID"
        let uid = "O'Brien's ticket 42@example.com"
        let payload: [String: Any] = [
            "subject": "Concert",
            "start": ["dateTime": "2026-03-03T19:00:00", "timeZone": "UTC"],
            "end": ["dateTime": "2026-03-03T22:00:00", "timeZone": "UTC"],
            "singleValueExtendedProperties": [["id": property, "value": uid]],
        ]
        let created = try setup.client.createEvent(JSONSerialization.data(withJSONObject: payload))
        _ = try setup.client.createEvent(
            JSONSerialization.data(withJSONObject: [
                "subject": "Other", "start": payload["start"] as Any, "end": payload["end"] as Any,
                "singleValueExtendedProperties": [["id": property, "value": "other@example.com"]],
            ]))
        let found = try setup.client.findEvents(withExtendedProperty: property, value: uid)
        #expect(found.map(\.id) == [created.id])
        #expect(found.first?.extendedProperty(property) == uid)
        #expect(try setup.client.findEvents(withExtendedProperty: property, value: "O'Brien").isEmpty)
    }

    @Test func anExpiredTokenIsRefreshedOnceAndTheRequestReplayed() throws {
        let tokens = Box<StandInTokens>()
        let setup = try Setup { standIn in
            let source = StandInTokens(initial: standIn.issueAccessToken()) { standIn.issueAccessToken() }
            tokens.value = source
            return source
        }
        setup.standIn.expireAccessTokens()
        let user = try setup.client.me()
        #expect(user.mail == "ada@contoso.example")
        #expect(tokens.value?.refreshCount == 1)
        #expect(setup.transport.attempts.map(\.status) == [401, 200])
    }

    @Test func aRevokedTokenThatCannotBeRefreshedFailsAsNotSignedIn() throws {
        let setup = try Setup()
        setup.standIn.revokeAllTokens()
        let error = try #require(throws: AuthError.self) { try setup.client.calendars() }
        #expect(error.code == .tokenRejected)
        #expect(error.requiresSignIn)
        #expect(setup.transport.attempts.count == 1)
    }

    @Test func aRefreshedTokenThatIsRefusedTooIsUnauthorized() throws {
        let setup = try Setup { standIn in
            StandInTokens(initial: standIn.issueAccessToken()) {
                let token = standIn.issueAccessToken()
                standIn.revokeAllTokens()
                return token
            }
        }
        setup.standIn.revokeAllTokens()
        let error = try #require(throws: GraphError.self) { try setup.client.mailboxSettings() }
        #expect(error.kind == .unauthorized)
        #expect(error.status == 401)
        #expect(error.requestID != nil)
        #expect(setup.transport.attempts.count == 2)
    }
}

/// Ids and errors gathered by several threads.
private final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var gathered: [String] = []
    private var failures: [String] = []

    func add(_ ids: [String]) { lock.withLock { gathered += ids } }
    func fail(_ error: any Error) { lock.withLock { failures.append("\(error)") } }
    var ids: [String] { lock.withLock { gathered } }
    var errors: [String] { lock.withLock { failures } }
}

/// A value set inside a closure and read after it.
private final class Box<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value?

    var value: Value? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// Graph's UTC `dateTime` text for seeding payloads.
private enum GraphDateText {
    static func utc(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return String(formatter.string(from: date).dropLast())
    }
}
