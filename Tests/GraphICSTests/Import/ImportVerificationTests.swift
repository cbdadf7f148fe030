import Foundation
import GraphStandIn
import ICalBridge
import Testing

@testable import GraphICS

/// `import --verify` against the stand-in: what an import created, read back and compared with the file.
@Suite struct ImportVerificationTests {
    private static let files = ["train-ticket.ics", "cinema-ticket.ics", "concert.ics", "meetup-series.ics"]

    private static func items() throws -> [ImportItem] {
        try files.flatMap { try TicketFiles.items($0) }
    }

    @Test func eventsJustImportedAreOkSeriesCountedWithoutTheirExdates() throws {
        let setup = try ImportSetup()
        let items = try Self.items()
        #expect(setup.run(items).count(.failed) == 0)
        let results = try EventImporter(client: setup.client).verify(items)
        #expect(results.map(\.outcome) == Array(repeating: .ok, count: items.count), "\(results.map(\.line))")
        let series = try #require(items.firstIndex { $0.event.payload.recurrence != nil })
        #expect(ImportExpectation(of: items[series].event).occurrencesInFirstYear == 5)
    }

    @Test func anEventMovedInOutlookIsDifferentNamingBothStarts() throws {
        let setup = try ImportSetup()
        let items = try TicketFiles.items("cinema-ticket.ics")
        let created = try #require(setup.run(items).results.first?.eventID)
        try setup.standIn.moveEvent(id: created, bySeconds: 3600)
        let result = try #require(try EventImporter(client: setup.client).verify(items).first)
        #expect(result.outcome == .different)
        #expect(
            result.differences == [
                "start: 2027-01-22 19:15 UTC in the file, 2027-01-22 20:15 UTC in Outlook",
                "end: \(Self.end(items[0], shift: 0)) in the file, \(Self.end(items[0], shift: 3600)) in Outlook",
            ])
        #expect(result.line.hasPrefix("cinema-ticket.ics: \"Kino"), "\(result.line)")
        #expect(result.line.contains(": different: start: "), "\(result.line)")
    }

    @Test func aSubjectChangedARemovedOccurrenceAndADeletedEventAreReported() throws {
        let setup = try ImportSetup()
        let items = try Self.items()
        let report = setup.run(items)
        let ids = report.results.compactMap(\.eventID)
        try setup.standIn.changeEvent(id: ids[0], ["subject": "Renamed in Outlook"])
        try setup.standIn.removeEvent(id: ids[1])
        let seriesID = try #require(report.results.last?.eventID)
        let occurrence = try #require(setup.occurrences(of: seriesID).first?["id"] as? String)
        try setup.standIn.removeEvent(id: occurrence)

        let results = try EventImporter(client: setup.client).verify(items)
        #expect(results.map(\.outcome) == [.different, .missing, .ok, .different])
        #expect(
            results[0].differences.first?.hasPrefix("subject: \"Train ES 9126") == true, "\(results[0].differences)")
        #expect(results[0].differences.first?.hasSuffix("\"Renamed in Outlook\" in Outlook") == true)
        #expect(results[3].differences == ["5 occurrence(s) in the first year in the file, 4 in Outlook"])
    }

    @Test func anAllDayEventIsComparedByItsDates() throws {
        let setup = try ImportSetup()
        let text = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//tests//EN", "BEGIN:VEVENT", "UID:trip@tests.example",
            "DTSTAMP:20261201T100000Z", "DTSTART;VALUE=DATE:20270301", "DTEND;VALUE=DATE:20270303", "SUMMARY:Trip",
            "END:VEVENT", "END:VCALENDAR", "",
        ].joined(separator: "\r\n")
        let items = try TicketFiles.items(text: text, name: "trip.ics")
        let id = try #require(setup.run(items).results.first?.eventID)
        #expect(try EventImporter(client: setup.client).verify(items).map(\.outcome) == [.ok])
        let zone = ["timeZone": "UTC"]
        try setup.standIn.changeEvent(
            id: id,
            [
                "start": zone.merging(["dateTime": "2027-03-02T00:00:00"]) { $1 },
                "end": zone.merging(["dateTime": "2027-03-04T00:00:00"]) { $1 },
            ])
        let moved = try #require(try EventImporter(client: setup.client).verify(items).first)
        #expect(
            moved.differences == [
                "start: 2027-03-01 in the file, 2027-03-02 in Outlook",
                "end: 2027-03-03 in the file, 2027-03-04 in Outlook",
            ], "\(moved.line)")
    }

    @Test func anOverriddenOccurrenceIsComparedWithTheOverride() throws {
        let setup = try ImportSetup()
        let items = try TicketFiles.items("meetup-series.ics")
        let seriesID = try #require(setup.run(items).results.first?.eventID)
        #expect(try EventImporter(client: setup.client).verify(items).map(\.outcome) == [.ok])
        // The override moved the 26 January meetup to Wednesday 27th, 18:30 UTC; Outlook moves it back.
        let moved = try #require(
            setup.occurrences(of: seriesID).first {
                ((($0["start"] as? [String: Any])?["dateTime"] as? String) ?? "").hasPrefix("2027-01-27T18:30")
            }?["id"] as? String)
        try setup.standIn.moveEvent(id: moved, bySeconds: -86_400)
        let result = try #require(try EventImporter(client: setup.client).verify(items).first)
        #expect(result.outcome == .different)
        #expect(
            result.differences.first
                == "occurrence of 2027-01-26 18:00 UTC: start: 2027-01-27 18:30 UTC in the file, 2027-01-26 18:30 UTC"
                + " in Outlook", "\(result.differences)")
    }

    @Test func aNewerFileIsOutdated() throws {
        let setup = try ImportSetup()
        #expect(setup.run(try TicketFiles.items("concert.ics")).count(.created) == 1)
        let moved = try TicketFiles.items("concert-moved.ics")
        let result = try #require(try EventImporter(client: setup.client).verify(moved).first)
        #expect(result.outcome == .outdated)
        #expect(result.line.hasSuffix(": outdated (file newer)"))
    }

    /// The end of `item` as the verify message writes it, shifted by `shift` seconds.
    private static func end(_ item: ImportItem, shift: Int64) -> String {
        guard case .timed(_, let end)? = ImportExpectation(of: item.event).times else { return "?" }
        let civil = CivilDateTime(secondsSinceEpoch: end + shift)
        return civil.dateString + " " + String(civil.description.dropFirst(11).prefix(5)) + " UTC"
    }
}

/// `import --undo` against the stand-in: only what the import created goes, meetings stay without consent.
@Suite struct ImportUndoTests {
    @Test func undoRemovesWhatTheImportCreatedAndNothingElse() throws {
        let setup = try ImportSetup()
        let other = try setup.standIn.addEvent([
            "subject": "Dentist", "start": ["dateTime": "2027-01-22T08:00:00", "timeZone": "UTC"],
            "end": ["dateTime": "2027-01-22T09:00:00", "timeZone": "UTC"],
        ])
        let items =
            try TicketFiles.items("cinema-ticket.ics") + TicketFiles.items("meetup-series.ics")
        #expect(setup.run(items).count(.failed) == 0)
        let notImported = try TicketFiles.items("train-ticket.ics")

        let results = try EventImporter(client: setup.client).undo(items + notImported, allowingMail: false)
        #expect(results.map(\.outcome) == [.removed, .removed, .absent])
        #expect(setup.topLevelEvents.map { $0["id"] as? String } == [other])
        #expect(setup.standIn.sentCancellations.isEmpty)
        #expect(results[2].line.hasSuffix(": not in the calendar, nothing to remove"), "\(results[2].line)")

        let again = try EventImporter(client: setup.client).undo(items, allowingMail: false)
        #expect(again.map(\.outcome) == [.absent, .absent])
    }

    @Test func aDryRunUndoRemovesNothing() throws {
        let setup = try ImportSetup()
        let items = try TicketFiles.items("concert.ics")
        _ = setup.run(items)
        let results = try EventImporter(client: setup.client).undo(items, allowingMail: false, dryRun: true)
        #expect(results.first?.line.hasSuffix(": would remove") == true)
        #expect(setup.standIn.eventCount == 1)
    }

    @Test func aMeetingIsRemovedOnlyWithConsentBecauseGraphMailsItsAttendees() throws {
        let setup = try ImportSetup()
        let items = try TicketFiles.items("invitation-request.ics", ImportSettings(notifiesAttendees: true))
        #expect(setup.run(items).count(.created) == 1)

        let refused = try #require(try EventImporter(client: setup.client).undo(items, allowingMail: false).first)
        #expect(refused.outcome == .failed)
        #expect(refused.error?.contains("deleting it would make Graph mail them") == true, "\(refused.line)")
        #expect(setup.standIn.eventCount == 1)
        #expect(setup.standIn.sentCancellations.isEmpty)

        let allowed = try EventImporter(client: setup.client).undo(items, allowingMail: true)
        #expect(allowed.map(\.outcome) == [.removed])
        #expect(setup.standIn.eventCount == 0)
    }
}
