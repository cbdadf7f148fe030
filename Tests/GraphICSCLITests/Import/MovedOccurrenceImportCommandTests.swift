import Foundation
import GraphStandIn
import Testing

/// `graph-ics import` of a series with an occurrence moved by RECURRENCE-ID onto or past the day of its
/// neighbour, which Graph refuses to hold in the series (400 `ErrorOccurrenceCrossingBoundary`,
/// api/event-update.md): the occurrence is cancelled in the series and the moved one created as a single event
/// carrying the series' source UID and the RECURRENCE-ID; the report says so, and a re-import creates
/// nothing (issue 28, item 3).
@Suite struct MovedOccurrenceImportCommandTests {
    static let uid = "standup-28@tests.example"
    static let sourceProperty = "String {6a3d0f5e-2c41-4b8e-9d7a-3f1c5e8b2a90} Name graph-ics.source-uid"

    /// A daily 09:00 Berlin standup, Monday 30 November to Friday 4 December 2026, whose Tuesday is moved to
    /// Wednesday 14:00, the day of the following occurrence.
    static let calendar = """
        BEGIN:VCALENDAR
        VERSION:2.0
        PRODID:-//graph-ics tests//EN
        BEGIN:VEVENT
        UID:\(uid)
        DTSTAMP:20261120T100000Z
        SUMMARY:Standup
        DTSTART;TZID=Europe/Berlin:20261130T090000
        DTEND;TZID=Europe/Berlin:20261130T091500
        RRULE:FREQ=DAILY;COUNT=5
        END:VEVENT
        BEGIN:VEVENT
        UID:\(uid)
        DTSTAMP:20261120T100000Z
        RECURRENCE-ID;TZID=Europe/Berlin:20261201T090000
        SUMMARY:Standup (moved to Wednesday afternoon)
        DTSTART;TZID=Europe/Berlin:20261202T140000
        DTEND;TZID=Europe/Berlin:20261202T141500
        END:VEVENT
        END:VCALENDAR
        """

    private static func start(_ event: [String: Any]) -> String {
        String(((event["start"] as? [String: Any])?["dateTime"] as? String ?? "").prefix(19))
    }

    private static func source(_ event: [String: Any]) -> String? {
        (event["singleValueExtendedProperties"] as? [[String: Any]] ?? []).first {
            ($0["id"] as? String)?.lowercased() == sourceProperty.lowercased()
        }?["value"] as? String
    }

    @Test(
        "an override past its neighbour's day: occurrence cancelled, moved one created with the UID and RECURRENCE-ID")
    func occurrenceMovedOntoNeighbourDay() throws {
        let (account, environment) = try StandInAccount.inBerlin()
        let file = account.folder.appendingPathComponent("standup.ics")
        try Data(Self.calendar.replacingOccurrences(of: "\n", with: "\r\n").utf8).write(to: file)
        let result = try account.run(["import", file.path], environment: environment)
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(result.err.contains("ErrorOccurrenceCrossingBoundary"), "stderr: \(result.err)")
        #expect(result.err.contains("cancelled in the series and created as an event of its own"), "\(result.err)")

        let events = account.standIn.events()
        let master = try #require(events.first { $0["type"] as? String == "seriesMaster" })
        let occurrences = events.filter { $0["seriesMasterId"] as? String == master["id"] as? String }
        // 09:00 Berlin is 08:00 UTC in December; Tuesday's occurrence is gone from the series.
        #expect(
            occurrences.map(Self.start).sorted() == [
                "2026-11-30T08:00:00", "2026-12-02T08:00:00", "2026-12-03T08:00:00", "2026-12-04T08:00:00",
            ])
        let moved = try #require(events.first { $0["type"] as? String == "singleInstance" })
        #expect(moved["subject"] as? String == "Standup (moved to Wednesday afternoon)")
        #expect(Self.start(moved) == "2026-12-02T13:00:00")
        #expect(Self.source(moved) == Self.uid + "|20261201T080000Z", "the series' UID and the RECURRENCE-ID")
        #expect(Self.source(master) == Self.uid)
        #expect(account.standIn.sentCancellations.isEmpty)

        // A re-import finds everything there and creates nothing.
        let count = account.standIn.eventCount
        let again = try account.run(["import", file.path], environment: environment)
        #expect(again.status == 0, "stderr: \(again.err)")
        #expect(account.standIn.eventCount == count)
        #expect(account.standIn.events().filter { $0["type"] as? String == "singleInstance" }.count == 1)

        // --verify finds the moved occurrence where the file puts it, and then the difference once it is
        // dragged in Outlook.
        let verified = try account.run(["import", "--verify", file.path], environment: environment)
        #expect(verified.status == 0, "stderr: \(verified.err)")
        #expect(verified.err.contains("verify: 1 ok, 0 missing, 0 outdated, 0 different"), "\(verified.err)")
        let movedID = try #require(moved["id"] as? String)
        try account.standIn.moveEvent(id: movedID, bySeconds: 3600)
        let dragged = try account.run(["import", "--verify", file.path], environment: environment)
        #expect(dragged.status != 0, "stderr: \(dragged.err)")
        #expect(
            dragged.err.contains("start: 2026-12-02 13:00 UTC in the file, 2026-12-02 14:00 UTC in Outlook"),
            "\(dragged.err)")

        // --undo removes the series and the moved occurrence, and nothing else.
        let other = try account.standIn.addEvent([
            "subject": "Someone else's", "start": ["dateTime": "2026-12-02T10:00:00", "timeZone": "UTC"],
            "end": ["dateTime": "2026-12-02T11:00:00", "timeZone": "UTC"],
        ])
        let undone = try account.run(["import", "--undo", file.path], environment: environment)
        #expect(undone.status == 0, "stderr: \(undone.err)")
        #expect(account.standIn.events().compactMap { $0["id"] as? String } == [other])
    }
}
