import Foundation
import GraphStandIn
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension RawHTTPConnection.Response {
    /// The body as a JSON object (empty when it is not one).
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
    }

    /// Graph's `error.code`.
    var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
}

/// A stand-in with one user and a token, plus shortcuts for requests against it.
struct StandInFixture {
    let standIn: GraphStandIn
    let token: String

    init(mailboxTimeZone: String? = "W. Europe Standard Time") throws {
        standIn = try GraphStandIn()
        standIn.addUser(
            id: "user-1", displayName: "Adele Vance", mail: "adele@contoso.example", mailboxTimeZone: mailboxTimeZone)
        token = standIn.issueAccessToken()
    }

    var port: Int { standIn.server.port }

    /// A request to `/v1.0` + `path` with the bearer token; absolute URLs are used as they are.
    func call(
        _ method: String, _ path: String, json: Any? = nil, headers: [(String, String)] = [], token: String? = nil
    ) throws -> RawHTTPConnection.Response {
        var target = path.hasPrefix("http://") ? path : "/v1.0" + path
        if target.hasPrefix("http://"), let slash = target.dropFirst(7).firstIndex(of: "/") {
            target = String(target[slash...])
        }
        var all = headers + [("Authorization", "Bearer \(token ?? self.token)")]
        var body: Data?
        if let json {
            body = try JSONSerialization.data(withJSONObject: json)
            all.append(("Content-Type", "application/json"))
        }
        return try RawHTTPConnection.request(port: port, method, target, headers: all, body: body)
    }

    func form(_ path: String, _ fields: [String: String]) throws -> RawHTTPConnection.Response {
        let body = fields.map { "\($0.key)=\(encode($0.value))" }.joined(separator: "&")
        return try RawHTTPConnection.request(
            port: port, "POST", path, headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: Data(body.utf8))
    }

    func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    static func event(_ subject: String, _ start: String, _ end: String, zone: String = "UTC") -> [String: Any] {
        [
            "subject": subject, "start": ["dateTime": start, "timeZone": zone],
            "end": ["dateTime": end, "timeZone": zone],
        ]
    }
}

@Suite struct GraphStandInTests {
    // MARK: HTTP

    @Test func keepAliveServesTwoRequestsOnOneConnection() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        let connection = try RawHTTPConnection(port: fixture.port)
        let auth = [("Authorization", "Bearer \(fixture.token)")]
        try connection.send("GET", "/v1.0/me", headers: auth)
        let first = try connection.readResponse()
        try connection.send("GET", "/v1.0/me/mailboxSettings", headers: auth)
        let second = try connection.readResponse()
        #expect(first.status == 200)
        #expect(first.json["displayName"] as? String == "Adele Vance")
        #expect(second.status == 200)
        #expect(second.json["timeZone"] as? String == "W. Europe Standard Time")
        let connections = Set(fixture.standIn.requests.map(\.connectionID))
        #expect(fixture.standIn.requests.count == 2)
        #expect(connections.count == 1)
    }

    @Test func chunkedBodiesAndExpectContinueAreRead() throws {
        let server = try LoopbackHTTPServer { request in
            .respond(.text(200, String(decoding: request.body, as: UTF8.self)))
        }
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.port)
        try connection.send(
            "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
        )
        let chunked = try connection.readResponse()
        #expect(String(decoding: chunked.body, as: UTF8.self) == "hello world")
        try connection.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n")
        let interim = try connection.readResponse()
        #expect(interim.status == 100)
        try connection.send("abc")
        let final = try connection.readResponse()
        #expect(final.status == 200)
        #expect(String(decoding: final.body, as: UTF8.self) == "abc")
        #expect(server.requestCount == 2)
    }

    @Test func garbageIsAnswered400AndTheServerKeepsServing() throws {
        let server = try LoopbackHTTPServer { _ in .respond(.text(200, "ok")) }
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.port)
        try connection.send(Data([0x00, 0xFF, 0x13, 0x37] + Array("\r\n\r\n".utf8)))
        let response = try connection.readResponse()
        #expect(response.status == 400)
        #expect(connection.isClosedByPeer())
        let next = try RawHTTPConnection.request(port: server.port, "GET", "/fine")
        #expect(next.status == 200)
    }

    @Test func injectedFaultsHitOnlyTheirPathAndOnlyOnce() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        fixture.standIn.injectFault(.closeConnection, forPathContaining: "/mailboxSettings")
        let connection = try RawHTTPConnection(port: fixture.port)
        try connection.send("GET", "/v1.0/me/mailboxSettings", headers: [("Authorization", "Bearer \(fixture.token)")])
        #expect(throws: RawHTTPConnection.Failure.self) { try connection.readResponse() }
        #expect(try fixture.call("GET", "/me").status == 200)
        #expect(try fixture.call("GET", "/me/mailboxSettings").status == 200)
    }

    // MARK: Graph headers, errors and time zones

    @Test func answersCarryRequestIDsAndErrorsHaveGraphsShape() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        let response = try fixture.call("GET", "/me/calendarView", headers: [("client-request-id", "abc-123")])
        #expect(response.status == 400)
        #expect(response.header("client-request-id") == "abc-123")
        let requestID = try #require(response.header("request-id"))
        #expect(UUID(uuidString: requestID) != nil)
        #expect(response.header("Content-Type")?.hasPrefix("application/json;odata.metadata=minimal") == true)
        let error = try #require(response.json["error"] as? [String: Any])
        #expect(error["code"] as? String == "ErrorInvalidParameter")
        let inner = try #require(error["innerError"] as? [String: Any])
        #expect(inner["request-id"] as? String == requestID)
        #expect(inner["client-request-id"] as? String == "abc-123")
        #expect(inner["date"] is String)
        let missing = try fixture.call("GET", "/me/events/nope")
        #expect(missing.status == 404)
        #expect(missing.errorCode == "ErrorItemNotFound")
    }

    @Test func preferredTimeZoneShiftsTimesAndIsReportedApplied() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        try fixture.standIn.addEvent(StandInFixture.event("Standup", "2026-12-01T08:00:00", "2026-12-01T08:30:00"))
        let range = "?startDateTime=2026-12-01T00:00:00Z&endDateTime=2026-12-02T00:00:00Z"
        let utc = try fixture.call("GET", "/me/calendarView" + range)
        let utcEvent = try #require((utc.json["value"] as? [[String: Any]])?.first)
        #expect((utcEvent["start"] as? [String: Any])?["dateTime"] as? String == "2026-12-01T08:00:00.0000000")
        #expect((utcEvent["start"] as? [String: Any])?["timeZone"] as? String == "UTC")
        #expect(utc.header("Preference-Applied") == nil)
        for zone in ["Europe/Berlin", "W. Europe Standard Time"] {
            let shifted = try fixture.call(
                "GET", "/me/calendarView" + range, headers: [("Prefer", "outlook.timezone=\"\(zone)\"")])
            let event = try #require((shifted.json["value"] as? [[String: Any]])?.first)
            #expect((event["start"] as? [String: Any])?["dateTime"] as? String == "2026-12-01T09:00:00.0000000")
            #expect((event["end"] as? [String: Any])?["timeZone"] as? String == zone)
            #expect(shifted.header("Preference-Applied")?.contains("outlook.timezone=\"\(zone)\"") == true)
        }
    }

    @Test func textBodyPreferenceStripsHTML() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        var json = StandInFixture.event("Talk", "2026-12-01T08:00:00", "2026-12-01T09:00:00")
        json["body"] = ["contentType": "html", "content": "<html><body><p>Room &amp; <b>time</b></p></body></html>"]
        let id = try fixture.standIn.addEvent(json)
        let text = try fixture.call(
            "GET", "/me/events/\(id)", headers: [("Prefer", "outlook.body-content-type=\"text\"")])
        #expect((text.json["body"] as? [String: Any])?["contentType"] as? String == "text")
        #expect((text.json["body"] as? [String: Any])?["content"] as? String == "Room & time")
        #expect(text.header("Preference-Applied")?.contains("outlook.body-content-type") == true)
    }

    // MARK: Paging

    @Test func pagingWithTop1000Over2500EventsReturnsEachExactlyOnce() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        let from = Date(timeIntervalSince1970: 1_798_761_600)  // 2027-01-01T00:00:00Z
        let ids = try fixture.standIn.addEvents(count: 2500, from: from, to: from.addingTimeInterval(7 * 86_400))
        var next: String? =
            "/me/calendarView?startDateTime=2027-01-01T00:00:00Z&endDateTime=2027-01-08T00:00:00Z&$top=1000"
        var seen: [String] = []
        var pages = 0
        var lastStart = ""
        while let target = next {
            let page = try fixture.call("GET", target)
            #expect(page.status == 200)
            let value = try #require(page.json["value"] as? [[String: Any]])
            for event in value {
                let start = (event["start"] as? [String: Any])?["dateTime"] as? String ?? ""
                #expect(start >= lastStart)
                lastStart = start
            }
            seen += value.compactMap { $0["id"] as? String }
            next = page.json["@odata.nextLink"] as? String
            if let link = next {
                #expect(link.hasPrefix(fixture.standIn.baseURL + "/me/calendarView?"))
                #expect(link.contains("startDateTime=2027-01-01T00:00:00Z"))
                #expect(link.contains("skiptoken="))
            }
            pages += 1
        }
        #expect(pages == 3)
        #expect(seen.count == 2500)
        #expect(Set(seen) == Set(ids))
    }

    @Test func topDefaultsToTenAndIsCappedAt1000() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        let from = Date(timeIntervalSince1970: 1_798_761_600)
        try fixture.standIn.addEvents(count: 1200, from: from, to: from.addingTimeInterval(86_400))
        let range = "/me/calendarView?startDateTime=2027-01-01T00:00:00&endDateTime=2027-01-02T00:00:00"
        let first = try fixture.call("GET", range)
        #expect((first.json["value"] as? [Any])?.count == 10)
        let capped = try fixture.call("GET", range + "&$top=5000")
        #expect((capped.json["value"] as? [Any])?.count == 1000)
        #expect(capped.json["@odata.nextLink"] is String)
        let forged = try fixture.call("GET", range + "&$skiptoken=made-up")
        #expect(forged.status == 400)
    }

    @Test func calendarViewListsOccurrencesButNotTheirMaster() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        var master = StandInFixture.event("Series", "2026-12-01T08:00:00", "2026-12-01T09:00:00")
        master["type"] = "seriesMaster"
        master["id"] = "master-1"
        try fixture.standIn.addEvent(master)
        for day in 1...3 {
            var occurrence = StandInFixture.event(
                "Series", "2026-12-0\(day)T08:00:00", "2026-12-0\(day)T09:00:00")
            occurrence["type"] = day == 2 ? "exception" : "occurrence"
            occurrence["seriesMasterId"] = "master-1"
            try fixture.standIn.addEvent(occurrence)
        }
        let view = try fixture.call(
            "GET", "/me/calendarView?startDateTime=2026-12-01T00:00:00Z&endDateTime=2026-12-03T00:00:00Z")
        let types = (view.json["value"] as? [[String: Any]] ?? []).compactMap { $0["type"] as? String }
        #expect(types == ["occurrence", "exception"])
        let instances = try fixture.call(
            "GET", "/me/events/master-1/instances?startDateTime=2026-12-01T00:00:00Z&endDateTime=2026-12-31T00:00:00Z")
        #expect((instances.json["value"] as? [Any])?.count == 3)
        #expect(try fixture.call("GET", "/me/events/master-1").json["type"] as? String == "seriesMaster")
    }

    // MARK: Throttling

    @Test func throttledRequestsCarryRetryAfterAndEarlyRetriesAreCounted() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        fixture.standIn.throttleEvery = 2
        fixture.standIn.retryAfter = .milliseconds(200)
        #expect(try fixture.call("GET", "/me").status == 200)
        let id = [("client-request-id", "retried-request")]
        let throttled = try fixture.call("GET", "/me", headers: id)
        #expect(throttled.status == 429)
        #expect(throttled.header("Retry-After") == "0.2")
        #expect(throttled.errorCode == "TooManyRequests")
        // Another request inside the window may have left before the 429 reached the client: refused, not
        // counted.
        #expect(try fixture.call("GET", "/me", headers: [("client-request-id", "other-request")]).status == 429)
        #expect(fixture.standIn.retryAfterViolations == 0)
        // A retry of the throttled request was sent after its 429 was read: too early is a violation.
        let early = try fixture.call("GET", "/me", headers: id)
        #expect(early.status == 429)
        #expect(fixture.standIn.retryAfterViolations == 1)
        #expect(fixture.standIn.operations.map(\.violatedRetryAfter) == [false, false, false, true])
        #expect(fixture.standIn.requests.compactMap(\.status) == [200, 429, 429, 429])
        usleep(250_000)
        fixture.standIn.throttleEvery = nil
        #expect(try fixture.call("GET", "/me", headers: id).status == 200)
        #expect(fixture.standIn.retryAfterViolations == 1)
    }

    @Test func moreThanFourRequestsInFlightForOneMailboxAreThrottled() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        fixture.standIn.latency = .milliseconds(150)
        fixture.standIn.retryAfter = nil
        let statuses = Statuses()
        let group = DispatchGroup()
        for _ in 0..<6 {
            group.enter()
            let thread = Thread {
                let status = (try? fixture.call("GET", "/me/calendars"))?.status ?? -1
                statuses.append(status)
                group.leave()
            }
            thread.start()
        }
        group.wait()
        #expect(statuses.all.filter { $0 == 200 }.count == 4)
        #expect(statuses.all.filter { $0 == 429 }.count == 2)
        #expect(fixture.standIn.maxInFlightPerMailbox == 4)
    }

    // MARK: Batching

    @Test func batchPartsAreRoutedAndAnsweredById() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        let batch: [String: Any] = [
            "requests": [
                ["id": "1", "method": "GET", "url": "/me"],
                [
                    "id": "2", "method": "POST", "url": "/me/events", "headers": ["Content-Type": "application/json"],
                    "body": StandInFixture.event("Batched", "2026-12-01T10:00:00", "2026-12-01T11:00:00"),
                ],
                ["id": "3", "method": "GET", "url": "me/events/missing"],
            ]
        ]
        let response = try fixture.call("POST", "/$batch", json: batch)
        #expect(response.status == 200)
        let parts = try #require(response.json["responses"] as? [[String: Any]])
        #expect(parts.compactMap { $0["id"] as? String } == ["3", "2", "1"])
        var statuses: [String: Int] = [:]
        for part in parts { statuses[part["id"] as? String ?? ""] = part["status"] as? Int }
        #expect(statuses == ["1": 200, "2": 201, "3": 404])
        let created = try #require(parts.first { $0["id"] as? String == "2" }?["body"] as? [String: Any])
        #expect(created["subject"] as? String == "Batched")
        #expect(fixture.standIn.operations.filter(\.viaBatch).count == 3)

        let tooMany: [String: Any] = ["requests": (1...21).map { ["id": "\($0)", "method": "GET", "url": "/me"] }]
        #expect(try fixture.call("POST", "/$batch", json: tooMany).status == 400)
    }

    @Test func throttledBatchPartsGetTheirOwn429() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        fixture.standIn.throttleEvery = 3
        fixture.standIn.retryAfter = .milliseconds(50)
        let batch: [String: Any] = ["requests": (1...3).map { ["id": "\($0)", "method": "GET", "url": "/me"] }]
        let response = try fixture.call("POST", "/$batch", json: batch)
        #expect(response.status == 200)
        let parts = try #require(response.json["responses"] as? [[String: Any]])
        let throttled = parts.filter { $0["status"] as? Int == 429 }
        #expect(throttled.count == 1)
        #expect((throttled.first?["headers"] as? [String: Any])?["Retry-After"] as? String == "0.05")
        #expect(fixture.standIn.retryAfterViolations == 0)
    }

    // MARK: Writes

    @Test func aRepeatedTransactionIdReturnsTheFirstEvent() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        var payload = StandInFixture.event(
            "Concert", "2026-12-05T19:00:00", "2026-12-05T22:00:00", zone: "Europe/Berlin")
        payload["transactionId"] = "uid-42"
        let first = try fixture.call("POST", "/me/events", json: payload)
        let second = try fixture.call("POST", "/me/events", json: payload)
        #expect(first.status == 201)
        #expect(second.status == 201)
        #expect(first.json["id"] as? String == second.json["id"] as? String)
        #expect(fixture.standIn.eventCount == 1)
        #expect(first.json["originalStartTimeZone"] as? String == "Europe/Berlin")
        #expect((first.json["start"] as? [String: Any])?["dateTime"] as? String == "2026-12-05T18:00:00.0000000")
    }

    @Test func eventsAreFoundByTheirExtendedProperty() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        let propertyID = "String {66f5a359-4659-4830-9070-00047ec6ac6e} Name GraphIcsUid"
        var payload = StandInFixture.event("Train", "2026-12-05T07:00:00", "2026-12-05T09:00:00")
        payload["singleValueExtendedProperties"] = [["id": propertyID, "value": "ticket-7@rail.example"]]
        #expect(try fixture.call("POST", "/me/events", json: payload).status == 201)
        try fixture.standIn.addEvent(StandInFixture.event("Other", "2026-12-05T07:00:00", "2026-12-05T09:00:00"))

        func lookup(_ value: String) throws -> [[String: Any]] {
            let filter = "singleValueExtendedProperties/Any(ep: ep/id eq '\(propertyID)' and ep/value eq '\(value)')"
            let expand = "singleValueExtendedProperties($filter=id eq '\(propertyID)')"
            let response = try fixture.call(
                "GET", "/me/events?$filter=\(fixture.encode(filter))&$expand=\(fixture.encode(expand))")
            #expect(response.status == 200)
            return response.json["value"] as? [[String: Any]] ?? []
        }
        let found = try lookup("ticket-7@rail.example")
        #expect(found.count == 1)
        #expect(found.first?["subject"] as? String == "Train")
        let expanded = found.first?["singleValueExtendedProperties"] as? [[String: Any]]
        #expect(expanded?.first?["value"] as? String == "ticket-7@rail.example")
        #expect(try lookup("ticket-8@rail.example").isEmpty)
        let plain = try fixture.call("GET", "/me/events")
        #expect((plain.json["value"] as? [[String: Any]])?.first?["singleValueExtendedProperties"] == nil)
    }

    @Test func onlyEventsWithAttendeesSendInvitations() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        #expect(
            try fixture.call(
                "POST", "/me/events", json: StandInFixture.event("Ticket", "2026-12-05T19:00:00", "2026-12-05T21:00:00")
            ).status == 201)
        #expect(fixture.standIn.sentInvitations.isEmpty)
        var meeting = StandInFixture.event("Review", "2026-12-06T09:00:00", "2026-12-06T10:00:00")
        meeting["attendees"] = [
            ["type": "required", "emailAddress": ["address": "bob@contoso.example", "name": "Bob"]]
        ]
        let created = try fixture.call("POST", "/me/events", json: meeting)
        #expect(fixture.standIn.sentInvitations == ["bob@contoso.example"])
        let id = try #require(created.json["id"] as? String)
        #expect(try fixture.call("POST", "/me/events/\(id)/cancel", json: ["comment": "off"]).status == 202)
        #expect(fixture.standIn.sentCancellations == ["bob@contoso.example"])
        #expect(try fixture.call("GET", "/me/events/\(id)").status == 404)
    }

    @Test func payloadsGraphWouldRefuseAreRefused() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        var unknown = StandInFixture.event("X", "2026-12-05T19:00:00", "2026-12-05T21:00:00")
        unknown["uid"] = "beta-only"
        #expect(try fixture.call("POST", "/me/events", json: unknown).errorCode == "RequestBodyRead")
        let zone = StandInFixture.event("X", "2026-12-05T19:00:00", "2026-12-05T21:00:00", zone: "Mars/Olympus")
        #expect(try fixture.call("POST", "/me/events", json: zone).errorCode == "TimeZoneNotSupportedException")
        let backwards = StandInFixture.event("X", "2026-12-05T21:00:00", "2026-12-05T19:00:00")
        #expect(try fixture.call("POST", "/me/events", json: backwards).errorCode == "ErrorPropertyValidationFailure")
        var allDay = StandInFixture.event("X", "2026-12-05T10:00:00", "2026-12-06T00:00:00")
        allDay["isAllDay"] = true
        #expect(try fixture.call("POST", "/me/events", json: allDay).status == 400)
        #expect(fixture.standIn.eventCount == 0)
    }

    @Test func aCreatedSeriesIsExpandedAndItsOccurrencesCanBeChanged() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        var series = StandInFixture.event(
            "Weekly", "2026-11-30T09:00:00", "2026-11-30T09:30:00", zone: "W. Europe Standard Time")
        series["recurrence"] = [
            "pattern": ["type": "weekly", "interval": 1, "daysOfWeek": ["monday", "wednesday"]],
            "range": ["type": "numbered", "startDate": "2026-11-30", "numberOfOccurrences": 4],
        ]
        let master = try fixture.call("POST", "/me/events", json: series)
        let masterID = try #require(master.json["id"] as? String)
        #expect(master.json["type"] as? String == "seriesMaster")
        let window = "startDateTime=2026-11-01T00:00:00Z&endDateTime=2027-01-01T00:00:00Z"
        let instances = try fixture.call("GET", "/me/events/\(masterID)/instances?\(window)")
        let values = instances.json["value"] as? [[String: Any]] ?? []
        let starts = values.compactMap { ($0["start"] as? [String: Any])?["dateTime"] as? String }
        #expect(
            starts == [
                "2026-11-30T08:00:00.0000000", "2026-12-02T08:00:00.0000000", "2026-12-07T08:00:00.0000000",
                "2026-12-09T08:00:00.0000000",
            ])
        let second = try #require(values[1]["id"] as? String)
        let patched = try fixture.call("PATCH", "/me/events/\(second)", json: ["subject": "Moved"])
        #expect(patched.json["type"] as? String == "exception")
        let third = try #require(values[2]["id"] as? String)
        #expect(try fixture.call("DELETE", "/me/events/\(third)").status == 204)
        let view = try fixture.call("GET", "/me/calendarView?\(window)")
        #expect(
            (view.json["value"] as? [[String: Any]])?.compactMap { $0["subject"] as? String } == [
                "Weekly", "Moved", "Weekly",
            ])
    }

    @Test func wallClockTimesInDSTGapsAndFoldsResolveLikeExchange() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        // 02:30 does not exist in Berlin on 2026-03-29 (moves forward to 03:30 CEST); on 2026-10-25 it exists
        // twice (the first, CEST, wins).
        let gap = try fixture.standIn.addEvent(
            StandInFixture.event("Gap", "2026-03-29T02:30:00", "2026-03-29T04:00:00", zone: "W. Europe Standard Time"))
        let fold = try fixture.standIn.addEvent(
            StandInFixture.event("Fold", "2026-10-25T02:30:00", "2026-10-25T04:00:00", zone: "Europe/Berlin"))
        let gapStart = (fixture.standIn.event(id: gap)?["start"] as? [String: Any])?["dateTime"] as? String
        let foldStart = (fixture.standIn.event(id: fold)?["start"] as? [String: Any])?["dateTime"] as? String
        #expect(gapStart == "2026-03-29T01:30:00.0000000")
        #expect(foldStart == "2026-10-25T00:30:00.0000000")
    }

    @Test func payloadValuesComeBackWithTheirJSONTypes() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        var payload = StandInFixture.event("Typed", "2026-12-05T19:00:00", "2026-12-05T21:00:00")
        payload["reminderMinutesBeforeStart"] = 0
        payload["isReminderOn"] = true
        payload["categories"] = ["Blue \"quoted\" \\ slash", "Grün"]
        payload["location"] = ["displayName": "Hall", "coordinates": ["latitude": 52.37, "longitude": 4.9]]
        let created = try fixture.call("POST", "/me/events", json: payload)
        #expect(created.status == 201)
        let id = try #require(created.json["id"] as? String)
        let read = try fixture.call("GET", "/me/events/\(id)").json
        #expect(read["reminderMinutesBeforeStart"] as? Int == 0)
        #expect(read["isReminderOn"] as? Bool == true)
        #expect(read["categories"] as? [String] == ["Blue \"quoted\" \\ slash", "Grün"])
        let coordinates = (read["location"] as? [String: Any])?["coordinates"] as? [String: Any]
        #expect(coordinates?["latitude"] as? Double == 52.37)
    }

    @Test func monthlySeriesFollowExchangesRules() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        func starts(_ pattern: [String: Any], _ first: String, count: Int) throws -> [String] {
            var series = StandInFixture.event("M", "\(first)T10:00:00", "\(first)T11:00:00")
            series["recurrence"] = [
                "pattern": pattern,
                "range": ["type": "numbered", "startDate": first, "numberOfOccurrences": count],
            ]
            let master = try fixture.call("POST", "/me/events", json: series)
            let id = try #require(master.json["id"] as? String)
            let instances = try fixture.call(
                "GET", "/me/events/\(id)/instances?startDateTime=2026-01-01&endDateTime=2028-01-01&$top=50")
            return (instances.json["value"] as? [[String: Any]] ?? []).compactMap {
                ((($0["start"] as? [String: Any])?["dateTime"] as? String)?.prefix(10)).map(String.init)
            }
        }
        // Day 31 falls on the last day of shorter months.
        #expect(
            try starts(["type": "absoluteMonthly", "interval": 1, "dayOfMonth": 31], "2027-01-31", count: 3)
                == ["2027-01-31", "2027-02-28", "2027-03-31"])
        #expect(
            try starts(
                ["type": "relativeMonthly", "interval": 1, "daysOfWeek": ["friday"], "index": "last"], "2027-01-01",
                count: 3) == ["2027-01-29", "2027-02-26", "2027-03-26"])
    }

    // MARK: Authentication

    @Test func tokenProblemsAreAnsweredLikeGraph() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        let anonymous = try RawHTTPConnection.request(port: fixture.port, "GET", "/v1.0/me")
        #expect(anonymous.status == 401)
        #expect(anonymous.errorCode == "InvalidAuthenticationToken")
        #expect(anonymous.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
        #expect(try fixture.call("GET", "/me", token: "forged").status == 401)

        let readOnly = fixture.standIn.issueAccessToken(scopes: ["User.Read", "Calendars.Read"])
        let write = StandInFixture.event("X", "2026-12-05T19:00:00", "2026-12-05T21:00:00")
        let denied = try fixture.call("POST", "/me/events", json: write, token: readOnly)
        #expect(denied.status == 403)
        #expect(denied.errorCode == "ErrorAccessDenied")
        #expect(try fixture.call("GET", "/me/calendars", token: readOnly).status == 200)

        let app = fixture.standIn.issueAppToken(roles: ["Calendars.Read"])
        #expect(try fixture.call("GET", "/me", token: app).status == 400)
        #expect(try fixture.call("GET", "/users/adele@contoso.example/calendars", token: app).status == 200)

        fixture.standIn.expireAccessTokens()
        let expired = try fixture.call("GET", "/me")
        #expect(expired.status == 401)
        #expect(
            (expired.json["error"] as? [String: Any])?["message"] as? String
                == "Lifetime validation failed, the token is expired.")
    }

    @Test func deviceCodeFlowFollowsItsScriptAndRefreshTokensRotate() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        fixture.standIn.deviceCodeInterval = 0
        fixture.standIn.slowDownIncrement = .milliseconds(100)
        fixture.standIn.deviceCodeScript = [.authorizationPending, .slowDown, .success]
        let start = try fixture.form(
            "/common/oauth2/v2.0/devicecode", ["client_id": "cli", "scope": "Calendars.ReadWrite offline_access"])
        #expect(start.status == 200)
        let deviceCode = try #require(start.json["device_code"] as? String)
        #expect(start.json["interval"] as? Int == 0)
        #expect((start.json["message"] as? String)?.contains(start.json["user_code"] as? String ?? "?") == true)
        let grant = "urn:ietf:params:oauth:grant-type:device_code"
        func poll() throws -> RawHTTPConnection.Response {
            try fixture.form(
                "/common/oauth2/v2.0/token", ["grant_type": grant, "client_id": "cli", "device_code": deviceCode])
        }
        #expect(try poll().json["error"] as? String == "authorization_pending")
        let slow = try poll()
        #expect(slow.status == 400)
        #expect(slow.json["error"] as? String == "slow_down")
        #expect(slow.json["error_codes"] is [Int])
        #expect(slow.json["correlation_id"] is String)
        usleep(120_000)
        let tokens = try poll()
        #expect(tokens.status == 200)
        #expect(tokens.json["token_type"] as? String == "Bearer")
        #expect(fixture.standIn.devicePollTimes.count == 3)
        #expect(fixture.standIn.devicePollIntervalViolations == 0)
        let access = try #require(tokens.json["access_token"] as? String)
        #expect(try fixture.call("GET", "/me/calendars", token: access).status == 200)
        #expect(try poll().json["error"] as? String == "invalid_grant")

        let refresh = try #require(tokens.json["refresh_token"] as? String)
        let renewed = try fixture.form(
            "/common/oauth2/v2.0/token", ["grant_type": "refresh_token", "client_id": "cli", "refresh_token": refresh])
        let newRefresh = try #require(renewed.json["refresh_token"] as? String)
        #expect(newRefresh != refresh)
        let reused = try fixture.form(
            "/common/oauth2/v2.0/token", ["grant_type": "refresh_token", "client_id": "cli", "refresh_token": refresh])
        #expect(reused.json["error"] as? String == "invalid_grant")
        fixture.standIn.revokeAllTokens()
        let revoked = try fixture.form(
            "/common/oauth2/v2.0/token",
            ["grant_type": "refresh_token", "client_id": "cli", "refresh_token": newRefresh])
        #expect(revoked.json["error"] as? String == "invalid_grant")
    }

    @Test func clientCredentialsNeedTheRightSecretAndDefaultScope() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        fixture.standIn.registerApp(
            clientID: "daemon", secret: "s3cret", roles: ["Calendars.ReadWrite", "MailboxSettings.Read"])
        let path = "/contoso.example/oauth2/v2.0/token"
        let scope = "https://graph.microsoft.com/.default"
        let good = try fixture.form(
            path,
            ["grant_type": "client_credentials", "client_id": "daemon", "client_secret": "s3cret", "scope": scope])
        #expect(good.status == 200)
        let token = try #require(good.json["access_token"] as? String)
        #expect(try fixture.call("GET", "/users/user-1/mailboxSettings", token: token).status == 200)
        let wrong = try fixture.form(
            path, ["grant_type": "client_credentials", "client_id": "daemon", "client_secret": "nope", "scope": scope])
        #expect(wrong.json["error"] as? String == "invalid_client")
        let badScope = try fixture.form(
            path,
            [
                "grant_type": "client_credentials", "client_id": "daemon", "client_secret": "s3cret",
                "scope": "Calendars.Read",
            ])
        #expect(badScope.json["error"] as? String == "invalid_scope")
    }
}

/// Thread-safe collection of statuses from parallel requests.
final class Statuses: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Int] = []

    func append(_ value: Int) { lock.withLock { values.append(value) } }
    var all: [Int] { lock.withLock { values } }
}
