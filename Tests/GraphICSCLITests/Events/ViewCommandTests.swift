import Foundation
import GraphStandIn
import Testing

/// `graph-ics week`, `month`, `agenda`'s script and HTML forms, and the one JSON style of every command, run
/// as a user runs them against the stand-in seeded with the fixtures' week (Ana Example's mailbox in Berlin).
@Suite struct ViewCommandTests {
    static func fixtureAccount() throws -> StandInAccount {
        let account = try StandInAccount()
        account.standIn.addUser(
            displayName: "Ana Example", mail: "ana@contoso.example", mailboxTimeZone: "W. Europe Standard Time")
        _ = try account.standIn.addEvents(fromGraphJSON: Data(contentsOf: Package.fixture("views/week.json")))
        return account
    }

    @Test("week draws the fixtures' week at --width, every timed event as a block")
    func week() throws {
        let account = try Self.fixtureAccount()
        let result = try account.run(
            ["week", "--week", "2026-W49", "--width", "160"], environment: account.tokenEnvironment())
        #expect(result.status == 0, "stderr: \(result.err)")
        let lines = result.out.split(separator: "\n")
        #expect(lines.first == "30 November – 6 December 2026 (Europe/Berlin)")
        #expect(lines.allSatisfy { $0.count <= 160 })
        for subject in ["Weekly planning", "Standup", "Design review", "1:1 with Ben", "Customer call", "Workshop"] {
            #expect(result.out.contains("▌" + subject.prefix(7)), "\(subject)")
        }
        #expect(lines.contains { $0.hasPrefix("all ") && $0.contains("Company holiday") && $0.contains("Conference") })
        #expect(result.stderr.isEmpty, "stderr: \(result.err)")
    }

    @Test("month draws December with the events' titles; COLUMNS gives the width")
    func month() throws {
        let account = try Self.fixtureAccount()
        var environment = account.tokenEnvironment()
        environment["COLUMNS"] = "100"
        let result = try account.run(["month", "--month", "2026-12"], environment: environment)
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(result.out.contains("December 2026 (Europe/Berlin)"))
        #expect(result.out.split(separator: "\n").allSatisfy { $0.count <= 100 })
        #expect(result.out.contains("09:00 Standup"))
        #expect(result.out.contains("Conference"))
    }

    @Test("agenda --html -o writes one self-contained page with every event of the week")
    func html() throws {
        let account = try Self.fixtureAccount()
        let page = account.folder.appendingPathComponent("week.html")
        let result = try account.run(
            ["agenda", "--week", "2026-W49", "--html", "-o", page.path], environment: account.tokenEnvironment())
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(result.stdout.isEmpty)
        let html = try String(contentsOf: page, encoding: .utf8)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        for subject in ["Weekly planning", "Company holiday", "Standup", "Retro", "Flight to Lisbon", "Zürich team"] {
            #expect(html.contains(subject), "\(subject)")
        }
        #expect(!html.contains("<script") && !html.contains("src="))
    }

    @Test("agenda --tsv and --format print a line per event; --hide-empty leaves out Sunday")
    func scripts() throws {
        let account = try Self.fixtureAccount()
        let environment = account.tokenEnvironment()
        let tsv = try account.run(["agenda", "--week", "2026-W49", "--tsv"], environment: environment)
        #expect(tsv.status == 0, "stderr: \(tsv.err)")
        #expect(tsv.out.split(separator: "\n").count == 15)
        #expect(tsv.out.contains("2026-12-01\t09:00\t2026-12-01\t09:15\tStandup\tRoom 4\tAnn Lee\t"))
        let format = try account.run(
            ["agenda", "--week", "2026-W49", "--format", "{start:%d %H:%M} {subject}"], environment: environment)
        #expect(format.out.hasPrefix("30 09:00 Weekly planning\n30 12:00 Lunch with Ben\n01 00:00 Company holiday\n"))
        let text = try account.run(
            ["agenda", "--week", "2026-W49", "--hide-empty", "--tz", "Europe/Berlin"], environment: environment)
        #expect(text.out.hasPrefix("Times in Europe/Berlin\nMonday 30 November 2026\n  09:00–10:00  Weekly planning"))
        #expect(!text.out.contains("Sunday"))
        #expect(!text.out.contains("Ana Example"), "the owner is not named as organizer")
    }

    @Test("agenda into a pipe is never cut, even with COLUMNS set; --width cuts it")
    func pipedWidth() throws {
        let account = try Self.fixtureAccount()
        var environment = account.tokenEnvironment()
        environment["COLUMNS"] = "40"
        let piped = try account.run(["agenda", "--week", "2026-W49"], environment: environment)
        #expect(piped.out.contains("Quarterly business review with the extended leadership team (Carla Mendes)"))
        let cut = try account.run(["agenda", "--week", "2026-W49", "--width", "40"], environment: environment)
        #expect(cut.out.contains("  09:30–11:00  Quarterly business revie…\n"))
        #expect(cut.out.split(separator: "\n").allSatisfy { $0.count <= 40 })
    }

    @Test("whoami, calendars and agenda --json are written in one style")
    func oneJSONStyle() throws {
        let account = try Self.fixtureAccount()
        let environment = account.tokenEnvironment()
        for arguments in [["whoami", "--json"], ["calendars", "--json"], ["agenda", "--week", "2026-W49", "--json"]] {
            let result = try account.run(arguments, environment: environment)
            #expect(result.status == 0, "\(arguments): \(result.err)")
            #expect(try JSONSerialization.jsonObject(with: result.stdout) is NSObject)
            #expect(!result.out.contains("\" : "), "\(arguments): no space before the colon")
            #expect(!result.out.contains("\\/"), "\(arguments): slashes unescaped")
            #expect(result.out.hasSuffix("\n") && !result.out.hasSuffix("\n\n"))
            for line in result.out.split(separator: "\n") {
                let indent = line.prefix { $0 == " " }.count
                #expect(indent % 2 == 0, "\(arguments): \(line)")
            }
        }
        let whoami = try account.run(["whoami", "--json"], environment: environment)
        #expect(whoami.out.contains("\n  \"mail\": \"ana@contoso.example\",\n"))
    }
}
