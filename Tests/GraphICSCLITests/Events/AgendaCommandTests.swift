import Foundation
import GraphStandIn
import Testing

/// `graph-ics agenda` against the Graph stand-in: day headings, times in the mailbox zone, all-day events
/// first, events crossing midnight on each day, cancelled events marked, and the JSON form.
@Suite(.tags(.zoneRules)) struct AgendaCommandTests {
    /// A mailbox in "W. Europe Standard Time" with a week (2026-W49, Monday 30 November) of events seeded
    /// in several zones, and one event the week after.
    static func seededAccount() throws -> StandInAccount {
        let account = try StandInAccount()
        let standIn = account.standIn
        standIn.addUser(
            displayName: "Megan Bowen", mail: "megan@contoso.example", mailboxTimeZone: "W. Europe Standard Time")
        func utc(_ text: String) -> [String: Any] { ["dateTime": text + ".0000000", "timeZone": "UTC"] }
        let events: [[String: Any]] = [
            // Sunday 23:30 to Monday 00:30 in Berlin: only its Monday part is in the week.
            ["subject": "Late deploy", "start": utc("2026-11-29T22:30:00"), "end": utc("2026-11-29T23:30:00")],
            [
                "subject": "Company holiday", "isAllDay": true,
                "start": ["dateTime": "2026-12-01T00:00:00.0000000", "timeZone": "W. Europe Standard Time"],
                "end": ["dateTime": "2026-12-02T00:00:00.0000000", "timeZone": "W. Europe Standard Time"],
            ],
            [
                "subject": "Standup", "start": utc("2026-12-01T08:00:00"), "end": utc("2026-12-01T08:15:00"),
                "organizer": ["emailAddress": ["name": "Ann Lee", "address": "ann@contoso.example"]],
                "location": ["displayName": "Room 4"],
            ],
            // 22:30 the evening before in Seattle is 07:30 in Berlin.
            [
                "subject": "Early call",
                "start": ["dateTime": "2026-11-30T22:30:00.0000000", "timeZone": "Pacific Standard Time"],
                "end": ["dateTime": "2026-11-30T23:00:00.0000000", "timeZone": "Pacific Standard Time"],
            ],
            [
                "subject": "Night train", "start": utc("2026-12-03T21:00:00"), "end": utc("2026-12-04T05:30:00"),
                "location": ["displayName": "Platform 4"],
            ],
            [
                "subject": "Retro", "isCancelled": true, "start": utc("2026-12-04T13:00:00"),
                "end": utc("2026-12-04T14:00:00"),
            ],
            [
                "subject": "Conference", "isAllDay": true,
                "start": ["dateTime": "2026-12-04T00:00:00.0000000", "timeZone": "W. Europe Standard Time"],
                "end": ["dateTime": "2026-12-06T00:00:00.0000000", "timeZone": "W. Europe Standard Time"],
            ],
            ["subject": "Next week", "start": utc("2026-12-08T09:00:00"), "end": utc("2026-12-08T10:00:00")],
        ]
        for event in events { try standIn.addEvent(event) }
        return account
    }

    /// `expected` with today's heading marked "(today)", as agenda marks it: the tests run on any day.
    static func markingToday(_ expected: String, zone: String = "Europe/Berlin") -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: zone)
        formatter.dateFormat = "EEEE d MMMM yyyy"
        let heading = formatter.string(from: Date())
        return expected.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0 == heading ? heading + " (today)" : String($0) }.joined(separator: "\n")
    }

    @Test("the week shows every day's heading, all-day events first, times in the mailbox zone")
    func weekInMailboxZone() throws {
        let account = try Self.seededAccount()
        let result = try account.run(["agenda", "--week", "2026-W49"], environment: account.tokenEnvironment())
        #expect(result.status == 0, "stderr: \(result.err)")
        let expected = """
            Monday 30 November 2026
              00:00–00:30  Late deploy (continued)
            Tuesday 1 December 2026
              all day      Company holiday
              07:30–08:00  Early call
              09:00–09:15  Standup (Ann Lee) @ Room 4
            Wednesday 2 December 2026
              (nothing)
            Thursday 3 December 2026
              22:00–24:00  Night train @ Platform 4 (continues)
            Friday 4 December 2026
              all day      Conference (day 1/2)
              00:00–06:30  Night train @ Platform 4 (continued)
              14:00–15:00  [cancelled] Retro
            Saturday 5 December 2026
              all day      Conference (day 2/2)
            Sunday 6 December 2026
              (nothing)

            """
        #expect(result.out == Self.markingToday(expected))
        #expect(result.stderr.isEmpty, "stderr: \(result.err)")
        #expect(!result.out.contains("\u{1B}"), "no colour when stdout is not a terminal")
    }

    @Test("--tz moves the times and the days into another zone, named on the first line")
    func otherZone() throws {
        let account = try Self.seededAccount()
        let result = try account.run(
            ["agenda", "--from", "2026-12-03", "--to", "2026-12-05", "--tz", "America/New_York"],
            environment: account.tokenEnvironment())
        #expect(result.status == 0, "stderr: \(result.err)")
        let expected = """
            Times in America/New_York
            Thursday 3 December 2026
              16:00–24:00  Night train @ Platform 4 (continues)
            Friday 4 December 2026
              all day      Conference (day 1/2)
              00:00–00:30  Night train @ Platform 4 (continued)
              08:00–09:00  [cancelled] Retro

            """
        #expect(result.out == Self.markingToday(expected, zone: "America/New_York"))
    }

    @Test("--json prints one object per event with ISO 8601 times in the display zone")
    func json() throws {
        let account = try Self.seededAccount()
        let result = try account.run(
            ["agenda", "--week", "2026-W49", "--json"], environment: account.tokenEnvironment())
        #expect(result.status == 0, "stderr: \(result.err)")
        let array = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]])
        #expect(
            array.map { $0["subject"] as? String } == [
                "Late deploy", "Company holiday", "Early call", "Standup", "Night train", "Conference", "Retro",
            ])
        for object in array {
            #expect(
                Set(object.keys) == [
                    "id", "subject", "start", "end", "isAllDay", "location", "organizer", "isCancelled", "showAs",
                    "responseStatus", "categories", "calendar", "joinUrl",
                ])
        }
        let standup = try #require(array.first { $0["subject"] as? String == "Standup" })
        #expect(standup["start"] as? String == "2026-12-01T09:00:00+01:00")
        #expect(standup["end"] as? String == "2026-12-01T09:15:00+01:00")
        #expect(standup["isAllDay"] as? Bool == false)
        #expect(standup["location"] as? String == "Room 4")
        #expect(standup["organizer"] as? String == "Ann Lee")
        #expect(standup["isCancelled"] as? Bool == false)
        let holiday = try #require(array.first { $0["subject"] as? String == "Company holiday" })
        #expect(holiday["start"] as? String == "2026-12-01T00:00:00+01:00")
        #expect(holiday["end"] as? String == "2026-12-02T00:00:00+01:00")
        #expect(holiday["isAllDay"] as? Bool == true)
        #expect(holiday["location"] is NSNull)
        let train = try #require(array.first { $0["subject"] as? String == "Night train" })
        #expect(train["start"] as? String == "2026-12-03T22:00:00+01:00")
        #expect(train["end"] as? String == "2026-12-04T06:30:00+01:00")
        let retro = try #require(array.first { $0["subject"] as? String == "Retro" })
        #expect(retro["isCancelled"] as? Bool == true)
        #expect(result.stderr.isEmpty, "stderr: \(result.err)")
    }

    @Test("--calendar NAME shows that calendar; an unknown name exits 66")
    func calendarChoice() throws {
        let account = try StandInAccount()
        let standIn = account.standIn
        standIn.addUser(displayName: "Megan Bowen", mail: "megan@contoso.example", mailboxTimeZone: "UTC")
        let team = standIn.addCalendar(name: "Team")
        try standIn.addEvent(
            [
                "subject": "Only in Team",
                "start": ["dateTime": "2026-12-01T10:00:00", "timeZone": "UTC"],
                "end": ["dateTime": "2026-12-01T11:00:00", "timeZone": "UTC"],
            ], calendar: team)
        let environment = account.tokenEnvironment()
        let dates = ["--from", "2026-12-01", "--to", "2026-12-02"]
        let own = try account.run(["agenda"] + dates, environment: environment)
        #expect(own.status == 0, "stderr: \(own.err)")
        #expect(own.out == Self.markingToday("Tuesday 1 December 2026\n  (nothing)\n", zone: "UTC"))
        let shared = try account.run(["agenda", "--calendar", "team"] + dates, environment: environment)
        #expect(shared.status == 0, "stderr: \(shared.err)")
        #expect(shared.out == Self.markingToday("Tuesday 1 December 2026\n  10:00–11:00  Only in Team\n", zone: "UTC"))
        let missing = try account.run(["agenda", "--calendar", "Nope"] + dates, environment: environment)
        #expect(missing.status == 66)
        #expect(missing.stdout.isEmpty)
        #expect(missing.errLines.count == 1 && missing.err.contains("no calendar named 'Nope'"), "\(missing.err)")
    }

    @Test("usage mistakes exit 64 before anything is sent")
    func usage() throws {
        let account = try StandInAccount()
        let environment = account.tokenEnvironment()
        for arguments in [
            ["agenda", "--week", "2026-W49", "--from", "2026-12-01", "--to", "2026-12-02"],
            ["agenda", "--from", "2026-12-01"], ["agenda", "--tz", "Mars/Olympus"], ["agenda", "extra"],
        ] {
            let result = try account.run(arguments, environment: environment)
            #expect(result.status == 64, "\(arguments): \(result.err)")
            #expect(result.stdout.isEmpty)
        }
        #expect(account.standIn.operations.isEmpty)
    }

    @Test("--format takes agenda.format's values: text wins over a config's tsv, json and tsv choose those forms")
    func formatTakesTheConfigValues() throws {
        let account = try Self.seededAccount()
        let environment = account.tokenEnvironment()
        try FileManager.default.createDirectory(at: account.configDirectory, withIntermediateDirectories: true)
        try Data("[agenda]\nformat = tsv\n".utf8).write(to: account.configDirectory.appendingPathComponent("config"))
        let week = ["agenda", "--week", "2026-W49"]
        let text = try account.run(week + ["--format", "text"], environment: environment)
        #expect(text.status == 0, "stderr: \(text.err)")
        #expect(text.out.hasPrefix("Monday 30 November 2026\n  00:00–00:30  Late deploy"), "stdout: \(text.out)")
        let json = try account.run(week + ["--format", "JSON"], environment: environment)
        #expect(json.status == 0, "stderr: \(json.err)")
        let array = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [[String: Any]])
        #expect(array.count == 7)
        let tsv = try account.run(["agenda", "--week", "2026-W49", "--format", "tsv"], environment: environment)
        #expect(tsv.out.hasPrefix("start_date\tstart_time\t"), "stdout: \(tsv.out)")
        let template = try account.run(week + ["--format", "{subject}"], environment: environment)
        #expect(template.out.hasPrefix("Late deploy\nCompany holiday\n"), "stdout: \(template.out)")
    }
}
