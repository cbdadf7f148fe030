import Foundation
import GraphStandIn
import ICalBridge
import Testing

/// `graph-ics add` against the Graph stand-in: the payload it sends (instants, Windows zone, attendees,
/// transactionId), the invitations Graph sends, DST gaps and folds, and its errors.
@Suite struct AddCommandTests {
    /// A mailbox in "W. Europe Standard Time".
    static func account() throws -> StandInAccount {
        let account = try StandInAccount()
        account.standIn.addUser(
            displayName: "Megan Bowen", mail: "megan@contoso.example", mailboxTimeZone: "W. Europe Standard Time")
        return account
    }

    /// The JSON bodies of the event creates the stand-in received.
    static func createPayloads(_ standIn: GraphStandIn) -> [[String: Any]] {
        standIn.operations.filter { $0.method == "POST" && $0.path.hasSuffix("/events") }.compactMap {
            $0.jsonBody as? [String: Any]
        }
    }

    static func dateTime(_ value: Any?) -> String? { (value as? [String: Any])?["dateTime"] as? String }
    static func timeZone(_ value: Any?) -> String? { (value as? [String: Any])?["timeZone"] as? String }

    @Test("a timed event is sent as local time with the mailbox's Windows zone and stored at the right instants")
    func timedEventInMailboxZone() throws {
        let account = try Self.account()
        let standIn = account.standIn
        let result = try account.run(
            [
                "add", "--subject", "Dentist", "--start", "2026-12-01 09:30", "--end", "2026-12-01T10:15",
                "--location", "Praxis Dr. Weiß", "--body", "Bring the card",
            ], environment: account.tokenEnvironment())
        #expect(result.status == 0, "stderr: \(result.err)")
        let lines = result.out.split(separator: "\n").map(String.init)
        let id = try #require(lines.first)
        #expect(lines.count == 2 && lines[1].hasPrefix("https://"), "stdout: \(result.out)")
        #expect(!result.err.contains("invitation"), "stderr: \(result.err)")

        let payloads = Self.createPayloads(standIn)
        #expect(payloads.count == 1)
        let payload = try #require(payloads.first)
        #expect(payload["subject"] as? String == "Dentist")
        #expect(payload["isAllDay"] as? Bool == false)
        #expect(Self.dateTime(payload["start"]) == "2026-12-01T09:30:00")
        #expect(Self.timeZone(payload["start"]) == "W. Europe Standard Time")
        #expect(Self.dateTime(payload["end"]) == "2026-12-01T10:15:00")
        #expect(Self.timeZone(payload["end"]) == "W. Europe Standard Time")
        #expect(payload["attendees"] == nil)
        #expect((payload["transactionId"] as? String)?.isEmpty == false)
        #expect((payload["body"] as? [String: Any])?["content"] as? String == "Bring the card")
        #expect((payload["body"] as? [String: Any])?["contentType"] as? String == "text")

        let stored = try #require(standIn.event(id: id))
        #expect(Self.dateTime(stored["start"]) == "2026-12-01T08:30:00.0000000")
        #expect(Self.dateTime(stored["end"]) == "2026-12-01T09:15:00.0000000")
        #expect(stored["originalStartTimeZone"] as? String == "W. Europe Standard Time")
        #expect((stored["location"] as? [String: Any])?["displayName"] as? String == "Praxis Dr. Weiß")
        #expect(standIn.sentInvitations.isEmpty)
    }

    @Test("attendees are invited, and graph-ics says so on stderr before sending")
    func attendeesAreInvited() throws {
        let account = try Self.account()
        let standIn = account.standIn
        let result = try account.run(
            [
                "add", "--subject", "Review", "--start", "2026-12-02T14:00", "--end", "2026-12-02T15:00",
                "--attendees", "ann@contoso.example; Bo Li <bo@contoso.example>",
            ], environment: account.tokenEnvironment())
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(
            result.errLines.first
                == "note: Graph will send invitations to ann@contoso.example, Bo Li <bo@contoso.example>",
            "stderr: \(result.err)")
        #expect(standIn.sentInvitations == ["ann@contoso.example", "bo@contoso.example"])
        let payload = try #require(Self.createPayloads(standIn).first)
        let attendees = try #require(payload["attendees"] as? [[String: Any]])
        #expect(
            attendees.map { ($0["emailAddress"] as? [String: Any])?["address"] as? String } == [
                "ann@contoso.example", "bo@contoso.example",
            ])
        #expect(attendees.map { ($0["emailAddress"] as? [String: Any])?["name"] as? String } == [nil, "Bo Li"])
        #expect(attendees.allSatisfy { $0["type"] as? String == "required" })
        let id = try #require(result.out.split(separator: "\n").first.map(String.init))
        let stored = try #require(standIn.event(id: id))
        #expect((stored["attendees"] as? [[String: Any]])?.count == 2)
    }

    @Test("--all-day sends midnight dates with the end exclusive")
    func allDay() throws {
        let account = try Self.account()
        let standIn = account.standIn
        let result = try account.run(
            ["add", "--subject", "Holiday", "--all-day", "--start", "2026-12-24", "--end", "2026-12-27"],
            environment: account.tokenEnvironment())
        #expect(result.status == 0, "stderr: \(result.err)")
        let payload = try #require(Self.createPayloads(standIn).first)
        #expect(payload["isAllDay"] as? Bool == true)
        #expect(Self.dateTime(payload["start"]) == "2026-12-24T00:00:00")
        #expect(Self.dateTime(payload["end"]) == "2026-12-27T00:00:00")
        #expect(Self.timeZone(payload["start"]) == "W. Europe Standard Time")
        let id = try #require(result.out.split(separator: "\n").first.map(String.init))
        let stored = try #require(standIn.event(id: id))
        #expect(stored["isAllDay"] as? Bool == true)
        #expect(Self.dateTime(stored["start"]) == "2026-12-24T00:00:00.0000000")
        #expect(Self.dateTime(stored["end"]) == "2026-12-27T00:00:00.0000000")
    }

    @Test("--start 'tomorrow 10:00' --duration 30m is half an hour tomorrow in the mailbox's zone")
    func tomorrowWithDuration() throws {
        let account = try Self.account()
        let berlin = try #require(ResolvedZone.iana("Europe/Berlin"))
        let before = TypedTimeProbe.tomorrow(in: berlin)
        let result = try account.run(
            ["add", "--subject", "Call Bo", "--start", "tomorrow 10:00", "--duration", "30m"],
            environment: account.tokenEnvironment())
        #expect(result.status == 0, "stderr: \(result.err)")
        let payload = try #require(Self.createPayloads(account.standIn).first)
        // The day is the test's tomorrow in Berlin, read before or after the run (midnight may pass).
        let days = Set([before, TypedTimeProbe.tomorrow(in: berlin)])
        #expect(days.map { $0 + "T10:00:00" }.contains(Self.dateTime(payload["start"]) ?? ""), "\(payload)")
        #expect(days.map { $0 + "T10:30:00" }.contains(Self.dateTime(payload["end"]) ?? ""), "\(payload)")
        #expect(Self.timeZone(payload["start"]) == "W. Europe Standard Time")
    }

    @Test("ISO 8601 with an offset is that instant, and --duration measures from it")
    func isoWithOffset() throws {
        let account = try Self.account()
        let result = try account.run(
            ["add", "--subject", "Call", "--start", "2026-12-01T09:00-05:00", "--duration", "1h30m"],
            environment: account.tokenEnvironment())
        #expect(result.status == 0, "stderr: \(result.err)")
        let id = try #require(result.out.split(separator: "\n").first.map(String.init))
        let stored = try #require(account.standIn.event(id: id))
        #expect(Self.dateTime(stored["start"]) == "2026-12-01T14:00:00.0000000")
        #expect(Self.dateTime(stored["end"]) == "2026-12-01T15:30:00.0000000")
        #expect(result.err.contains("Tuesday 1 December 2026 15:00–16:30 (Europe/Berlin)"), "stderr: \(result.err)")
    }

    @Test("--tz reads the times in another zone and names its Windows zone")
    func otherZone() throws {
        let account = try Self.account()
        let standIn = account.standIn
        let result = try account.run(
            [
                "add", "--subject", "Call", "--start", "2026-07-01T09:00", "--end", "2026-07-01T09:30", "--tz",
                "America/New_York",
            ], environment: account.tokenEnvironment())
        #expect(result.status == 0, "stderr: \(result.err)")
        let payload = try #require(Self.createPayloads(standIn).first)
        #expect(Self.timeZone(payload["start"]) == "Eastern Standard Time")
        #expect(Self.dateTime(payload["start"]) == "2026-07-01T09:00:00")
        let id = try #require(result.out.split(separator: "\n").first.map(String.init))
        let stored = try #require(standIn.event(id: id))
        #expect(Self.dateTime(stored["start"]) == "2026-07-01T13:00:00.0000000")
        #expect(Self.dateTime(stored["end"]) == "2026-07-01T13:30:00.0000000")
    }

    @Test("a time in the spring-forward gap moves forward; one in the autumn fold takes the first; both warn")
    func gapAndFold() throws {
        let account = try Self.account()
        let standIn = account.standIn
        let environment = account.tokenEnvironment()
        let gap = try account.run(
            ["add", "--subject", "Gap", "--start", "2026-03-29T02:30", "--end", "2026-03-29T04:00"],
            environment: environment)
        #expect(gap.status == 0, "stderr: \(gap.err)")
        #expect(gap.err.contains("warning: --start 2026-03-29T02:30 does not exist in Europe/Berlin"), "\(gap.err)")
        #expect(gap.err.contains("using 03:30 +02:00"), "\(gap.err)")
        let gapID = try #require(gap.out.split(separator: "\n").first.map(String.init))
        #expect(Self.dateTime(standIn.event(id: gapID)?["start"]) == "2026-03-29T01:30:00.0000000")

        let fold = try account.run(
            ["add", "--subject", "Fold", "--start", "2026-10-25T02:30", "--end", "2026-10-25T03:30"],
            environment: environment)
        #expect(fold.status == 0, "stderr: \(fold.err)")
        #expect(
            fold.err.contains("warning: --start 2026-10-25T02:30 occurs twice in Europe/Berlin"), "\(fold.err)")
        #expect(fold.err.contains("using the first, +02:00 (not +01:00)"), "\(fold.err)")
        let foldID = try #require(fold.out.split(separator: "\n").first.map(String.init))
        #expect(Self.dateTime(standIn.event(id: foldID)?["start"]) == "2026-10-25T00:30:00.0000000")
        #expect(Self.dateTime(standIn.event(id: foldID)?["end"]) == "2026-10-25T02:30:00.0000000")
    }

    @Test("a start in the spring-forward gap moves forward and the event keeps the length asked for")
    func gapKeepsTheLength() throws {
        let account = try Self.account()
        let standIn = account.standIn
        let result = try account.run(
            ["add", "--subject", "Gap", "--start", "2027-03-28 02:30", "--end", "2027-03-28 03:30"],
            environment: account.tokenEnvironment())
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(
            result.errLines.contains(
                "warning: --start 2027-03-28 02:30 does not exist in Europe/Berlin (the clocks go forward then); "
                    + "using 03:30 +02:00"), "stderr: \(result.err)")
        #expect(
            result.errLines.contains(
                "note: the start moved forward, so the end moves too and the event keeps the 1 h asked for: "
                    + "ends 04:30 +02:00"), "stderr: \(result.err)")
        let id = try #require(result.out.split(separator: "\n").first.map(String.init))
        let stored = try #require(standIn.event(id: id))
        #expect(Self.dateTime(stored["start"]) == "2027-03-28T01:30:00.0000000")
        #expect(Self.dateTime(stored["end"]) == "2027-03-28T02:30:00.0000000")
        #expect(result.err.contains("04:30 (Europe/Berlin)"), "stderr: \(result.err)")

        // An end in the gap after a start before it already keeps the length: no note.
        let endInGap = try account.run(
            ["add", "--subject", "End in gap", "--start", "2027-03-28T01:30", "--end", "2027-03-28T02:30"],
            environment: account.tokenEnvironment())
        #expect(endInGap.status == 0, "stderr: \(endInGap.err)")
        #expect(!endInGap.err.contains("note: the start moved"), "stderr: \(endInGap.err)")
        let other = try #require(endInGap.out.split(separator: "\n").first.map(String.init))
        #expect(Self.dateTime(standIn.event(id: other)?["start"]) == "2027-03-28T00:30:00.0000000")
        #expect(Self.dateTime(standIn.event(id: other)?["end"]) == "2027-03-28T01:30:00.0000000")
    }

    @Test(
        "usage mistakes exit 64 and send nothing",
        arguments: [
            ["add", "--subject", "X", "--start", "2026-12-01T10:00", "--end", "2026-12-01T09:00"],
            ["add", "--subject", "X", "--start", "2026-12-01", "--end", "2026-12-02"],
            ["add", "--subject", "X", "--all-day", "--start", "2026-12-01", "--end", "2026-12-01"],
            ["add", "--subject", "X", "--start", "2026-12-01T10:00"],
            ["add", "--start", "2026-12-01T10:00", "--end", "2026-12-01T11:00"],
            [
                "add", "--subject", "X", "--start", "2026-12-01T10:00", "--end", "2026-12-01T11:00", "--attendees",
                "bob",
            ],
            ["add", "--subject", "X", "--start", "tomorrow", "--end", "2026-12-01T11:00"],
            ["add", "--subject", "X", "--start", "tomorrow 10:00", "--duration", "soon"],
            ["add", "--subject", "X", "--start", "tomorrow 10:00", "--end", "11:00", "--duration", "1h"],
            ["add", "--subject", "X", "--start", "someday 10:00", "--duration", "1h"],
        ])
    func usage(arguments: [String]) throws {
        let account = try Self.account()
        let result = try account.run(arguments, environment: account.tokenEnvironment())
        #expect(result.status == 64, "stderr: \(result.err)")
        #expect(result.stdout.isEmpty)
        #expect(result.errLines.first?.hasPrefix("error: ") == true, "stderr: \(result.err)")
        #expect(account.standIn.operations.isEmpty)
    }

    @Test("Graph refusing the event (400) is one sentence with the request-id, exit 65")
    func graphRefuses() throws {
        let account = try Self.account()
        let standIn = account.standIn
        let body: [String: Any] = [
            "error": [
                "code": "ErrorInvalidRecipients", "message": "At least one recipient isn't valid.",
                "innerError": ["request-id": "0a1b2c3d-0000-4000-8000-000000000400"],
            ]
        ]
        var refusal = LoopbackHTTPServer.Response.json(400, body)
        refusal.headers.append(("request-id", "0a1b2c3d-0000-4000-8000-000000000400"))
        standIn.injectFault(.respond(refusal), forPathContaining: "/events")
        let result = try account.run(
            [
                "add", "--subject", "Review", "--start", "2026-12-02T14:00", "--end", "2026-12-02T15:00",
                "--attendees", "ann@contoso.example",
            ], environment: account.tokenEnvironment())
        #expect(result.status == 65)
        #expect(result.stdout.isEmpty, "stdout: \(result.out)")
        let errors = result.errLines.filter { $0.hasPrefix("error: ") }
        #expect(
            errors == [
                "error: Microsoft Graph failed while creating an event: HTTP 400 ErrorInvalidRecipients, At least one "
                    + "recipient isn't valid [request-id 0a1b2c3d-0000-4000-8000-000000000400]."
            ], "stderr: \(result.err)")
        #expect(standIn.eventCount == 0)
    }

    @Test("a read-only calendar is refused with exit 77")
    func readOnlyCalendar() throws {
        let account = try Self.account()
        account.standIn.addCalendar(name: "Holidays", canEdit: false)
        let result = try account.run(
            [
                "add", "--subject", "X", "--start", "2026-12-01T10:00", "--end", "2026-12-01T11:00", "--calendar",
                "Holidays",
            ], environment: account.tokenEnvironment())
        #expect(result.status == 77, "stderr: \(result.err)")
        #expect(result.stdout.isEmpty)
        #expect(result.errLines.count == 1 && result.err.contains("HTTP 403"), "stderr: \(result.err)")
        #expect(result.err.contains("request-id"), "stderr: \(result.err)")
    }
}

/// The test's own reading of "tomorrow" in a zone, from the system clock, as `YYYY-MM-DD`.
enum TypedTimeProbe {
    static func tomorrow(in zone: ResolvedZone) -> String {
        let now = Int64(Date().timeIntervalSince1970)
        return zone.localTime(at: now).date.adding(days: 1).dateString
    }
}
