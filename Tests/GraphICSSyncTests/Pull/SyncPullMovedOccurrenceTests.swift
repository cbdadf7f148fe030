import Foundation
import GraphStandIn
import Testing

@testable import GraphICSSync

/// An occurrence moved onto a neighbour's day is held by Graph as a single event of its own, which the import
/// (or sync's push) created with a transactionId naming its series and original start. The pull writes it
/// inside its series' file as the RECURRENCE-ID override it came from, on the first round and on rounds of
/// changes, whether the moved event or another occurrence changed (issue 28, item 3).
@Suite struct SyncPullMovedOccurrenceTests {
    /// The fixture's Monday standup with the occurrence of 14 December cancelled in the series and held as an
    /// event of its own on Monday 21 December 07:00 UTC, the day of the following occurrence.
    static func seed(_ fixture: PullFixture) throws {
        try fixture.addSeries()
        try fixture.standIn.removeEvent(id: "standup-14")
        try fixture.standIn.addEvent([
            "id": "moved-14", "type": "singleInstance", "subject": "Standup (moved)", "iCalUId": "uid-moved",
            "transactionId": "graph-ics-moved|2026-12-14T09:00:00Z|standup",
            "start": ["dateTime": "2026-12-21T07:00:00", "timeZone": "UTC"],
            "end": ["dateTime": "2026-12-21T07:30:00", "timeZone": "UTC"],
        ])
    }

    @Test func theMovedOccurrenceIsAnOverrideInItsSeriesFileOnEveryRound() throws {
        let fixture = try PullFixture()
        try Self.seed(fixture)
        let first = try fixture.run()
        #expect(first.diagnostics.isEmpty, "\(first.diagnostics)")
        #expect(first.pulled.map(\.fileName) == ["uid-standup.ics"], "one item: no file of its own")
        #expect(try fixture.parsedEvents("uid-standup.ics").map(\.isOverride) == [false, true])
        var text = try fixture.text("uid-standup.ics")
        #expect(text.contains("RECURRENCE-ID:20261214T090000Z\r\n"), "\(text)")
        #expect(text.contains("DTSTART:20261221T070000Z\r\n"), "\(text)")
        #expect(!text.contains("EXDATE"), "\(text)")
        #expect(try fixture.state.items(of: fixture.pairing).map(\.graphID) == ["standup"])

        // The moved event changed in Outlook: a round of changes writes it in the series' file again.
        try fixture.standIn.changeEvent(id: "moved-14", ["subject": "Standup (moved in room 2)"])
        let second = try fixture.run()
        #expect(second.diagnostics.isEmpty, "\(second.diagnostics)")
        #expect(second.pulled.map(\.fileName) == ["uid-standup.ics"])
        text = try fixture.text("uid-standup.ics")
        #expect(text.contains("SUMMARY:Standup (moved in room 2)\r\n"), "\(text)")
        #expect(text.contains("RECURRENCE-ID:20261214T090000Z\r\n"), "\(text)")
        #expect(!text.contains("EXDATE"), "\(text)")

        // Another occurrence changed: the series is read again, and the moved event stays in it.
        try fixture.standIn.changeEvent(id: "standup-28", ["subject": "Last standup"])
        let third = try fixture.run()
        #expect(third.diagnostics.isEmpty, "\(third.diagnostics)")
        text = try fixture.text("uid-standup.ics")
        #expect(text.contains("SUMMARY:Last standup\r\n"), "\(text)")
        #expect(text.contains("SUMMARY:Standup (moved in room 2)\r\n"), "\(text)")
        #expect(text.contains("RECURRENCE-ID:20261214T090000Z\r\n"), "\(text)")
        #expect(!text.contains("EXDATE"), "\(text)")
        #expect(try fixture.folder.scan().count == 1)
    }
}
