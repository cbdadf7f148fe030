import Foundation
import GraphStandIn
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `graph-ics import` end to end: the built binary against the Graph stand-in.
@Suite struct ImportCommandTests {
    static let tickets = ["train-ticket.ics", "cinema-ticket.ics", "concert.ics"]

    static func fixture(_ name: String) -> String {
        Package.fixture("import/" + name).path
    }

    /// A stand-in account whose mailbox is in Berlin, signed in with a token.
    private static func account() throws -> (account: StandInAccount, environment: [String: String]) {
        let account = try StandInAccount()
        account.standIn.addUser(
            displayName: "Alex Example", mail: "alex@contoso.example", mailboxTimeZone: "W. Europe Standard Time")
        return (account, account.tokenEnvironment())
    }

    /// The Graph operations that change something (plain or inside `$batch`).
    private static func writes(_ standIn: GraphStandIn) -> Int {
        standIn.operations.filter { ["POST", "PATCH", "DELETE"].contains($0.method) }.count
    }

    /// The `events` of a `--json` report.
    private static func reportEvents(_ result: ProcessResult) throws -> [[String: Any]] {
        let object = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        return try #require(object["events"] as? [[String: Any]])
    }

    /// `count` one-hour events in one file, UIDs `bulk-N@tests.example`.
    private static func bulkFile(_ count: Int, in folder: URL) throws -> String {
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//graph-ics tests//EN", "METHOD:PUBLISH"]
        for index in 0..<count {
            let day = 1 + (index / 10) % 28
            let hour = 8 + index % 10
            lines += [
                "BEGIN:VEVENT", "UID:bulk-\(index)@tests.example", "DTSTAMP:20261201T100000Z",
                String(format: "DTSTART:202704%02dT%02d0000Z", day, hour), "DURATION:PT45M",
                "SUMMARY:Bulk event \(index)", "END:VEVENT",
            ]
        }
        lines.append("END:VCALENDAR")
        let path = folder.appendingPathComponent("bulk-\(count).ics").path
        try Data((lines.joined(separator: "\r\n") + "\r\n").utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private static func startUTC(_ event: [String: Any]) -> String {
        String(((event["start"] as? [String: Any])?["dateTime"] as? String ?? "").prefix(19))
    }

    // MARK: Tickets

    @Test func threeTicketsAreImportedWithoutInvitationsAndNothingIsCreatedTheSecondTime() throws {
        let (account, environment) = try Self.account()
        let standIn = account.standIn
        standIn.latency = .milliseconds(10)
        standIn.throttleEvery = 4
        standIn.retryAfter = .milliseconds(50)
        let files = Self.tickets.map(Self.fixture)

        let first = try account.run(["import"] + files + ["--json"], environment: environment)
        #expect(first.status == 0, "stderr: \(first.err)")
        let created = try Self.reportEvents(first)
        #expect(created.map { $0["action"] as? String } == ["created", "created", "created"])
        #expect(created.allSatisfy { ($0["eventId"] as? String)?.isEmpty == false })
        #expect(created.map { $0["uid"] as? String }.contains("ES9126-20270115-QZX7LM@tickets.eurostar.example"))
        #expect(first.errLines.filter { $0.hasSuffix(": created") }.count == 3, "stderr: \(first.err)")
        #expect(standIn.sentInvitations.isEmpty)
        #expect(standIn.eventCount == 3)
        let cinema = try #require(standIn.events().first { ($0["subject"] as? String)?.hasPrefix("Kino") == true })
        #expect((cinema["attendees"] as? [Any])?.isEmpty == true)
        #expect(Self.startUTC(cinema) == "2027-01-22T19:15:00")

        let writes = Self.writes(standIn)
        let second = try account.run(["import"] + files, environment: environment)
        #expect(second.status == 0, "stderr: \(second.err)")
        #expect(second.errLines.filter { $0.hasSuffix(": skipped (already imported)") }.count == 3, "\(second.err)")
        #expect(second.stdout.isEmpty)
        #expect(standIn.eventCount == 3)
        #expect(Self.writes(standIn) == writes)
        #expect(standIn.sentInvitations.isEmpty)
        #expect(standIn.throttledCount > 0)
        #expect(standIn.retryAfterViolations == 0)
        #expect(standIn.maxInFlightPerMailbox <= 4)
    }

    @Test func aTicketPipedIntoStandardInputIsImported() throws {
        let (account, environment) = try Self.account()
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.fixture("concert.ics")))
        let result = try account.run(["import", "-"], environment: environment, stdin: .pipe(data))
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(
            result.errLines.contains {
                $0.hasPrefix("<stdin>: \"Concert: Mahler") && $0.hasSuffix(" 2027-02-11 20:00: created")
            })
        let event = try #require(account.standIn.events().first)
        #expect(Self.startUTC(event) == "2027-02-11T19:00:00")
        #expect(event["reminderMinutesBeforeStart"] as? Int == 180)
    }

    // MARK: Dry run

    @Test func aDryRunPrintsThePayloadsAndChangesNothing() throws {
        let (account, environment) = try Self.account()
        let files = Self.tickets.map(Self.fixture)
        let result = try account.run(["import", "--dry-run"] + files, environment: environment)
        #expect(result.status == 0, "stderr: \(result.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let payloads = try #require(object["value"] as? [[String: Any]])
        #expect(payloads.count == 3)
        #expect(payloads.allSatisfy { $0["transactionId"] is String && $0["attendees"] == nil })
        let properties = payloads.compactMap { $0["singleValueExtendedProperties"] as? [[String: Any]] }
        #expect(properties.count == 3 && properties.allSatisfy { $0.count == 3 })
        // Reads only: GETs, and the lookups' GETs inside `$batch`.
        #expect(account.standIn.requests.allSatisfy { $0.method == "GET" || $0.path.hasSuffix("/$batch") })
        #expect(account.standIn.operations.allSatisfy { $0.method == "GET" || $0.path.hasSuffix("/$batch") })
        #expect(Self.writes(account.standIn) == 0)
        #expect(account.standIn.eventCount == 0)
        #expect(result.errLines.filter { $0.hasSuffix(": would create") }.count == 3, "stderr: \(result.err)")

        // With --tz and no sign-in it needs no account, sends nothing at all, and says it did not look.
        let requests = account.standIn.requests.count
        let offline = try account.run(
            ["import", "--dry-run", "--tz", "Europe/Berlin", Self.fixture("concert.ics")],
            environment: account.baseEnvironment)
        #expect(offline.status == 0, "stderr: \(offline.err)")
        #expect(offline.out.contains("\"2027-02-11T20:00:00\""))
        #expect(offline.err.contains("did not look for events imported before (not signed in)"), "\(offline.err)")
        #expect(account.standIn.requests.count == requests)
    }

    @Test func aDryRunAfterAnImportSaysWhatWouldBeSkipped() throws {
        let (account, environment) = try Self.account()
        let concert = Self.fixture("concert.ics")
        #expect(try account.run(["import", concert], environment: environment).status == 0)
        let writes = Self.writes(account.standIn)

        let dry = try account.run(
            ["import", "--dry-run", "--tz", "Europe/Berlin", concert, Self.fixture("cinema-ticket.ics")],
            environment: environment)
        #expect(dry.status == 0, "stderr: \(dry.err)")
        #expect(dry.errLines.contains { $0.hasSuffix(": would skip (already imported)") }, "stderr: \(dry.err)")
        #expect(dry.errLines.contains { $0.hasSuffix(": would create") }, "stderr: \(dry.err)")
        #expect(dry.err.contains("1 would create, 0 would update, 1 would skip, 0 would cancel, 0 failed"))
        #expect(!dry.err.contains("planned"), "stderr: \(dry.err)")

        let report = try account.run(
            ["import", "--dry-run", "--json", "--on-duplicate", "update", Self.fixture("concert-moved.ics")],
            environment: environment)
        #expect(report.status == 0, "stderr: \(report.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: report.stdout) as? [String: Any])
        #expect(object["dryRun"] as? Bool == true)
        #expect(try Self.reportEvents(report).map { $0["action"] as? String } == ["updated"])
        #expect(report.errLines.contains { $0.hasSuffix(": would update") }, "stderr: \(report.err)")
        #expect(Self.writes(account.standIn) == writes)
        #expect(Self.startUTC(try #require(account.standIn.events().first)) == "2027-02-11T19:00:00")
    }

    @Test func calendarChoosesTheCalendarAndDuplicatesAreLookedUpThere() throws {
        let (account, environment) = try Self.account()
        let travel = account.standIn.addCalendar(name: "Travel")
        let ticket = Self.fixture("train-ticket.ics")
        let first = try account.run(["import", "--calendar", "travel", ticket], environment: environment)
        #expect(first.status == 0, "stderr: \(first.err)")
        let creates = account.standIn.operations.filter { $0.method == "POST" }
        #expect(creates.count == 1)
        #expect(creates.first?.path.contains("/calendars/\(travel)/events") == true)
        // The default calendar does not have it yet: imported there as another event.
        let elsewhere = try account.run(["import", ticket], environment: environment)
        #expect(elsewhere.errLines.contains { $0.hasSuffix(": created") }, "stderr: \(elsewhere.err)")
        let again = try account.run(["import", "--calendar", travel, ticket], environment: environment)
        #expect(again.errLines.contains { $0.hasSuffix(": skipped (already imported)") }, "stderr: \(again.err)")
        // The default calendar named by --calendar is the default calendar.
        let named = try #require(account.standIn.defaultCalendarID())
        let byName = try account.run(["import", "--calendar", named, ticket], environment: environment)
        #expect(byName.errLines.contains { $0.hasSuffix(": skipped (already imported)") }, "stderr: \(byName.err)")
        #expect(account.standIn.eventCount == 2)
    }

    // MARK: Series and cancellation

    @Test func aSeriesEndsWithItsExdateDeletedAndItsOverrideApplied() throws {
        let (account, environment) = try Self.account()
        account.standIn.latency = .milliseconds(5)
        let result = try account.run(
            ["import", Self.fixture("meetup-series.ics"), "--json"], environment: environment)
        #expect(result.status == 0, "stderr: \(result.err)")
        let seriesID = try #require(try Self.reportEvents(result).first?["eventId"] as? String)
        let occurrences = account.standIn.events().filter { ($0["seriesMasterId"] as? String) == seriesID }
        #expect(
            occurrences.map(Self.startUTC) == [
                "2027-01-05T18:00:00", "2027-01-12T18:00:00", "2027-01-27T18:30:00", "2027-02-02T18:00:00",
                "2027-02-09T18:00:00",
            ])
        let moved = try #require(occurrences.first { Self.startUTC($0) == "2027-01-27T18:30:00" })
        #expect(moved["subject"] as? String == "Swift Amsterdam weekly meetup (moved to Wednesday)")
        #expect(account.standIn.sentCancellations.isEmpty)
    }

    @Test func methodCancelDeletesTheImportedSeriesWithoutMailing() throws {
        let (account, environment) = try Self.account()
        let nothing = try account.run(["import", Self.fixture("meetup-cancel.ics")], environment: environment)
        #expect(nothing.status == 0, "stderr: \(nothing.err)")
        #expect(nothing.err.contains("skipped (nothing to cancel: not in the calendar)"))
        #expect(account.standIn.eventCount == 0)

        let imported = try account.run(["import", Self.fixture("meetup-series.ics")], environment: environment)
        #expect(imported.status == 0, "stderr: \(imported.err)")
        #expect(account.standIn.eventCount == 6)
        let cancelled = try account.run(["import", Self.fixture("meetup-cancel.ics")], environment: environment)
        #expect(cancelled.status == 0, "stderr: \(cancelled.err)")
        #expect(cancelled.errLines.contains { $0.hasSuffix(": cancelled") }, "stderr: \(cancelled.err)")
        #expect(account.standIn.eventCount == 0)
        #expect(account.standIn.sentCancellations.isEmpty)
    }

    // MARK: Meetings

    @Test func asMeetingWithoutYesListsTheInviteesAndSendsNothing() throws {
        let (account, environment) = try Self.account()
        let result = try account.run(
            ["import", "--as-meeting", Self.fixture("invitation-request.ics")], environment: environment)
        #expect(result.status == 64)
        #expect(result.err.contains("lee@contoso.example"))
        #expect(result.err.contains("--yes"))
        #expect(account.standIn.requests.isEmpty)
        #expect(account.standIn.sentInvitations.isEmpty)

        let confirmed = try account.run(
            ["import", "--as-meeting", "--yes", Self.fixture("invitation-request.ics")], environment: environment)
        #expect(confirmed.status == 0, "stderr: \(confirmed.err)")
        #expect(
            Set(account.standIn.sentInvitations)
                == ["alex@contoso.example", "lee@contoso.example", "room-412@contoso.example"])
    }

    @Test func anInvitationWithoutAsMeetingIsImportedWithoutInvitingAnybody() throws {
        let (account, environment) = try Self.account()
        let result = try account.run(["import", Self.fixture("invitation-request.ics")], environment: environment)
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(account.standIn.sentInvitations.isEmpty)
        let event = try #require(account.standIn.events().first)
        let body = (event["body"] as? [String: Any])?["content"] as? String ?? ""
        #expect(body.contains("Lee Colleague"))
    }

    // MARK: Duplicates

    @Test func onDuplicateUpdateChangesTheEventOnlyForANewerSequence() throws {
        let (account, environment) = try Self.account()
        let first = try account.run(["import", Self.fixture("concert.ics")], environment: environment)
        #expect(first.status == 0, "stderr: \(first.err)")
        let skipped = try account.run(["import", Self.fixture("concert-moved.ics")], environment: environment)
        #expect(
            skipped.errLines.contains {
                $0.hasSuffix(": skipped (a newer version than the imported one; --on-duplicate update applies it)")
            }, "\(skipped.err)")

        let updated = try account.run(
            ["import", "--on-duplicate", "update", Self.fixture("concert-moved.ics")], environment: environment)
        #expect(updated.status == 0, "stderr: \(updated.err)")
        #expect(updated.errLines.contains { $0.hasSuffix(": updated") }, "stderr: \(updated.err)")
        let event = try #require(account.standIn.events().first)
        #expect(Self.startUTC(event) == "2027-02-12T18:30:00")

        let writes = Self.writes(account.standIn)
        let older = try account.run(
            ["import", "--on-duplicate=update", Self.fixture("concert.ics")], environment: environment)
        #expect(older.status == 0)
        #expect(older.err.contains("skipped (already imported; the file is not newer"), "stderr: \(older.err)")
        #expect(Self.writes(account.standIn) == writes)
        #expect(account.standIn.eventCount == 1)
        #expect(Self.startUTC(try #require(account.standIn.events().first)) == "2027-02-12T18:30:00")
    }

    @Test func aTicketDeletedSinceIsCreatedAgainFromARedownloadedFile() throws {
        let (account, environment) = try Self.account()
        let ticket = Self.fixture("train-ticket.ics")
        let text = try String(contentsOfFile: ticket, encoding: .utf8)
        #expect(text.contains("METHOD:PUBLISH"))
        func write(_ name: String, _ content: String) throws -> String {
            let url = account.folder.appendingPathComponent(name)
            try Data(content.utf8).write(to: url)
            return url.path
        }
        #expect(try account.run(["import", ticket], environment: environment).status == 0)
        // The event goes away (here by a cancellation of the ticket, as if the user deleted it) ...
        let cancel = try write("cancel.ics", text.replacingOccurrences(of: "METHOD:PUBLISH", with: "METHOD:CANCEL"))
        let cancelled = try account.run(["import", cancel], environment: environment)
        #expect(cancelled.errLines.contains { $0.hasSuffix(": cancelled") }, "stderr: \(cancelled.err)")
        #expect(account.standIn.eventCount == 0)

        // ... and the ticket, downloaded again (a later DTSTAMP), is imported again.
        let again = try write(
            "again.ics",
            text.replacingOccurrences(
                of: #"DTSTAMP:\d{8}T\d{6}Z"#, with: "DTSTAMP:20261230T120000Z", options: .regularExpression))
        let imported = try account.run(["import", again], environment: environment)
        #expect(imported.status == 0, "stderr: \(imported.err)")
        #expect(imported.errLines.contains { $0.hasSuffix(": created") }, "stderr: \(imported.err)")
        #expect(account.standIn.eventCount == 1)
        // Graph refused the first transactionId for the changed event; the versioned one created it.
        let creates = account.standIn.operations.filter { $0.method == "POST" && $0.path.hasSuffix("/events") }
        #expect(creates.map(\.status) == [201, 400, 201])
    }

    // MARK: Interrupted runs

    @Test func aRunKilledMidwayAndRunAgainCreatesEveryEventOnce() throws {
        let (account, environment) = try Self.account()
        let file = try Self.bulkFile(120, in: account.folder)
        account.standIn.latency = .milliseconds(15)
        let child = try ChildProcess(
            try graphICSPath(), ["import", file], environment: graphICSEnvironment(environment), stdout: .null,
            stderr: .null)
        // Six batches of lookups, then six of creates, four at a time, each a chain of twenty at 15 ms: kill
        // while the first four batches of creates are under way, before the last two are sent.
        let deadline = Date().addingTimeInterval(20)
        while !account.standIn.operations.contains(where: { $0.method == "POST" }), Date() < deadline {
            usleep(2_000)
        }
        usleep(60_000)
        child.signal(SIGKILL)
        #expect(try child.wait(timeout: defaultTimeout).signal == SIGKILL)
        usleep(400_000)  // let the stand-in finish the chains it had started
        let afterKill = account.standIn.eventCount
        #expect(afterKill > 0 && afterKill < 120, "\(afterKill) events after the kill")

        account.standIn.latency = .milliseconds(2)
        account.standIn.injectFault(.closeConnection, forPathContaining: "$batch", times: 2)
        let again = try account.run(["import", file, "--json"], environment: environment)
        #expect(again.status == 0, "stderr: \(again.err)")
        let actions = try Self.reportEvents(again).compactMap { $0["action"] as? String }
        #expect(actions.count == 120)
        #expect(actions.allSatisfy { $0 == "created" || $0 == "skipped" })
        #expect(account.standIn.eventCount == 120)
        let uids = account.standIn.events().compactMap { event -> String? in
            let properties = event["singleValueExtendedProperties"] as? [[String: Any]] ?? []
            return properties.first { ($0["id"] as? String)?.hasSuffix("graph-ics.source-uid") == true }?["value"]
                as? String
        }
        #expect(Set(uids).count == 120)
        #expect(account.standIn.maxInFlightPerMailbox <= 4)
    }

    @Test func twoHundredNewEventsTakeTwentyRequests() throws {
        let (account, environment) = try Self.account()
        let file = try Self.bulkFile(200, in: account.folder)
        let result = try account.run(["import", "--tz", "Europe/Berlin", file], environment: environment)
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(account.standIn.eventCount == 200)
        // ⌈200/20⌉ batches of lookups and as many of creates, nothing else.
        #expect(account.standIn.requests.count == 20)
        #expect(account.standIn.requests.allSatisfy { $0.path == "/v1.0/$batch" })
    }

    // MARK: Failures

    @Test func aBadEventFailsAloneAndTheRunExitsOne() throws {
        let (account, environment) = try Self.account()
        let text = try String(contentsOfFile: Self.fixture("concert.ics"), encoding: .utf8)
            .replacing(
                "END:VCALENDAR",
                with: "BEGIN:VEVENT\r\nUID:broken@tests.example\r\nDTSTAMP:20261201T100000Z\r\n"
                    + "SUMMARY:No start\r\nEND:VEVENT\r\nEND:VCALENDAR")
        let path = account.folder.appendingPathComponent("partly-bad.ics")
        try Data(text.utf8).write(to: path)
        let result = try account.run(["import", path.path, "--json"], environment: environment)
        #expect(result.status == 1, "stderr: \(result.err)")
        #expect(result.err.contains("broken@tests.example"))
        let events = try Self.reportEvents(result)
        #expect(Set(events.compactMap { $0["action"] as? String }) == ["created", "failed"])
        #expect(account.standIn.eventCount == 1)
    }

    @Test func inputWithoutEventsExits65AndAMissingFile66() throws {
        let (account, environment) = try Self.account()
        let path = account.folder.appendingPathComponent("empty.ics")
        try Data("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n".utf8).write(to: path)
        let empty = try account.run(["import", path.path], environment: environment)
        #expect(empty.status == 65, "stderr: \(empty.err)")
        let missing = try account.run(["import", "no-such-ticket.ics"], environment: environment)
        #expect(missing.status == 66, "stderr: \(missing.err)")
        #expect(Self.writes(account.standIn) == 0)
    }

    @Test func aRefusedTokenExits77AndCreatesNothing() throws {
        let (account, environment) = try Self.account()
        account.standIn.revokeAllTokens()
        let result = try account.run(
            ["import", "--tz", "Europe/Berlin", Self.fixture("concert.ics")], environment: environment)
        #expect(result.status == 77, "stderr: \(result.err)")
        #expect(result.err.contains("failed: not imported"))
        #expect(account.standIn.eventCount == 0)
    }

    @Test func usageErrorsExit64() throws {
        let bad = try graphICS(["import", "--on-duplicate", "replace", Self.fixture("concert.ics")])
        #expect(bad.status == 64)
        #expect(bad.err.contains("--on-duplicate must be skip, update or new"))
        let help = try graphICS(["import", "--help"])
        #expect(help.status == 0)
        #expect(help.out.hasPrefix("Usage: graph-ics import [FILE|-]..."))
    }

    @Test func theReportShowsTimesInTheUsersZoneAndNamesIt() throws {
        let (account, environment) = try Self.account()
        // A flight given in UTC and an invitation in Helsinki: both shown in Berlin, the mailbox's zone.
        let text =
            [
                "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//graph-ics tests//EN", "METHOD:PUBLISH",
                "BEGIN:VEVENT", "UID:flight@tests.example", "DTSTAMP:20261201T100000Z", "DTSTART:20270115T070100Z",
                "DTEND:20270115T090000Z", "SUMMARY:Flight", "END:VEVENT",
                "BEGIN:VEVENT", "UID:helsinki@tests.example", "DTSTAMP:20261201T100000Z",
                "DTSTART;TZID=Europe/Helsinki:20270116T100000", "DTEND;TZID=Europe/Helsinki:20270116T110000",
                "SUMMARY:Helsinki", "END:VEVENT", "END:VCALENDAR",
            ].joined(separator: "\r\n") + "\r\n"
        let url = account.folder.appendingPathComponent("zones.ics")
        try Data(text.utf8).write(to: url)
        for arguments in [["import", url.path, "--dry-run"], ["import", url.path]] {
            let result = try account.run(arguments, environment: environment)
            #expect(result.status == 0, "\(arguments): \(result.err)")
            #expect(result.err.contains("note: times are in Europe/Berlin"), "\(arguments): \(result.err)")
            #expect(result.err.contains("\"Flight\" 2027-01-15 08:01: "), "\(arguments): \(result.err)")
            #expect(result.err.contains("\"Helsinki\" 2027-01-16 09:00: "), "\(arguments): \(result.err)")
        }
    }
}
