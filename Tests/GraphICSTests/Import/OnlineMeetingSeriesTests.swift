import Foundation
import GraphStandIn
import ICalBridge
import Testing

@testable import GraphICS

/// Changes graph-ics sends to an online meeting leave its body alone, since a body without the meeting's blob
/// disables the online meeting (api/event-update.md); the rest is applied (issue 28, item 1): a RECURRENCE-ID
/// override of a Teams series (import and `sync`'s push hand them to `finishSeries`), and
/// `import --on-duplicate update` of an event made a Teams meeting in Outlook since; a changed DESCRIPTION
/// left out is said in the event's result (``OnlineMeetingBody/keptNote``).
@Suite struct OnlineMeetingSeriesTests {
    static let joinURL = "https://teams.microsoft.com/l/meetup-join/19%3ameeting_series%40thread.v2/0"

    @Test func anOverrideOfAnOnlineMeetingKeepsTheMeeting() throws {
        let setup = try ImportSetup()
        defer { setup.standIn.stop() }
        let online: [String: Any] = [
            "isOnlineMeeting": true, "onlineMeetingProvider": "teamsForBusiness",
            "onlineMeeting": ["joinUrl": Self.joinURL],
            "body": ["contentType": "html", "content": "<html><body>Join: \(Self.joinURL)</body></html>"],
        ]
        var master: [String: Any] = [
            "id": "weekly", "type": "seriesMaster", "subject": "Weekly", "iCalUId": "uid-weekly",
            "start": ["dateTime": "2026-12-07T09:00:00", "timeZone": "UTC"],
            "end": ["dateTime": "2026-12-07T09:30:00", "timeZone": "UTC"],
            "recurrence": [
                "pattern": ["type": "weekly", "interval": 1, "daysOfWeek": ["monday"]],
                "range": ["type": "numbered", "startDate": "2026-12-07", "numberOfOccurrences": 3],
            ] as [String: Any],
        ]
        master.merge(online) { _, new in new }
        try setup.standIn.addEvent(master)
        for day in ["07", "14", "21"] {
            var occurrence: [String: Any] = [
                "id": "weekly-\(day)", "type": "occurrence", "seriesMasterId": "weekly", "subject": "Weekly",
                "iCalUId": "uid-weekly", "originalStart": "2026-12-\(day)T09:00:00Z",
                "start": ["dateTime": "2026-12-\(day)T09:00:00", "timeZone": "UTC"],
                "end": ["dateTime": "2026-12-\(day)T09:30:00", "timeZone": "UTC"],
            ]
            occurrence.merge(online) { _, new in new }
            try setup.standIn.addEvent(occurrence)
        }
        let text = """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//graph-ics tests//EN\r
            BEGIN:VEVENT\r
            UID:uid-weekly\r
            SUMMARY:Weekly\r
            DTSTART:20261207T090000Z\r
            DTEND:20261207T093000Z\r
            RRULE:FREQ=WEEKLY;COUNT=3\r
            DESCRIPTION:Join: \(Self.joinURL)\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            UID:uid-weekly\r
            RECURRENCE-ID:20261214T090000Z\r
            SUMMARY:Weekly (demo)\r
            DTSTART:20261214T093000Z\r
            DTEND:20261214T100000Z\r
            DESCRIPTION:Join: \(Self.joinURL)\\nOrganizer: Alex\r
            END:VEVENT\r
            END:VCALENDAR\r

            """
        let item = try #require(try TicketFiles.items(text: text, name: "weekly.ics").first)
        let result = try EventImporter(client: setup.client).finishSeries(of: item, seriesID: "weekly")
        #expect(result.action == .updated, "\(result)")
        // The override's DESCRIPTION is not the series': left out, and said so.
        #expect(result.note?.contains(OnlineMeetingBody.keptNote) == true, "\(result)")
        let changed = try #require(setup.standIn.event(id: "weekly-14"))
        #expect(changed["subject"] as? String == "Weekly (demo)")
        #expect((changed["start"] as? [String: Any])?["dateTime"] as? String == "2026-12-14T09:30:00.0000000")
        #expect(changed["isOnlineMeeting"] as? Bool == true)
        #expect(setup.standIn.disabledOnlineMeetings.isEmpty)
        let patches = setup.standIn.operations.filter { $0.method == "PATCH" }
        #expect(patches.count == 1)
        #expect(patches.allSatisfy { !String(decoding: $0.body, as: UTF8.self).contains("\"body\"") })
    }

    @Test(arguments: [true, false])
    func anUpdateOfAnImportedEventMadeAnOnlineMeetingKeepsTheMeeting(changesDescription: Bool) throws {
        let setup = try ImportSetup()
        defer { setup.standIn.stop() }
        try setup.standIn.addEvent([
            "subject": "Dentist", "iCalUId": "graph-dentist",
            "start": ["dateTime": "2026-12-09T09:00:00", "timeZone": "UTC"],
            "end": ["dateTime": "2026-12-09T10:00:00", "timeZone": "UTC"],
            "isOnlineMeeting": true, "onlineMeetingProvider": "teamsForBusiness",
            "onlineMeeting": ["joinUrl": Self.joinURL],
            "body": ["contentType": "html", "content": "<html><body>Join: \(Self.joinURL)</body></html>"],
            "singleValueExtendedProperties": [
                ["id": ImportIdentity.propertyID, "value": "dentist@tests.example"],
                ["id": ImportIdentity.versionPropertyID, "value": "0;20261101T100000Z"],
                ["id": ImportIdentity.calendarPropertyID, "value": "default"],
            ],
        ])
        let text = """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//graph-ics tests//EN\r
            BEGIN:VEVENT\r
            UID:dentist@tests.example\r
            DTSTAMP:20261120T100000Z\r
            SEQUENCE:1\r
            SUMMARY:Dentist (video)\r
            DTSTART:20261209T093000Z\r
            DTEND:20261209T103000Z\r
            DESCRIPTION:\(changesDescription ? "Bring the card" : "Join: \(Self.joinURL)")\r
            END:VEVENT\r
            END:VCALENDAR\r

            """
        let items = try TicketFiles.items(text: text, name: "dentist.ics", ImportSettings(onDuplicate: .update))
        let report = setup.run(items)
        #expect(report.results.map(\.action) == [.updated], "\(report.results)")
        // A changed DESCRIPTION left out is said; an unchanged one is not.
        #expect(report.results.first?.note == (changesDescription ? OnlineMeetingBody.keptNote : nil))
        let stored = try #require(setup.standIn.events().first)
        #expect(stored["subject"] as? String == "Dentist (video)")
        #expect(
            (stored["body"] as? [String: Any])?["content"] as? String
                == "<html><body>Join: \(Self.joinURL)</body></html>")
        #expect(
            setup.standIn.operations.filter { $0.method == "PATCH" }.allSatisfy {
                !String(decoding: $0.body, as: UTF8.self).contains("\"body\"")
            })
        #expect((stored["start"] as? [String: Any])?["dateTime"] as? String == "2026-12-09T09:30:00.0000000")
        #expect(stored["isOnlineMeeting"] as? Bool == true)
        #expect(setup.standIn.disabledOnlineMeetings.isEmpty)
    }
}
