import Foundation
import GraphStandIn
import ICalBridge
import TestSupport
import Testing

/// `graph-ics export` end to end: the built binary against the Graph stand-in, with latency and throttling.
@Suite(.tags(.zoneRules)) struct ExportCommandTests {
    static let berlinWindows = "W. Europe Standard Time"
    static let berlin = TimeZone(identifier: "Europe/Berlin") ?? .current
    /// Monday 30 November 2026, 00:00 in Berlin (2026-11-29T23:00Z): the start of ISO week 2026-W49.
    static let week49 = Date(timeIntervalSince1970: 1_795_993_200)

    /// A stand-in whose mailbox lives in Berlin, slowed down and throttled the way the issue asks.
    static func account() throws -> StandInAccount {
        let account = try StandInAccount()
        account.standIn.addUser(
            displayName: "Ada Lovelace", mail: "ada@contoso.example", mailboxTimeZone: berlinWindows)
        return account
    }

    static func slowAndThrottled(_ standIn: GraphStandIn) {
        standIn.latency = .milliseconds(5)
        standIn.throttleEvery = 3
        standIn.retryAfter = .milliseconds(50)
    }

    /// Graph's form of a wall-clock time in Berlin.
    static func berlinLocal(_ date: Date) -> String {
        let compact = ICalTime.local(date, in: berlin)
        let digits = Array(compact)
        return String(digits[0..<4]) + "-" + String(digits[4..<6]) + "-" + String(digits[6..<8]) + "T"
            + String(digits[9..<11]) + ":" + String(digits[11..<13]) + ":" + String(digits[13..<15])
    }

    /// Seeds an event at `start` for `minutes`, given in Berlin wall-clock time as Outlook stores it.
    @discardableResult
    static func seed(_ standIn: GraphStandIn, _ subject: String, at start: Date, minutes: Int = 30) throws -> String {
        try standIn.addEvent([
            "subject": subject,
            "start": ["dateTime": berlinLocal(start), "timeZone": berlinWindows],
            "end": [
                "dateTime": berlinLocal(start.addingTimeInterval(Double(minutes) * 60)), "timeZone": berlinWindows,
            ],
        ])
    }

    /// The files in the account's folder whose name contains `fragment` (temporary outputs).
    static func leftovers(in folder: URL, containing fragment: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(fragment) }
    }

    // MARK: A week, exactly

    @Test func aWeekOfTwelveHundredEventsIsExportedExactlyAcrossTwoPagesInTheMailboxZone() throws {
        let account = try Self.account()
        let standIn = account.standIn
        var inWeek: Set<String> = []
        for index in 0..<1200 {
            let start = Self.week49.addingTimeInterval(3600 + Double(index) * 480)
            inWeek.insert(try Self.seed(standIn, "Event \(index + 1)", at: start))
        }
        // Monday 00:30 in Berlin is still Sunday in UTC: it belongs to the week.
        inWeek.insert(try Self.seed(standIn, "Monday 00:30", at: Self.week49.addingTimeInterval(1800)))
        // Sunday 23:30 before the week, and Monday 00:30 after it (Sunday in UTC): not in the week.
        try Self.seed(standIn, "Sunday before", at: Self.week49.addingTimeInterval(-1800))
        try Self.seed(standIn, "Monday after", at: Self.week49.addingTimeInterval(7 * 86_400 + 1800))
        Self.slowAndThrottled(standIn)

        let result = try account.run(
            ["export", "--week", "2026-W49", "-o", "week.ics"], environment: account.tokenEnvironment())
        #expect(result.status == 0, "\(result.err)")
        #expect(result.stdout.isEmpty)
        // stderr is not a terminal here: no progress, and nothing else to say.
        #expect(result.err.isEmpty, "\(result.err)")

        let data = try Data(contentsOf: account.folder.appendingPathComponent("week.ics"))
        let text = String(decoding: data, as: UTF8.self)
        let events = ICalendarText.events(text)
        #expect(events.count == 1201)
        var seededStarts: [String: (start: Date, end: Date)] = [:]
        for event in standIn.events() {
            guard let id = event["id"] as? String, let start = (event["start"] as? [String: Any])?["dateTime"],
                let end = (event["end"] as? [String: Any])?["dateTime"], let startText = start as? String,
                let endText = end as? String
            else { continue }
            seededStarts[id] = (try ICalTime.graphUTC(startText), try ICalTime.graphUTC(endText))
        }
        var exported: Set<String> = []
        for event in events {
            let id = try #require(event.graphID)
            exported.insert(id)
            let seeded = try #require(seededStarts[id])
            #expect(
                event.line("DTSTART") == "DTSTART;TZID=Europe/Berlin:" + ICalTime.local(seeded.start, in: Self.berlin))
            #expect(event.line("DTEND") == "DTEND;TZID=Europe/Berlin:" + ICalTime.local(seeded.end, in: Self.berlin))
        }
        #expect(exported == inWeek)
        #expect(text.contains("BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\n"))
        // Graph's $top of 1000: two pages, each throttled and retried no sooner than Retry-After.
        let pages = standIn.requests.filter { $0.path.lowercased().hasSuffix("/calendarview") }
        #expect(Set(pages.map(\.target)).count == 2)
        #expect(pages.first?.query["startDateTime"] == "2026-11-29T23:00:00Z")
        #expect(pages.first?.query["endDateTime"] == "2026-12-06T23:00:00Z")
        #expect(standIn.throttledCount > 0)
        #expect(standIn.retryAfterViolations == 0)

        // graph-ics' own iCalendar reader (libical underneath) reads every event back.
        let plan = try ICSToGraph.plan(data, options: ImportOptions(file: "week.ics"))
        #expect(plan.events.count == 1201)
        #expect(plan.diagnostics.filter { $0.severity == .error }.isEmpty, "\(plan.diagnostics)")
        #expect(try Self.leftovers(in: account.folder, containing: ".graph-ics-").isEmpty)
    }

    @Test func theFileNamesTheCalendarAndTwoExportsOfUnchangedEventsAreTheSameBytes() throws {
        let account = try Self.account()
        try Self.seed(account.standIn, "Review", at: Self.week49.addingTimeInterval(36_000))
        let team = account.standIn.addCalendar(name: "Team; Berlin")
        try account.standIn.addEvent(
            [
                "subject": "Planning",
                "start": ["dateTime": "2026-12-01T09:00:00", "timeZone": "UTC"],
                "end": ["dateTime": "2026-12-01T10:00:00", "timeZone": "UTC"],
            ], calendar: team)
        func export(_ arguments: [String]) throws -> Data {
            let result = try account.run(
                ["export", "--week", "2026-W49", "-o", "out.ics"] + arguments, environment: account.tokenEnvironment())
            #expect(result.status == 0, "\(result.err)")
            return try Data(contentsOf: account.folder.appendingPathComponent("out.ics"))
        }
        let first = try export([])
        let lines = ICalendarText.unfoldedLines(String(decoding: first, as: UTF8.self))
        #expect(lines.contains("NAME:Calendar") && lines.contains("X-WR-CALNAME:Calendar"))
        Thread.sleep(forTimeInterval: 1.1)
        #expect(try export([]) == first)
        let other = String(decoding: try export(["--calendar", "Team; Berlin"]), as: UTF8.self)
        #expect(ICalendarText.unfoldedLines(other).contains(#"X-WR-CALNAME:Team\; Berlin"#))
        #expect(ICalendarText.events(other).count == 1)
    }

    // MARK: Series

    /// The weekday standup at 09:00 Berlin since 2 November: in week 49 Monday and Tuesday as usual,
    /// Wednesday deleted, Thursday moved to 15:00, Friday as usual.
    static func seedStandup(_ standIn: GraphStandIn) throws {
        let uid = "040000008200E00074C5B7101A82E00800000000STANDUP"
        func when(_ utc: String) -> [String: Any] { ["dateTime": utc, "timeZone": "UTC"] }
        try standIn.addEvent([
            "id": "standup", "iCalUId": uid, "type": "seriesMaster", "subject": "Standup",
            "start": when("2026-11-02T08:00:00"), "end": when("2026-11-02T08:15:00"),
            "originalStartTimeZone": berlinWindows, "originalEndTimeZone": berlinWindows,
            "recurrence": [
                "pattern": [
                    "type": "weekly", "interval": 1, "firstDayOfWeek": "monday",
                    "daysOfWeek": ["monday", "tuesday", "wednesday", "thursday", "friday"],
                ],
                "range": [
                    "type": "numbered", "numberOfOccurrences": 40, "startDate": "2026-11-02",
                    "recurrenceTimeZone": berlinWindows,
                ],
            ] as [String: Any],
        ])
        for (day, type, start) in [
            ("2026-11-30", "occurrence", "2026-11-30T08:00:00"), ("2026-12-01", "occurrence", "2026-12-01T08:00:00"),
            ("2026-12-03", "exception", "2026-12-03T14:00:00"), ("2026-12-04", "occurrence", "2026-12-04T08:00:00"),
        ] {
            let end = start.replacing(":00:00", with: ":15:00")
            try standIn.addEvent([
                "id": "\(type)-\(day)", "iCalUId": uid, "type": type, "seriesMasterId": "standup",
                "subject": type == "exception" ? "Standup (afternoon)" : "Standup",
                "originalStart": "\(day)T08:00:00Z", "start": when(start), "end": when(end),
                "originalStartTimeZone": berlinWindows, "originalEndTimeZone": berlinWindows,
            ])
        }
    }

    @Test func seriesModeWritesOneSeriesWithRRuleExdateAndOverrideToStdout() throws {
        let account = try Self.account()
        try Self.seedStandup(account.standIn)
        try Self.seed(account.standIn, "Lunch", at: Self.week49.addingTimeInterval(86_400 + 12 * 3600), minutes: 60)
        Self.slowAndThrottled(account.standIn)

        let result = try account.run(
            ["export", "--week", "2026-W49", "--recurrence", "series", "-o", "-"],
            environment: account.tokenEnvironment())
        #expect(result.status == 0, "\(result.err)")
        #expect(result.err.isEmpty, "\(result.err)")
        #expect(result.out.hasPrefix("BEGIN:VCALENDAR\r\n"))
        #expect(result.out.hasSuffix("END:VCALENDAR\r\n"))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: account.folder.path).filter { $0.hasSuffix(".ics") }
                .isEmpty)

        let events = ICalendarText.events(result.out)
        #expect(events.count == 3)
        let series = events.filter { $0.line("RRULE") != nil }
        #expect(series.count == 1)
        let master = try #require(series.first)
        #expect(master.value("UID") == "040000008200E00074C5B7101A82E00800000000STANDUP")
        #expect(master.line("DTSTART") == "DTSTART;TZID=Europe/Berlin:20261102T090000")
        #expect(master.value("RRULE") == "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;WKST=MO;COUNT=40")
        #expect(master.lines.filter { $0.hasPrefix("EXDATE") } == ["EXDATE;TZID=Europe/Berlin:20261202T090000"])
        let override = try #require(events.first { $0.line("RECURRENCE-ID") != nil })
        #expect(override.value("UID") == master.value("UID"))
        #expect(override.line("RECURRENCE-ID") == "RECURRENCE-ID;TZID=Europe/Berlin:20261203T090000")
        #expect(override.line("DTSTART") == "DTSTART;TZID=Europe/Berlin:20261203T150000")
        #expect(override.value("SUMMARY") == "Standup (afternoon)")
        #expect(events.contains { $0.value("SUMMARY") == "Lunch" && $0.line("RECURRENCE-ID") == nil })

        // Read back by graph-ics' import conversion: one series, the deleted Wednesday to cancel, the
        // moved Thursday to change.
        let plan = try ICSToGraph.plan(Data(result.out.utf8), options: ImportOptions(file: "-"))
        let planned = try #require(plan.events.first { $0.payload.recurrence != nil })
        #expect(planned.followUps.contains(.cancelOccurrence(originalStart: "2026-12-02T08:00:00Z")))
        #expect(planned.followUps.count == 2)
        // The master was read by its id; the instances only once, around the missing Wednesday.
        let paths = account.standIn.requests.map { $0.path.lowercased() }
        #expect(paths.contains { $0.hasSuffix("/events/standup") })
        #expect(
            Set(account.standIn.requests.filter { $0.path.lowercased().hasSuffix("/instances") }.map(\.target)).count
                == 1)
    }

    @Test func instancesModeGivesEveryOccurrenceItsOwnUID() throws {
        let account = try Self.account()
        try Self.seedStandup(account.standIn)
        let result = try account.run(["export", "--week", "2026-W49"], environment: account.tokenEnvironment())
        #expect(result.status == 0, "\(result.err)")
        let uids = ICalendarText.events(result.out).compactMap { $0.value("UID") }
        let base = "040000008200E00074C5B7101A82E00800000000STANDUP-"
        #expect(
            uids == [
                base + "20261130T080000Z", base + "20261201T080000Z", base + "20261203T080000Z",
                base + "20261204T080000Z",
            ])
    }

    // MARK: Progress

    @Test func progressIsShownWhenStderrIsATerminal() throws {
        let account = try Self.account()
        for index in 0..<5 {
            try Self.seed(account.standIn, "Event \(index)", at: Self.week49.addingTimeInterval(Double(index) * 3600))
        }
        // A pseudo-terminal as the child's stderr (not its controlling terminal), everything it shows kept.
        let child = try ChildProcess(
            try graphICSPath(), ["export", "--week", "2026-W49", "-o", "week.ics"],
            environment: account.tokenEnvironment(), directory: account.folder.path, stdout: .null, stderr: .terminal)
        let exit = try child.wait(timeout: defaultTimeout)
        let text = String(decoding: exit.screen, as: UTF8.self)
        #expect(exit.status == 0, "\(text)")
        #expect(text.contains("exporting: 1 page, "))
        #expect(text.contains("1 page, 5 events"))
        // The progress line is cleared at the end, so the shell prompt starts on a clean line.
        #expect(text.hasSuffix("\r\u{1B}[K"))
    }

    // MARK: Failures leave no output

    @Test(arguments: [false, true])
    func aRevokedSignInExits77AndLeavesTheOldFileUntouched(savedSignIn: Bool) throws {
        let account = try Self.account()
        for index in 0..<30 {
            try Self.seed(account.standIn, "Event \(index)", at: Self.week49.addingTimeInterval(Double(index) * 3600))
        }
        let target = account.folder.appendingPathComponent("week.ics")
        try Data("previous export\n".utf8).write(to: target)
        let environment = savedSignIn ? try account.savedSignInEnvironment() : account.tokenEnvironment()
        account.standIn.revokeAllTokens()

        let result = try account.run(["export", "--week", "2026-W49", "-o", "week.ics"], environment: environment)
        #expect(result.status == 77, "\(result.err)")
        #expect(result.stdout.isEmpty)
        #expect(result.errLines.count == 1)
        #expect(result.err.hasPrefix("error: "))
        #expect(try String(contentsOf: target, encoding: .utf8) == "previous export\n")
        #expect(try Self.leftovers(in: account.folder, containing: ".graph-ics-").isEmpty)
    }

    @Test func graphStayingUnavailableExits69WithNoFile() throws {
        let account = try Self.account()
        try Self.seed(account.standIn, "Event", at: Self.week49.addingTimeInterval(3600))
        let unavailable = LoopbackHTTPServer.Response(
            status: 503, headers: [("Retry-After", "0.05"), ("Content-Type", "application/json")],
            body: Data(#"{"error":{"code":"ServiceUnavailable","message":"Try later."}}"#.utf8))
        account.standIn.injectFault(.respond(unavailable), forPathContaining: "calendarView", times: 50)

        let result = try account.run(
            ["export", "--week", "2026-W49", "-o", "week.ics"], environment: account.tokenEnvironment())
        #expect(result.status == 69, "\(result.err)")
        #expect(result.err.contains("503"))
        #expect(!FileManager.default.fileExists(atPath: account.folder.appendingPathComponent("week.ics").path))
        #expect(try Self.leftovers(in: account.folder, containing: ".graph-ics-").isEmpty)
    }

    @Test func anOutputFolderThatDoesNotExistExits73BeforeAnythingIsFetched() throws {
        let account = try Self.account()
        let result = try account.run(
            ["export", "-o", "missing/week.ics"], environment: account.tokenEnvironment())
        #expect(result.status == 73, "\(result.err)")
        #expect(account.standIn.requests.isEmpty)
    }

    // MARK: Usage

    @Test(
        arguments: [
            ["export", "--week", "2026-W60"], ["export", "--recurrence", "weekly"], ["export", "--from", "2026-12-01"],
            ["export", "--tz", "Mars/Olympus"], ["export", "week.ics"], ["export", "-o", ""],
        ])
    func usageErrorsExit64WithoutTouchingGraph(arguments: [String]) throws {
        let account = try Self.account()
        let result = try account.run(arguments, environment: account.tokenEnvironment())
        #expect(result.status == 64, "\(result.err)")
        #expect(result.err.contains("Usage: graph-ics export"))
        #expect(account.standIn.requests.isEmpty)
    }

    @Test func helpDescribesTheRecurrenceStylesAndPiping() throws {
        let result = try graphICS(["export", "--help"])
        #expect(result.status == 0)
        #expect(result.out.hasPrefix("Usage: graph-ics export"))
        #expect(result.out.contains("--recurrence HOW"))
        #expect(result.out.contains("-o - |"))
    }

    @Test("export --month and --from --to +1m take a whole month, in the mailbox zone")
    func monthRange() throws {
        let account = try Self.account()
        let standIn = account.standIn
        // 1 December 2026 00:00 in Berlin, the day after week 49's Monday.
        let december = Self.week49.addingTimeInterval(86_400)
        try Self.seed(standIn, "First of December", at: december.addingTimeInterval(1800))
        try Self.seed(standIn, "New Year's Eve", at: december.addingTimeInterval(30 * 86_400 + 80_000))
        try Self.seed(standIn, "New Year", at: december.addingTimeInterval(31 * 86_400 + 1800))
        try Self.seed(standIn, "Last of November", at: december.addingTimeInterval(-1800))
        for range in [["--month", "2026-12"], ["--from", "2026-12-01", "--to", "+1m"]] {
            let result = try account.run(["export"] + range + ["-o", "-"], environment: account.tokenEnvironment())
            #expect(result.status == 0, "\(range): \(result.err)")
            let summaries = ICalendarText.events(result.out).compactMap { $0.line("SUMMARY")?.dropFirst(8) }
            #expect(summaries.sorted() == ["First of December", "New Year's Eve"], "\(range): \(result.out)")
        }
        let both = try account.run(
            ["export", "--month", "next", "--week", "next"], environment: account.tokenEnvironment())
        #expect(both.status == 64, "stderr: \(both.err)")
        let bad = try account.run(["export", "--month", "2026-13"], environment: account.tokenEnvironment())
        #expect(bad.status == 64 && bad.err.contains("--month '2026-13'"), "stderr: \(bad.err)")
    }
}
