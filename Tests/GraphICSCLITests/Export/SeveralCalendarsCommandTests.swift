import Foundation
import GraphStandIn
import Testing

/// `--calendar` repeated and `--all-calendars` for export and agenda, and the config file's
/// `defaults.calendar` and `defaults.zone`, against the stand-in.
@Suite struct SeveralCalendarsCommandTests {
    static let dates = ["--from", "2026-12-01", "--to", "2026-12-02"]

    /// Megan's default calendar and "Team", each with an event of its own, and one meeting (the same
    /// iCalUId) in both.
    static func mailbox() throws -> StandInAccount {
        let account = try StandInAccount()
        let standIn = account.standIn
        standIn.addUser(displayName: "Megan Bowen", mail: "megan@contoso.example", mailboxTimeZone: "UTC")
        let team = standIn.addCalendar(name: "Team")
        standIn.addCalendar(name: "Birthdays")
        func event(_ subject: String, _ hour: Int, uid: String? = nil) -> [String: Any] {
            var json: [String: Any] = [
                "subject": subject,
                "start": ["dateTime": "2026-12-01T\(hour):00:00", "timeZone": "UTC"],
                "end": ["dateTime": "2026-12-01T\(hour):30:00", "timeZone": "UTC"],
            ]
            json["iCalUId"] = uid
            return json
        }
        try standIn.addEvent(event("Own work", 10))
        try standIn.addEvent(event("Team sync", 11), calendar: team)
        let shared = "040000008200E00074C5B7101A82E00800000000SHAREDMEETING"
        try standIn.addEvent(event("Planning", 14, uid: shared))
        try standIn.addEvent(event("Planning", 14, uid: shared), calendar: team)
        return account
    }

    @Test("export --calendar twice writes one file; each event names its calendar; a shared meeting comes once")
    func exportSeveral() throws {
        let account = try Self.mailbox()
        let result = try account.run(
            ["export", "--calendar", "Calendar", "--calendar", "team"] + Self.dates,
            environment: account.tokenEnvironment())
        #expect(result.status == 0, "stderr: \(result.err)")
        let events = ICalendarText.events(result.out)
        #expect(events.compactMap { $0.value("SUMMARY") } == ["Own work", "Team sync", "Planning"])
        #expect(events.map { $0.value("X-GRAPH-ICS-CALENDAR") } == ["Calendar", "Team", "Calendar"])
        #expect(result.out.components(separatedBy: "BEGIN:VCALENDAR").count == 2, "one calendar")
        #expect(!result.out.contains("X-WR-CALNAME"), "the file is no one calendar")
    }

    @Test("agenda --all-calendars --json gives each event its calendar; one calendar leaves the key out")
    func agendaAll() throws {
        let account = try Self.mailbox()
        let environment = account.tokenEnvironment()
        let result = try account.run(["agenda", "--all-calendars", "--json"] + Self.dates, environment: environment)
        #expect(result.status == 0, "stderr: \(result.err)")
        let array = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]])
        #expect(array.map { $0["subject"] as? String } == ["Own work", "Team sync", "Planning"])
        #expect(array.map { $0["calendar"] as? String } == ["Calendar", "Team", "Calendar"])

        let one = try account.run(["agenda", "--json"] + Self.dates, environment: environment)
        let single = try #require(try JSONSerialization.jsonObject(with: one.stdout) as? [[String: Any]])
        #expect(single.map { $0["subject"] as? String } == ["Own work", "Planning"])
        // One calendar: the key is there, null, as every absent value of agenda --json is.
        #expect(single.allSatisfy { $0["calendar"] is NSNull })

        let both = try account.run(["agenda", "--all-calendars", "--calendar", "Team"], environment: environment)
        #expect(both.status == 64)
        let series = try account.run(
            ["export", "--all-calendars", "--recurrence", "series"] + Self.dates, environment: environment)
        #expect(series.status == 64 && series.err.contains("--recurrence series exports one calendar"))
    }

    @Test("the config file's defaults.calendar and defaults.zone apply; --calendar and --tz win over them")
    func configDefaults() throws {
        let account = try Self.mailbox()
        let environment = account.tokenEnvironment()
        let set = try account.run(["config", "set", "defaults.calendar", "Team"], environment: environment)
        #expect(set.status == 0, "stderr: \(set.err)")
        _ = try account.run(["config", "set", "defaults.zone", "Asia/Tokyo"], environment: environment)
        let path = try account.run(["config", "path"], environment: environment)
        #expect(path.out == account.configDirectory.appendingPathComponent("config").path + "\n")
        let get = try account.run(["config", "get", "defaults.zone"], environment: environment)
        #expect(get.out == "Asia/Tokyo\n")

        let json = try account.run(["agenda", "--json"] + Self.dates, environment: environment)
        #expect(json.status == 0, "stderr: \(json.err)")
        let array = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [[String: Any]])
        #expect(array.map { $0["subject"] as? String } == ["Team sync", "Planning"])
        #expect(array.first?["start"] as? String == "2026-12-01T20:00:00+09:00", "shown in Tokyo")

        let flags = try account.run(
            ["agenda", "--json", "--calendar", "Calendar", "--tz", "UTC"] + Self.dates, environment: environment)
        let overridden = try #require(try JSONSerialization.jsonObject(with: flags.stdout) as? [[String: Any]])
        #expect(overridden.map { $0["subject"] as? String } == ["Own work", "Planning"])
        #expect(overridden.first?["start"] as? String == "2026-12-01T10:00:00+00:00")

        // agenda.format and display.time: the form and the clock when no option gives them.
        _ = try account.run(["config", "set", "agenda.format", "json"], environment: environment)
        let configured = try account.run(["agenda"] + Self.dates, environment: environment)
        #expect(configured.status == 0, "stderr: \(configured.err)")
        #expect(try JSONSerialization.jsonObject(with: configured.stdout) is [[String: Any]], "agenda.format = json")
        let asTSV = try account.run(["agenda", "--tsv"] + Self.dates, environment: environment)
        #expect(asTSV.out.hasPrefix("start_date\t"), "an option wins over the file")
        _ = try account.run(["config", "set", "agenda.format", "text"], environment: environment)
        _ = try account.run(["config", "set", "display.time", "12h"], environment: environment)
        let twelve = try account.run(["agenda"] + Self.dates, environment: environment)
        #expect(twelve.out.contains("8:00pm–"), "display.time = 12h: \(twelve.out)")

        try "[defaults]\ncalendar = Team\ncolour = red\n".write(
            to: account.configDirectory.appendingPathComponent("config"), atomically: true, encoding: .utf8)
        let asked = account.standIn.operations.count
        let broken = try account.run(["agenda"] + Self.dates, environment: environment)
        #expect(broken.status == 64)
        #expect(broken.errLines.count == 1, "stderr: \(broken.err)")
        #expect(broken.err.contains("config:3: unknown key 'defaults.colour'"), "stderr: \(broken.err)")
        #expect(account.standIn.operations.count == asked, "nothing is asked of Graph with a broken config file")
    }

    @Test("add and import put events into defaults.calendar when --calendar is not given")
    func configCalendarForWrites() throws {
        let account = try Self.mailbox()
        let environment = account.tokenEnvironment()
        _ = try account.run(["config", "set", "defaults.calendar", "Birthdays"], environment: environment)
        let add = try account.run(
            ["add", "--subject", "Cake", "--start", "2026-12-01T16:00", "--end", "2026-12-01T17:00", "--tz", "UTC"],
            environment: environment)
        #expect(add.status == 0, "stderr: \(add.err)")
        let file = account.folder.appendingPathComponent("party.ics")
        try """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//test//EN\r
        BEGIN:VEVENT\r
        UID:party-1@example.com\r
        DTSTAMP:20261101T000000Z\r
        DTSTART:20261201T180000Z\r
        DTEND:20261201T190000Z\r
        SUMMARY:Party\r
        END:VEVENT\r
        END:VCALENDAR\r

        """.write(to: file, atomically: true, encoding: .utf8)
        let imported = try account.run(["import", file.path], environment: environment)
        #expect(imported.status == 0, "stderr: \(imported.err)")
        let agenda = try account.run(
            ["agenda", "--json", "--calendar", "Birthdays"] + Self.dates, environment: environment)
        let array = try #require(try JSONSerialization.jsonObject(with: agenda.stdout) as? [[String: Any]])
        #expect(array.map { $0["subject"] as? String } == ["Cake", "Party"])
    }
}
