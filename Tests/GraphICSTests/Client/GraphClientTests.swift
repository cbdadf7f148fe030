import Foundation
import GraphICS
import Testing

/// A transport that answers from a script and records every request; no network.
private final class ScriptedGraph: HTTPTransport, @unchecked Sendable {
    typealias Handler = @Sendable (HTTPRequest, Int) throws -> HTTPResponse
    private let lock = NSLock()
    private var recorded: [HTTPRequest] = []
    private let handler: Handler

    init(_ handler: @escaping Handler) {
        self.handler = handler
    }

    func send(_ request: HTTPRequest) throws -> HTTPResponse {
        let index = lock.withLock {
            recorded.append(request)
            return recorded.count - 1
        }
        return try handler(request, index)
    }

    var requests: [HTTPRequest] { lock.withLock { recorded } }
}

/// Tokens `token-1`, `token-2`, …: each rejection moves on, unless `refreshes` is used up.
private final class CountingTokens: AccessTokenSource, @unchecked Sendable {
    private let lock = NSLock()
    private var current = 1
    private var rejections: [String] = []
    private let refreshes: Int

    init(refreshes: Int = 1) {
        self.refreshes = refreshes
    }

    func accessToken() throws -> String { lock.withLock { "token-\(current)" } }

    func tokenAfterRejection(of token: String) throws -> String {
        try lock.withLock {
            rejections.append(token)
            guard rejections.count <= refreshes else {
                throw AuthError(.notSignedIn, "The sign-in expired; run `graph-ics login`.")
            }
            current += 1
            return "token-\(current)"
        }
    }

    var rejected: [String] { lock.withLock { rejections } }
}

/// Records the client's waits instead of waiting.
private final class SleepRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [Duration] = []

    func sleep(_ duration: Duration) { lock.withLock { recorded.append(duration) } }
    var sleeps: [Duration] { lock.withLock { recorded } }
}

/// Collects log lines.
private final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String] = []

    func append(_ line: String) { lock.withLock { recorded.append(line) } }
    var lines: [String] { lock.withLock { recorded } }
}

private func json(_ status: Int, _ object: Any, headers: [(String, String)] = []) -> HTTPResponse {
    let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    return HTTPResponse(
        status: status, headers: [("Content-Type", "application/json")] + headers.map { (name: $0.0, value: $0.1) },
        body: body)
}

private func graphError(_ status: Int, code: String, message: String, requestID: String) -> HTTPResponse {
    json(
        status, ["error": ["code": code, "message": message, "innerError": ["request-id": requestID]]],
        headers: [("request-id", requestID)])
}

/// The decoded value of query parameter `name`.
private func query(_ url: URL, _ name: String) -> String? {
    URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == name }?.value
}

private let base = URL(string: "https://graph.example.com/v1.0") ?? URL(fileURLWithPath: "/invalid")
private let fastRetry = RetryPolicy(
    maxAttempts: 4, baseDelay: .milliseconds(1), maxDelay: .milliseconds(2), jitter: .none)

private func client(
    _ transport: ScriptedGraph,
    tokens: any AccessTokenSource = CountingTokens(),
    mailbox: Mailbox = .me,
    retry: RetryPolicy = fastRetry,
    sleeper: SleepRecorder = SleepRecorder(),
    log: LogLines? = nil
) -> GraphClient {
    GraphClient(
        baseURL: base, mailbox: mailbox, transport: transport, tokens: tokens, retry: retry,
        log: log.map { lines -> @Sendable (String) -> Void in { lines.append($0) } }, sleep: { sleeper.sleep($0) })
}

@Suite struct GraphClientTests {
    @Test func everyRequestCarriesTheTokenPreferencesAndAFreshClientRequestID() throws {
        let graph = ScriptedGraph { request, _ in
            if request.method == "POST" { return json(201, ["id": "AAMk1", "iCalUId": "uid-1"]) }
            return json(200, ["id": "u1", "displayName": "Ada", "mail": "ada@example.com"])
        }
        let subject = client(graph)
        let user = try subject.me()
        #expect(user == GraphUser(id: "u1", displayName: "Ada", mail: "ada@example.com"))
        let created = try subject.createEvent(Data(#"{"subject":"x"}"#.utf8), calendarID: "cal 1")
        #expect(created.id == "AAMk1")
        #expect(created.iCalUId == "uid-1")

        let requests = graph.requests
        #expect(requests.count == 2)
        let preferences = [
            "outlook.timezone=\"UTC\"", "outlook.body-content-type=\"text\"", "IdType=\"ImmutableId\"",
        ]
        for request in requests {
            #expect(request.header("Authorization") == "Bearer token-1")
            #expect(request.header("Accept") == "application/json")
            let prefer = try #require(request.header("Prefer"))
            for preference in preferences {
                #expect(prefer.contains(preference))
            }
            #expect(UUID(uuidString: request.header("client-request-id") ?? "") != nil)
            #expect(request.header("User-Agent") == nil)  // the transport sets it
        }
        #expect(requests[0].header("client-request-id") != requests[1].header("client-request-id"))
        #expect(requests[0].header("Content-Type") == nil)
        #expect(requests[1].header("Content-Type") == "application/json")
        #expect(requests[1].url.absoluteString == "https://graph.example.com/v1.0/me/calendars/cal%201/events")
    }

    @Test func logLinesNameMethodPathStatusAndRequestIDButNeverTheToken() throws {
        let graph = ScriptedGraph { request, index in
            if index == 0 {
                return json(
                    200,
                    [
                        "value": [],
                        "@odata.nextLink": "https://graph.example.com/v1.0/me/calendars?$skiptoken=SECRETSKIP",
                    ],
                    headers: [("request-id", "rid-1")])
            }
            return json(200, ["value": []], headers: [("request-id", "rid-2")])
        }
        let lines = LogLines()
        _ = try client(graph, log: lines).calendars()
        #expect(lines.lines.count == 2)
        let first = try #require(lines.lines.first)
        #expect(first.hasPrefix("GET /v1.0/me/calendars"))
        #expect(first.contains("200"))
        #expect(first.contains("rid-1"))
        #expect(lines.lines[1].contains("$skiptoken=…"))
        for line in lines.lines {
            #expect(!line.contains("token-1"))
            #expect(!line.contains("Bearer"))
            #expect(!line.localizedCaseInsensitiveContains("authorization"))
            #expect(!line.contains("SECRETSKIP"))
        }
    }

    @Test func a401RefreshesTheTokenOnceAndReplays() throws {
        let graph = ScriptedGraph { request, _ in
            if request.header("Authorization") == "Bearer token-1" {
                return graphError(401, code: "InvalidAuthenticationToken", message: "expired", requestID: "r1")
            }
            return json(200, ["timeZone": "W. Europe Standard Time"])
        }
        let tokens = CountingTokens()
        let settings = try client(graph, tokens: tokens).mailboxSettings()
        #expect(settings.timeZone == "W. Europe Standard Time")
        #expect(tokens.rejected == ["token-1"])
        #expect(graph.requests.map { $0.header("Authorization") } == ["Bearer token-1", "Bearer token-2"])
    }

    @Test func aSecond401IsUnauthorizedWithTheRequestID() throws {
        let graph = ScriptedGraph { _, _ in
            graphError(401, code: "InvalidAuthenticationToken", message: "Access token is empty.", requestID: "r-401")
        }
        let tokens = CountingTokens(refreshes: 5)
        let error = try #require(throws: GraphError.self) { try client(graph, tokens: tokens).me() }
        #expect(error.kind == .unauthorized)
        #expect(error.status == 401)
        #expect(error.requestID == "r-401")
        #expect(error.code == "InvalidAuthenticationToken")
        #expect(tokens.rejected == ["token-1"])
        #expect(graph.requests.count == 2)
        #expect(error.description.contains("r-401"))
        #expect(!error.description.contains("token-"))
    }

    @Test func anAuthErrorFromTheRefreshPassesThroughUnchanged() throws {
        let graph = ScriptedGraph { _, _ in graphError(401, code: "x", message: "y", requestID: "r") }
        let error = try #require(throws: AuthError.self) {
            try client(graph, tokens: CountingTokens(refreshes: 0)).me()
        }
        #expect(error.code == .notSignedIn)
        #expect(graph.requests.count == 1)
    }

    @Test func a403IsUnauthorizedAndA404IsNotFound() throws {
        let forbidden = ScriptedGraph { _, _ in
            graphError(403, code: "ErrorAccessDenied", message: "Access is denied.", requestID: "r403")
        }
        let denied = try #require(throws: GraphError.self) { try client(forbidden).calendars() }
        #expect(denied.kind == .unauthorized)
        #expect(forbidden.requests.count == 1)
        let missing = ScriptedGraph { _, _ in
            graphError(
                404, code: "ErrorItemNotFound", message: "The specified object was not found.", requestID: "r404")
        }
        let notFound = try #require(throws: GraphError.self) { try client(missing).event(id: "AAMk=") }
        #expect(notFound.kind == .notFound)
        #expect(notFound.operation == "reading event AAMk=")
        #expect(missing.requests.first?.url.absoluteString == "https://graph.example.com/v1.0/me/events/AAMk=")
        #expect(
            notFound.description
                == "Microsoft Graph failed while reading event AAMk=: HTTP 404 ErrorItemNotFound, The specified"
                + " object was not found [request-id r404].")
    }

    @Test func retryAfterIsWaitedOutNeverLess() throws {
        let graph = ScriptedGraph { _, index in
            switch index {
            case 0:
                graphError(429, code: "ApplicationThrottled", message: "slow down", requestID: "a")
                    .with(header: ("Retry-After", "1"))
            case 1:
                graphError(503, code: "ServiceUnavailable", message: "busy", requestID: "b")
                    .with(header: ("Retry-After", "2.5"))
            default: json(200, ["id": "u", "displayName": "Ada"])
            }
        }
        let sleeper = SleepRecorder()
        _ = try client(graph, sleeper: sleeper).me()
        #expect(graph.requests.count == 3)
        #expect(sleeper.sleeps.count == 2)
        #expect(sleeper.sleeps[0] >= .seconds(1))
        #expect(sleeper.sleeps[1] >= .milliseconds(2500))
    }

    @Test func noPermitIsHeldWhileWaitingToRetry() throws {
        let limiter = RequestLimiter(limit: 1)
        let graph = ScriptedGraph { _, index in
            index == 0
                ? graphError(429, code: "ApplicationThrottled", message: "wait", requestID: "w")
                    .with(header: ("Retry-After", "0.02"))
                : json(200, ["id": "u"])
        }
        let permitsDuringSleep = LogLines()
        let subject = GraphClient(
            baseURL: base, transport: graph, tokens: CountingTokens(), retry: fastRetry, limiter: limiter,
            sleep: { duration in
                permitsDuringSleep.append("\(limiter.inFlight)")
                GraphClient.sleep(for: duration)
            })
        _ = try subject.me()
        #expect(permitsDuringSleep.lines == ["0"])
        #expect(limiter.maxObserved == 1)
    }

    @Test func throttlingThatNeverEndsIsUnavailableAfterTheLastTry() throws {
        let graph = ScriptedGraph { _, _ in
            graphError(429, code: "ApplicationThrottled", message: "MailboxConcurrency", requestID: "t")
                .with(header: ("Retry-After", "0.01"))
        }
        let error = try #require(throws: GraphError.self) {
            try client(graph).calendarView(start: Date(), end: Date().addingTimeInterval(86_400)) { _ in }
        }
        #expect(error.kind == .unavailable)
        #expect(error.status == 429)
        #expect(error.operation == "reading calendarView")
        #expect(graph.requests.count == fastRetry.maxAttempts)
    }

    @Test func aCreateWithoutTransactionIdIsNotRepeatedAfterADroppedConnection() throws {
        let dropped = CurlError(code: .connectionDropped, host: "graph.example.com", message: "reset")
        // Request 0 (no transactionId) and 1 (the first try with one) lose their connection; 2 succeeds.
        let graph = ScriptedGraph { _, index in
            if index >= 2 { return json(201, ["id": "E1"]) }
            throw dropped
        }
        let error = try #require(throws: GraphError.self) {
            try client(graph).createEvent(Data(#"{"subject":"a"}"#.utf8))
        }
        #expect(error.kind == .temporary)
        #expect(error.underlying as? CurlError == dropped)
        #expect(graph.requests.count == 1)

        let created = try client(graph).createEvent(Data(#"{"subject":"a","transactionId":"t-1"}"#.utf8))
        #expect(created.id == "E1")
        #expect(graph.requests.count == 3)
    }

    @Test func calendarViewAsksForLargePagesAndFollowsNextLinkVerbatim() throws {
        let next =
            "https://graph.example.com/v1.0/me/calendar/calendarView?startDateTime=2026-03-02T00%3A00%3A00Z"
            + "&endDateTime=2026-03-09T00%3A00%3A00Z&%24top=1000&%24skiptoken=abc%3D%3D"
        let graph = ScriptedGraph { _, index in
            index == 0
                ? json(200, ["value": [["id": "1"]], "@odata.nextLink": next]) : json(200, ["value": [["id": "2"]]])
        }
        let start = Date(timeIntervalSince1970: 1_772_409_600)  // 2026-03-02T00:00:00Z
        var pages: [Data] = []
        try client(graph).calendarView(calendarID: "AQMk/x", start: start, end: start.addingTimeInterval(7 * 86_400)) {
            pages.append($0)
        }
        #expect(pages.count == 2)
        let first = try #require(graph.requests.first?.url)
        #expect(first.absoluteString.hasPrefix("https://graph.example.com/v1.0/me/calendars/AQMk%2Fx/calendarView?"))
        #expect(query(first, "$top") == "1000")
        #expect(query(first, "startDateTime") == "2026-03-02T00:00:00Z")
        #expect(query(first, "endDateTime") == "2026-03-09T00:00:00Z")
        #expect(graph.requests[1].url.absoluteString == next)
    }

    @Test(arguments: [
        "https://evil.example.com/v1.0/me/calendarView?$skiptoken=1",
        "http://graph.example.com/v1.0/me/calendarView?$skiptoken=1",
        "https://graph.example.com:8443/v1.0/me/calendarView?$skiptoken=1",
    ])
    func aNextLinkToAnotherOriginIsRefused(link: String) throws {
        let graph = ScriptedGraph { _, _ in json(200, ["value": [], "@odata.nextLink": link]) }
        var pages = 0
        let error = try #require(throws: GraphError.self) {
            try client(graph).calendarView(start: Date(), end: Date().addingTimeInterval(3600)) { _ in pages += 1 }
        }
        #expect(error.code == "foreignNextLink")
        #expect(error.kind == .other)
        #expect(pages == 1)
        #expect(graph.requests.count == 1)
        #expect(!error.description.contains("token-1"))
    }

    @Test func longRangesAreReadInWindowsAndEventsOnABoundaryComeOnce() throws {
        // 70 days from 2026-01-01: windows end 2026-02-01 and 2026-03-04. "long" spans all three windows,
        // "edge" spans the first boundary; Graph returns each in every window it overlaps.
        let graph = ScriptedGraph { request, _ in
            let start = query(request.url, "startDateTime") ?? ""
            func event(_ id: String, end: String) -> [String: Any] {
                ["id": id, "end": ["dateTime": end + ".0000000", "timeZone": "UTC"]]
            }
            let long = event("long", end: "2026-03-10T00:00:00")
            switch start {
            case "2026-01-01T00:00:00Z":
                return json(
                    200,
                    [
                        "value": [
                            event("a", end: "2026-01-05T10:00:00"), event("edge", end: "2026-02-01T01:00:00"), long,
                        ]
                    ])
            case "2026-02-01T00:00:00Z":
                return json(
                    200,
                    [
                        "value": [
                            event("edge", end: "2026-02-01T01:00:00"), long, event("b", end: "2026-02-10T00:00:00"),
                        ]
                    ])
            default:
                return json(200, ["value": [long, event("c", end: "2026-03-08T00:00:00")]])
            }
        }
        let start = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z
        var ids: [String] = []
        try client(graph).calendarView(start: start, end: start.addingTimeInterval(70 * 86_400)) { page in
            let object = try JSONSerialization.jsonObject(with: page) as? [String: Any]
            for event in object?["value"] as? [[String: Any]] ?? [] { ids.append(event["id"] as? String ?? "?") }
        }
        #expect(graph.requests.count == 3)
        #expect(ids == ["a", "edge", "long", "b", "c"])
        #expect(
            graph.requests.map { query($0.url, "endDateTime") } == [
                "2026-02-01T00:00:00Z", "2026-03-04T00:00:00Z", "2026-03-12T00:00:00Z",
            ])
    }

    @Test func extendedPropertyLookupEscapesQuotesAndEncodesTheQuery() throws {
        let property = "String {66f5a359-4659-4830-9070-00047ec6ac6e} Name graph-ics.SourceUID"
        let graph = ScriptedGraph { _, _ in
            json(
                200,
                [
                    "value": [
                        [
                            "id": "E1", "iCalUId": "040000", "lastModifiedDateTime": "2026-03-01T10:00:00Z",
                            "singleValueExtendedProperties": [["id": property, "value": "O'Brien's"]],
                        ]
                    ]
                ])
        }
        let found = try client(graph).findEvents(withExtendedProperty: property, value: "O'Brien's")
        #expect(found.map(\.id) == ["E1"])
        #expect(found.first?.extendedProperty(property.uppercased()) == "O'Brien's")
        #expect(found.first?.lastModifiedDateTime == "2026-03-01T10:00:00Z")

        let url = try #require(graph.requests.first?.url)
        #expect(url.path == "/v1.0/me/events")
        #expect(
            query(url, "$filter")
                == "singleValueExtendedProperties/Any(ep: ep/id eq '\(property)' and ep/value eq 'O''Brien''s')")
        #expect(query(url, "$expand") == "singleValueExtendedProperties($filter=id eq '\(property)')")
        let raw = url.absoluteString
        #expect(raw.contains("$filter=singleValueExtendedProperties/Any(ep:%20ep/id%20eq%20'String%20%7B66f5a359"))
        #expect(raw.contains("'O''Brien''s'"))
        #expect(!raw.contains("+"))
        #expect(raw.contains("$expand=singleValueExtendedProperties($filter%3Did%20eq%20'"))
    }

    @Test func anotherUsersMailboxIsAddressedByEncodedUPN() throws {
        let graph = ScriptedGraph { _, _ in json(200, ["id": "u2", "userPrincipalName": "o'neil@example.com"]) }
        let user = try client(graph, mailbox: .user("o'neil@example.com")).me()
        #expect(user.userPrincipalName == "o'neil@example.com")
        #expect(graph.requests.first?.url.path == "/v1.0/users/o'neil@example.com")
        #expect(
            graph.requests.first?.url.absoluteString.hasPrefix(
                "https://graph.example.com/v1.0/users/o%27neil@example.com?") == true)
    }

    @Test func calendarsAreReadAcrossPages() throws {
        let graph = ScriptedGraph { _, index in
            index == 0
                ? json(
                    200,
                    [
                        "value": [
                            [
                                "id": "c1", "name": "Calendar", "isDefaultCalendar": true, "canEdit": true,
                                "owner": ["name": "Ada", "address": "ada@example.com"],
                            ]
                        ],
                        "@odata.nextLink": "https://graph.example.com/v1.0/me/calendars?$skip=1",
                    ])
                : json(200, ["value": [["id": "c2", "name": "Holidays", "canEdit": false]]])
        }
        let calendars = try client(graph).calendars()
        #expect(calendars.map(\.id) == ["c1", "c2"])
        #expect(calendars[0].owner?.address == "ada@example.com")
        #expect(calendars[0].isDefaultCalendar == true)
        #expect(calendars[1].canEdit == false)
    }

    @Test func updateDeleteAndCancelUseTheirMethodsAndPaths() throws {
        let graph = ScriptedGraph { request, _ in
            request.method == "PATCH"
                ? json(200, ["id": "E1"]) : HTTPResponse(status: request.method == "DELETE" ? 204 : 202)
        }
        let subject = client(graph)
        try subject.updateEvent(id: "E1", patch: Data(#"{"subject":"b"}"#.utf8))
        try subject.deleteEvent(id: "E2")
        try subject.cancelEvent(id: "E3", comment: "Sorry")
        let requests = graph.requests
        #expect(requests.map(\.method) == ["PATCH", "DELETE", "POST"])
        #expect(requests.map(\.url.path) == ["/v1.0/me/events/E1", "/v1.0/me/events/E2", "/v1.0/me/events/E3/cancel"])
        let cancel = try JSONSerialization.jsonObject(with: requests[2].body ?? Data()) as? [String: String]
        #expect(cancel == ["Comment": "Sorry"])
    }

    @Test func instancesArePagedBetweenTheGivenInstants() throws {
        let graph = ScriptedGraph { _, _ in json(200, ["value": [["id": "occ1"], ["id": "occ2"]]]) }
        let start = Date(timeIntervalSince1970: 1_772_409_600)  // 2026-03-02T00:00:00Z
        var pages: [Data] = []
        try client(graph, mailbox: .user("ada@example.com")).instances(
            seriesMasterID: "AAMk-series=", start: start, end: start.addingTimeInterval(86_400), pageSize: 5000
        ) { pages.append($0) }
        #expect(pages.count == 1)
        let url = try #require(graph.requests.first?.url)
        #expect(url.path == "/v1.0/users/ada@example.com/events/AAMk-series=/instances")
        #expect(query(url, "startDateTime") == "2026-03-02T00:00:00Z")
        #expect(query(url, "endDateTime") == "2026-03-03T00:00:00Z")
        #expect(query(url, "$top") == "1000")
    }

    @Test func batchAnswersAreMatchedByIdAndThrottledInnerRequestsRetried() throws {
        let attempts = Attempts()
        let graph = ScriptedGraph { request, _ in
            try batchAnswer(request, attempts: attempts) { id, attempt in
                if id == "2", attempt == 1 {
                    return [
                        "status": 429, "headers": ["Retry-After": "3"], "body": ["error": ["code": "TooManyRequests"]],
                    ]
                }
                return ["status": 201, "body": ["id": "E\(id)"]]
            }
        }
        let sleeper = SleepRecorder()
        let requests = (1...4).map {
            BatchRequest(
                id: "\($0)", method: "POST", url: "/me/events",
                body: Data(#"{"subject":"s","transactionId":"t\#($0)"}"#.utf8))
        }
        let answers = try client(graph, sleeper: sleeper).batch(requests)
        #expect(answers.map(\.id) == ["1", "2", "3", "4"])
        #expect(answers.map(\.status) == [201, 201, 201, 201])
        let ids = try answers.map { try JSONSerialization.jsonObject(with: $0.body) as? [String: String] }
        #expect(ids == [["id": "E1"], ["id": "E2"], ["id": "E3"], ["id": "E4"]])
        // The first batch: 1 ran, 2 was throttled, 3 and 4 failed their dependency; the retry sends 2, 3, 4.
        #expect(attempts.batches == [["1", "2", "3", "4"], ["2", "3", "4"]])
        #expect(sleeper.sleeps.contains(where: { $0 >= .seconds(3) }))
        #expect(graph.requests.allSatisfy { $0.url.absoluteString == "https://graph.example.com/v1.0/$batch" })

        let body = try #require(graph.requests.first?.body)
        let sent = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        let inner = try #require(sent["requests"] as? [[String: Any]])
        #expect(inner[0]["dependsOn"] == nil)
        #expect(inner[1]["dependsOn"] as? [String] == ["1"])
        let headers = try #require(inner[0]["headers"] as? [String: String])
        #expect(headers["Content-Type"] == "application/json")
        #expect(headers["Prefer"]?.contains("ImmutableId") == true)
        #expect((inner[0]["body"] as? [String: String])?["transactionId"] == "t1")
    }

    @Test func aThrottledInnerCreateWithoutTransactionIdIsNotResent() throws {
        let attempts = Attempts()
        let graph = ScriptedGraph { request, _ in
            try batchAnswer(request, attempts: attempts) { id, _ in
                id == "b" ? ["status": 429, "headers": ["Retry-After": "1"]] : ["status": 201, "body": ["id": id]]
            }
        }
        let answers = try client(graph).batch([
            BatchRequest(id: "a", method: "POST", url: "/me/events", body: Data(#"{"subject":"a"}"#.utf8)),
            BatchRequest(id: "b", method: "POST", url: "/me/events", body: Data(#"{"subject":"b"}"#.utf8)),
            BatchRequest(id: "c", method: "DELETE", url: "/me/events/X"),
        ])
        #expect(answers.map(\.status) == [201, 429, 201])
        #expect(answers[1].error(operation: "creating b")?.kind == .unavailable)
        #expect(attempts.batches == [["a", "b", "c"], ["c"]])
    }

    @Test func largeBatchesGoInChunksOfTwentyAtMostFourAtOnce() throws {
        let attempts = Attempts()
        let concurrency = Concurrency()
        let graph = ScriptedGraph { request, _ in
            concurrency.enter()
            defer { concurrency.leave() }
            Thread.sleep(forTimeInterval: 0.02)
            return try batchAnswer(request, attempts: attempts) { id, _ in ["status": 200, "body": ["id": id]] }
        }
        let requests = (0..<130).map { BatchRequest(id: "r\($0)", method: "GET", url: "/me/events/\($0)") }
        let answers = try client(graph).batch(requests)
        #expect(answers.map(\.id) == requests.map(\.id))
        #expect(attempts.batches.map(\.count).sorted() == [10, 20, 20, 20, 20, 20, 20])
        #expect(concurrency.maximum <= 4)
        #expect(concurrency.maximum >= 2)
    }

    @Test func duplicateBatchIdsAreRefusedBeforeSending() throws {
        let graph = ScriptedGraph { _, _ in json(200, ["responses": []]) }
        let error = try #require(throws: GraphError.self) {
            try client(graph).batch([
                BatchRequest(id: "x", method: "GET", url: "/me"), BatchRequest(id: "X", method: "GET", url: "/me"),
            ])
        }
        #expect(error.kind == .badRequest)
        #expect(graph.requests.isEmpty)
    }
}

/// The inner ids of each `$batch` the fake received, and how often each id was sent.
private final class Attempts: @unchecked Sendable {
    private let lock = NSLock()
    private var sent: [[String]] = []
    private var counts: [String: Int] = [:]

    func record(_ ids: [String]) -> [String: Int] {
        lock.withLock {
            sent.append(ids)
            for id in ids { counts[id, default: 0] += 1 }
            return counts
        }
    }

    var batches: [[String]] { lock.withLock { sent } }
}

/// The most requests a fake handled at once.
private final class Concurrency: @unchecked Sendable {
    private let lock = NSLock()
    private var current = 0
    private var peak = 0

    func enter() {
        lock.withLock {
            current += 1
            peak = max(peak, current)
        }
    }

    func leave() { lock.withLock { current -= 1 } }
    var maximum: Int { lock.withLock { peak } }
}

/// Answers a `$batch` like Graph does for a serial chain: each inner request gets `answer(id, attempt)`;
/// after the first failure every later one gets 424; the responses come back in reverse order.
private func batchAnswer(
    _ request: HTTPRequest,
    attempts: Attempts,
    answer: (String, Int) -> [String: Any]
) throws -> HTTPResponse {
    let object = try JSONSerialization.jsonObject(with: request.body ?? Data()) as? [String: Any]
    let inner = object?["requests"] as? [[String: Any]] ?? []
    let ids = inner.map { $0["id"] as? String ?? "" }
    let counts = attempts.record(ids)
    var failed = false
    var responses: [[String: Any]] = []
    for id in ids {
        var response: [String: Any]
        if failed {
            response = ["status": 424]
        } else {
            response = answer(id, counts[id] ?? 1)
            failed = !(200..<300).contains(response["status"] as? Int ?? 0)
        }
        response["id"] = id
        responses.append(response)
    }
    return json(200, ["responses": Array(responses.reversed())])
}

extension HTTPResponse {
    fileprivate func with(header: (String, String)) -> HTTPResponse {
        var copy = self
        copy.headers.append((name: header.0, value: header.1))
        return copy
    }
}
