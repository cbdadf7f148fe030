import Foundation
import GraphStandIn
import ICalBridge
import Testing

/// `graph-ics export --detail` and the filters, end to end: the built binary against the Graph stand-in.
@Suite struct ExportSelectionCommandTests {
    /// A stand-in mailbox in Berlin with a meeting (body, attendee, category), a private appointment and a
    /// declined meeting in ISO week 2026-W49.
    static func account() throws -> StandInAccount {
        let account = try ExportCommandTests.account()
        let standIn = account.standIn
        func seed(_ subject: String, hour: Double, _ fields: [String: Any]) throws {
            let start = ExportCommandTests.week49.addingTimeInterval(86_400 + hour * 3600)
            var event: [String: Any] = [
                "subject": subject,
                "start": [
                    "dateTime": ExportCommandTests.berlinLocal(start), "timeZone": ExportCommandTests.berlinWindows,
                ],
                "end": [
                    "dateTime": ExportCommandTests.berlinLocal(start.addingTimeInterval(1800)),
                    "timeZone": ExportCommandTests.berlinWindows,
                ],
            ]
            event.merge(fields) { _, new in new }
            try standIn.addEvent(event)
        }
        try seed(
            "Budget review", hour: 9,
            [
                "body": ["contentType": "text", "content": "Numbers in the shared folder"], "showAs": "busy",
                "categories": ["Finance"],
                "attendees": [
                    ["type": "required", "emailAddress": ["name": "Bo", "address": "bo@contoso.example"]]
                ],
            ])
        try seed("Doctor", hour: 11, ["sensitivity": "private", "showAs": "oof"])
        try seed("Offsite", hour: 14, ["showAs": "tentative", "responseStatus": ["response": "declined"]])
        return account
    }

    static func export(_ account: StandInAccount, _ options: [String]) throws -> (ProcessResult, [ICalendarText.Event])
    {
        let result = try account.run(
            ["export", "--week", "2026-W49", "-o", "-"] + options, environment: account.tokenEnvironment())
        return (result, ICalendarText.events(result.out))
    }

    @Test("export --detail busy writes busy blocks titled by show-as, without subjects, bodies or attendees")
    func detailBusy() throws {
        let account = try Self.account()
        let (full, fullEvents) = try Self.export(account, [])
        #expect(full.status == 0, "\(full.err)")
        #expect(fullEvents.compactMap { $0.value("SUMMARY") }.sorted() == ["Budget review", "Doctor", "Offsite"])
        #expect(full.out.contains("bo@contoso.example"))

        let (busy, events) = try Self.export(account, ["--detail", "busy"])
        #expect(busy.status == 0, "\(busy.err)")
        #expect(events.compactMap { $0.value("SUMMARY") } == ["Busy", "Out of office", "Tentative"])
        for secret in ["Budget review", "Doctor", "Offsite", "Numbers in the shared folder", "bo@contoso.example"] {
            #expect(!busy.out.contains(secret), "\(secret)")
        }
        #expect(events.allSatisfy { $0.graphID == nil })
    }

    @Test("export --detail limited hides the private event unless --show-private; filters leave events out")
    func limitedAndFilters() throws {
        let account = try Self.account()
        let (limited, events) = try Self.export(account, ["--detail", "limited"])
        #expect(limited.status == 0, "\(limited.err)")
        #expect(events.compactMap { $0.value("SUMMARY") } == ["Budget review", "Out of office", "Offsite"])
        #expect(!limited.out.contains("Numbers in the shared folder"))

        let (_, shown) = try Self.export(account, ["--detail=limited", "--show-private"])
        #expect(shown.compactMap { $0.value("SUMMARY") } == ["Budget review", "Doctor", "Offsite"])

        let (_, filtered) = try Self.export(account, ["--exclude-declined", "--category", "finance"])
        #expect(filtered.compactMap { $0.value("SUMMARY") } == ["Budget review"])
    }

    @Test("export refuses an unknown detail level as a usage error naming the levels")
    func unknownDetail() throws {
        let account = try Self.account()
        let (result, _) = try Self.export(account, ["--detail", "secret"])
        #expect(result.status == 64)
        #expect(result.err.contains("full"), "\(result.err)")
        #expect(result.err.contains("busy"), "\(result.err)")
        #expect(result.stdout.isEmpty)
    }
}

/// `graph-ics convert --detail`: saved Graph JSON through the same selection.
@Suite struct ConvertSelectionCommandTests {
    @Test("convert --detail limited leaves the body and attendees out of saved Graph JSON; iCalendar input refuses it")
    func convertDetail() throws {
        let input = Package.fixture("graph/attendees.json").path
        let full = try graphICS(["convert", input])
        #expect(full.status == 0, "\(full.err)")
        #expect(full.out.contains("ATTENDEE"))
        let limited = try graphICS(["convert", input, "--detail", "limited"])
        #expect(limited.status == 0, "\(limited.err)")
        #expect(!limited.out.contains("ATTENDEE"))
        #expect(!limited.out.contains("ORGANIZER"))
        #expect(limited.out.contains("SUMMARY:Attendees: every type and response"))

        let refused = try graphICS(["convert", Package.fixture("import/concert.ics").path, "--detail", "busy"])
        #expect(refused.status == 64)
        #expect(refused.err.contains("concert.ics is iCalendar"), "\(refused.err)")
    }
}
