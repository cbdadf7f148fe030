import Foundation
import GraphICS
import ICalBridge
import Testing

@testable import GraphICSSync

/// A series file whose override moves its occurrence onto the day of the following one: Graph refuses that in
/// the series, so the push cancels the occurrence and creates the moved one as an event of its own. A later
/// edit of that override in the file changes that event, not the cancelled occurrence, and creates nothing
/// (issue 28, item 3).
@Suite struct SyncPushMovedOccurrenceTests {
    static let series = [
        "BEGIN:VEVENT", "UID:uid-standup", "DTSTAMP:20261120T100000Z", "DTSTART:20261207T090000Z",
        "DTEND:20261207T093000Z", "RRULE:FREQ=WEEKLY;COUNT=4", "SUMMARY:Standup", "END:VEVENT",
    ]
    /// The occurrence of 14 December moved to 21 December 07:00, the day of the following one.
    static func override(_ summary: String) -> [String] {
        [
            "BEGIN:VEVENT", "UID:uid-standup", "RECURRENCE-ID:20261214T090000Z", "DTSTAMP:20261120T100000Z",
            "DTSTART:20261221T070000Z", "DTEND:20261221T073000Z", "SUMMARY:\(summary)", "END:VEVENT",
        ]
    }

    static func file(_ summary: String) -> [String] {
        ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//pimutils//khal//EN"] + series + override(summary)
            + ["END:VCALENDAR"]
    }

    @Test func anEditOfTheMovedOccurrencePatchesTheEventHoldingIt() throws {
        let fixture = try PushFixture()
        try fixture.write("weekly.ics", Self.file("Standup (moved)"))
        let first = try fixture.sync()
        #expect(first.items.map(\.outcome) == [.pushed(.new)], "\(first.items.map(\.outcome))")
        let moved = try #require(fixture.events.first { $0["type"] as? String == "singleInstance" })
        let movedID = try #require(moved["id"] as? String)
        #expect(moved["subject"] as? String == "Standup (moved)")
        let count = fixture.events.count

        try fixture.write("weekly.ics", Self.file("Standup (moved to room 2)"))
        let second = try fixture.sync()
        #expect(second.items.map(\.outcome) == [.pushed(.changed)], "\(second.items.map(\.outcome))")
        #expect(fixture.standIn.event(id: movedID)?["subject"] as? String == "Standup (moved to room 2)")
        #expect(fixture.operations("PATCH", "/events/" + movedID).count == 1)
        #expect(fixture.events.count == count, "nothing created, nothing deleted")
        #expect(
            fixture.operations("POST").filter { $0.hasSuffix("/events") }.count == 2, "the series and the moved one")

        // The pull writes it back inside the series, where the file has it.
        try fixture.base.run()
        let text = try fixture.base.text("weekly.ics")
        #expect(text.contains("RECURRENCE-ID:20261214T090000Z\r\n"), "\(text)")
        #expect(text.contains("SUMMARY:Standup (moved to room 2)\r\n"), "\(text)")
        #expect(!text.contains("EXDATE"), "\(text)")
        #expect(try fixture.folder.scan().map(\.name) == ["weekly.ics"])
    }

    /// The words of the import's report for it (`ImportRun+Series`), naming the event made.
    static func madeSingle(_ eventID: String) -> String {
        "the occurrence of 2026-12-14T09:00:00Z moves onto or past a neighbour's day, which Graph refuses in a "
            + "series (ErrorOccurrenceCrossingBoundary): cancelled in the series and created as an event of its own "
            + "(\(eventID))"
    }

    @Test func theReportSaysTheOccurrenceWasMadeAnEventOfItsOwn() throws {
        let fixture = try EngineFixture()
        try fixture.push.write("weekly.ics", Self.file("Standup (moved)"))
        let report = try fixture.run()
        let moved = try #require(fixture.standIn.events().first { $0["type"] as? String == "singleInstance" })
        let note = Self.madeSingle(try #require(moved["id"] as? String))
        #expect(report.lines == ["pushed new  weekly.ics  Standup (\(note))"], "\(report.lines)")
        let object = try #require(try JSONSerialization.jsonObject(with: report.jsonData()) as? [String: Any])
        let items = try #require(object["items"] as? [[String: Any]])
        #expect(items.count == 1 && items.first?["outcome"] as? String == "pushed")
        #expect(items.first?["note"] as? String == note, "\(items)")
    }

    /// After the push that made the moved occurrence an event of its own, the next sync takes neither that
    /// event nor the cancelled occurrence for a change made in Outlook: a local edit of the override is pushed,
    /// not a conflict, and nothing is pulled back.
    @Test func theRunAfterThePushTakesItsOwnWritesForItsOwn() throws {
        let fixture = try EngineFixture()
        try fixture.push.write("weekly.ics", Self.file("Standup (moved)"))
        _ = try fixture.run()
        let moved = try #require(fixture.standIn.events().first { $0["type"] as? String == "singleInstance" })
        let movedID = try #require(moved["id"] as? String)

        try fixture.push.write("weekly.ics", Self.file("Standup (moved to room 2)"))
        let again = try fixture.run()
        let pushed = try #require(again.items.first { $0.outcome == .pushed(.changed) }, "\(again.items)")
        #expect(pushed.line(dryRun: false) == "pushed changed  weekly.ics  Standup")
        let json = try #require(try JSONSerialization.jsonObject(with: again.jsonData()) as? [String: Any])
        let pushedJSON = (json["items"] as? [[String: Any]])?.first { $0["outcome"] as? String == "pushed" }
        #expect(pushedJSON?["note"] is NSNull, "\(json)")
        #expect(again.items.count == 1, "\(again.items)")
        #expect(fixture.subject(movedID) == "Standup (moved to room 2)")
        let quiet = try fixture.run()
        #expect(quiet.items.isEmpty, "\(quiet.items)")
    }

    /// `import` made the series and the moved event; sync pulled the series into a file with Outlook's UID (and
    /// its push rewrites the series' identity to that UID). An edit of the override in that file still changes
    /// the event made of it, found by the transactionId that names its series and original start.
    @Test func anEditOfTheMovedOccurrenceInASeriesImportCreatedAndSyncPulledPatchesTheEventHoldingIt() throws {
        let fixture = try EngineFixture()
        let text = Self.file("Standup (moved)").joined(separator: "\r\n") + "\r\n"
        let plan = try ICSToGraph.plan(
            Data(text.utf8), options: ImportOptions(userZone: .utc, file: "weekly.ics"), settings: ImportSettings())
        let imported = EventImporter(client: fixture.base.client).run(
            plan.events.map { ImportItem(file: "weekly.ics", event: $0) })
        #expect(imported.results.map(\.action) == [.created], "\(imported.results)")
        let moved = try #require(fixture.standIn.events().first { $0["type"] as? String == "singleInstance" })
        let movedID = try #require(moved["id"] as? String)
        let count = fixture.standIn.events().count

        let pulled = try fixture.run()
        #expect(pulled.items.map(\.outcome) == [.pulled(.new)], "\(pulled.items)")
        let name = try #require(try fixture.folder.scan().map(\.name).first)
        var lines = try fixture.base.text(name).components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(!lines.contains("UID:uid-standup"), "the file has Outlook's UID: \(lines)")
        let summary = try #require(lines.firstIndex(of: "SUMMARY:Standup (moved)"), "\(lines)")
        lines[summary] = "SUMMARY:Standup (moved to room 2)"
        try fixture.push.write(name, lines)

        let pushed = try fixture.run()
        #expect(pushed.items.map(\.outcome) == [.pushed(.changed)], "\(pushed.items)")
        #expect(fixture.subject(movedID) == "Standup (moved to room 2)")
        #expect(fixture.push.operations("PATCH", "/events/" + movedID).count == 1)
        #expect(fixture.standIn.events().count == count, "nothing created, nothing deleted")
        #expect(try fixture.folder.scan().map(\.name) == [name])

        // The push recorded its own change: the next run pulls nothing back.
        let quiet = try fixture.run()
        #expect(quiet.items.isEmpty, "\(quiet.items)")
    }
}
