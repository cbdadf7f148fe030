import Foundation
import GraphICS
import GraphICSMirror
import GraphStandIn
import Testing

@testable import GraphICSSync

/// A sync deletes a file only when Outlook deleted its event: a GET of the event (a series: its master)
/// answered 404 or 410. An event a round no longer shows (outside the window, moved, aged, on a calendar read
/// without delta, a series with no occurrence left in the window) keeps its file; a GET that fails keeps it
/// too. And a push is never mistaken for a change made in Outlook.
@Suite struct SyncKeepsFilesTests {
    /// A ticket-style single event on `day` (`20200210`), 18:00–19:00 UTC, with a description and an X-
    /// property that only the file holds.
    static func ticket(_ uid: String, day: String, summary: String) -> [String] {
        PushFixture.calendar([
            "UID:\(uid)", "DTSTAMP:20261120T100000Z", "DTSTART:\(day)T180000Z", "DTEND:\(day)T190000Z",
            "SUMMARY:\(summary)", "DESCRIPTION:Seat 42\\, coach 7", "X-TICKET-BARCODE:QR-0042-7731",
        ])
    }

    /// A fixture with an old ticket (February 2020) and a far-future one (December 2028), both outside the
    /// window, written into the folder and pushed by a first sync.
    static func pushedTickets(_ configure: (inout SyncOptions) -> Void = { _ in }) throws -> EngineFixture {
        let fixture = try EngineFixture()
        try fixture.push.write("my-old-ticket.ics", ticket("old-ticket", day: "20200210", summary: "Old train"))
        try fixture.push.write(
            "far-future-ticket.ics", ticket("future-ticket", day: "20281210", summary: "Future flight"))
        let first = try fixture.run(configure)
        #expect(
            EngineFixture.outcomes(first)
                == ["my-old-ticket.ics": .pushed(.new), "far-future-ticket.ics": .pushed(.new)], "\(first.items)")
        return fixture
    }

    static let ticketNames: Set<String> = ["my-old-ticket.ics", "far-future-ticket.ics"]

    /// Checks that both tickets' files hold exactly what the user wrote, and Outlook has both events.
    static func expectTicketsKept(
        _ fixture: EngineFixture, _ bytes: [String: Data], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let now = try fixture.folderBytes()
        for name in ticketNames {
            #expect(now[name] == bytes[name], "\(name) changed or went", sourceLocation: sourceLocation)
        }
        #expect(
            fixture.subjects().isSuperset(of: ["Old train", "Future flight"]), "\(fixture.subjects())",
            sourceLocation: sourceLocation)
    }

    @Test func filesOutsideTheWindowSurviveFiveSyncsAndAreReportedOnce() throws {
        let fixture = try Self.pushedTickets()
        let bytes = try fixture.folderBytes()
        let second = try fixture.run()
        #expect(
            EngineFixture.outcomes(second)
                == ["my-old-ticket.ics": .outsideWindow, "far-future-ticket.ics": .outsideWindow], "\(second.items)")
        #expect(second.lines.contains("outside window  my-old-ticket.ics  Old train"), "\(second.lines)")
        #expect(!second.hasProblems && second.summary.contains("2 outside the window"), "\(second.summary)")
        try Self.expectTicketsKept(fixture, bytes)
        for _ in 1...4 {
            let again = try fixture.run()
            #expect(again.items.isEmpty && !again.hasProblems, "\(again.items)")
            try Self.expectTicketsKept(fixture, bytes)
        }
        let records = try fixture.state.items(of: fixture.base.pairing)
        #expect(records.filter { $0.outsideWindow }.map(\.fileName).sorted() == Self.ticketNames.sorted())
    }

    @Test func filesOutsideTheWindowSurviveAReanchoredWindow() throws {
        let fixture = try Self.pushedTickets()
        _ = try fixture.run()
        let bytes = try fixture.folderBytes()
        let day: Int64 = 86_400
        let moved = SyncWindow(start: fixture.base.window.start + 90 * day, end: fixture.base.window.end + 90 * day)
        let reanchored = try fixture.run { $0.window = moved }
        #expect(reanchored.round == .reanchored)
        #expect(reanchored.items.isEmpty && !reanchored.hasProblems, "\(reanchored.items)")
        #expect(reanchored.confirmations == 2, "re-confirmed at the re-anchor")
        try Self.expectTicketsKept(fixture, bytes)
        #expect(try fixture.run { $0.window = moved }.items.isEmpty)
        try Self.expectTicketsKept(fixture, bytes)
    }

    @Test func filesOutsideTheWindowSurviveAResync() throws {
        let fixture = try Self.pushedTickets()
        _ = try fixture.run()
        let bytes = try fixture.folderBytes()
        fixture.standIn.expireDeltaTokens()
        let resync = try fixture.run()
        #expect(resync.round == .resync && resync.items.isEmpty && !resync.hasProblems, "\(resync.items)")
        try Self.expectTicketsKept(fixture, bytes)
        #expect(try fixture.run().items.isEmpty)
        try Self.expectTicketsKept(fixture, bytes)
    }

    @Test func filesOutsideTheWindowSurviveFiveRunsOnAnotherCalendar() throws {
        let base = try EngineFixture()
        let team = base.standIn.addCalendar(name: "Team")
        try base.base.addSingle("Team lunch", day: 3, id: "lunch", calendar: team)
        try base.push.write("my-old-ticket.ics", Self.ticket("old-ticket", day: "20200210", summary: "Old train"))
        let first = try base.run { $0.calendarID = team }
        #expect(EngineFixture.outcomes(first)["my-old-ticket.ics"] == .pushed(.new), "\(first.items)")
        let bytes = try base.folderBytes()
        var reports: [SyncReport] = []
        for _ in 1...5 {
            reports.append(try base.run { $0.calendarID = team })
            #expect(try base.folderBytes() == bytes)
        }
        #expect(EngineFixture.outcomes(reports[0]) == ["my-old-ticket.ics": .outsideWindow], "\(reports[0].items)")
        #expect(reports.dropFirst().allSatisfy { $0.items.isEmpty }, "\(reports.map(\.items))")
        #expect(reports.dropFirst().allSatisfy { $0.confirmations == 0 }, "asked about once, not at every run")
        #expect(base.subjects() == ["Team lunch", "Old train"])
    }

    @Test func anEventOutlookMovesTwoYearsAheadKeepsItsFileWithTheNewTime() throws {
        let fixture = try EngineFixture()
        try fixture.base.addSingle("Lunch", day: 3, id: "lunch")
        _ = try fixture.run()
        try fixture.standIn.changeEvent(
            id: "lunch",
            [
                "start": ["dateTime": "2028-12-04T12:00:00", "timeZone": "UTC"],
                "end": ["dateTime": "2028-12-04T13:00:00", "timeZone": "UTC"],
            ])
        let report = try fixture.run()
        #expect(EngineFixture.outcomes(report) == ["uid-lunch.ics": .outsideWindow], "\(report.items)")
        let text = try fixture.base.text("uid-lunch.ics")
        #expect(text.contains("DTSTART:20281204T120000Z") && text.contains("SUMMARY:Lunch"), "\(text)")
        #expect(try fixture.run().items.isEmpty)
        #expect(try fixture.folder.entry("uid-lunch.ics") != nil)
    }

    @Test func aDeletionInOutlookRemovesTheFileInsideAndOutsideTheWindow() throws {
        let fixture = try Self.pushedTickets()
        try fixture.base.addSingle("Lunch", day: 3, id: "lunch")
        _ = try fixture.run()
        let old = try #require(try fixture.push.record("my-old-ticket.ics")?.graphID)
        try fixture.standIn.removeEvent(id: old)
        try fixture.standIn.removeEvent(id: "lunch")
        let report = try fixture.run()
        #expect(
            EngineFixture.outcomes(report)
                == ["my-old-ticket.ics": .pulled(.deleted), "uid-lunch.ics": .pulled(.deleted)], "\(report.items)")
        #expect(try fixture.folder.scan().map(\.name) == ["far-future-ticket.ics"])
        #expect(try fixture.run().items.isEmpty)
    }

    @Test func aDeletionCostsTheDeltaRoundAndOneBatch() throws {
        let fixture = try EngineFixture()
        try fixture.base.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.base.addSeries()
        _ = try fixture.run()
        try fixture.standIn.removeEvent(id: "lunch")
        var before = fixture.standIn.requests.count
        #expect(EngineFixture.outcomes(try fixture.run()) == ["uid-lunch.ics": .pulled(.deleted)])
        let single = fixture.standIn.requests.dropFirst(before).map(\.path)
        #expect(single.count == 2 && single.last?.hasSuffix("$batch") == true, "\(single)")

        try fixture.standIn.removeEvent(id: "standup")
        before = fixture.standIn.requests.count
        #expect(EngineFixture.outcomes(try fixture.run()) == ["uid-standup.ics": .pulled(.deleted)])
        let series = fixture.standIn.requests.dropFirst(before).map(\.path)
        #expect(series.count == 2, "the delta round and the master's GET, once for four occurrences: \(series)")
    }

    /// Graph's answer while it is unavailable.
    static var unavailable: LoopbackHTTPServer.Response {
        LoopbackHTTPServer.Response(
            status: 503, headers: [("Content-Type", "application/json")],
            body: Data(#"{"error":{"code":"ServiceUnavailable","message":"The service is busy."}}"#.utf8))
    }

    @Test func aFailedConfirmationKeepsTheFileAndAsksAgainNextRun() throws {
        let fixture = try EngineFixture()
        try fixture.base.addSingle("Lunch", day: 3, id: "lunch")
        _ = try fixture.run()
        let bytes = try fixture.folderBytes()
        try fixture.standIn.removeEvent(id: "lunch")
        fixture.standIn.injectFault(.respond(Self.unavailable), forPathContaining: "$batch", times: 50)
        let failed = try fixture.run()
        let line = try #require(failed.lines.first, "\(failed.items)")
        #expect(line.hasPrefix("failed: ") && line.contains("(not confirmed)") && line.contains("Lunch"), "\(line)")
        #expect(failed.hasProblems)
        #expect(try fixture.folderBytes() == bytes, "the file stays")
        #expect(try fixture.push.record("uid-lunch.ics") != nil, "the record stays")

        fixture.standIn.clearFaults()
        let again = try fixture.run()
        #expect(EngineFixture.outcomes(again) == ["uid-lunch.ics": .pulled(.deleted)], "\(again.items)")
        #expect(try fixture.folder.scan().isEmpty)
    }

    @Test func aDryRunAsksGraphAndChangesNothing() throws {
        let fixture = try Self.pushedTickets()
        let bytes = try fixture.folderBytes()
        let dry = try fixture.run { $0.dryRun = true }
        #expect(dry.confirmations == 2 && dry.summary.contains("asked Graph about 2 events"), "\(dry.summary)")
        #expect(EngineFixture.outcomes(dry).values.allSatisfy { $0 == .outsideWindow }, "\(dry.items)")
        #expect(try fixture.folderBytes() == bytes)
        #expect(try fixture.state.items(of: fixture.base.pairing).allSatisfy { !$0.outsideWindow })
    }

    // MARK: The push's own changes

    /// A series synced, its file changed by `edit`, pushed; the next two runs pull nothing.
    func expectPushedSeriesComesBackUnchanged(_ edit: (EngineFixture, inout [String]) throws -> Void) throws {
        let fixture = try EngineFixture()
        try fixture.base.addSeries()
        _ = try fixture.run()
        let name = "uid-standup.ics"
        var lines = try fixture.base.text(name).components(separatedBy: "\r\n").filter { !$0.isEmpty }
        try edit(fixture, &lines)
        try fixture.push.write(name, lines)
        let pushed = try fixture.run()
        #expect(EngineFixture.outcomes(pushed) == [name: .pushed(.changed)], "\(pushed.items)")
        let bytes = try fixture.folderBytes()
        let next = try fixture.run()
        #expect(next.items.isEmpty && !next.hasProblems, "the push's own change came back: \(next.items)")
        #expect(try fixture.folderBytes() == bytes)
        try fixture.editSummary(name, to: "Standup (again)")
        let again = try fixture.run()
        #expect(EngineFixture.outcomes(again) == [name: .pushed(.changed)], "\(again.items)")
        #expect(fixture.subject("standup") == "Standup (again)")
    }

    @Test func aPushedSeriesTitleIsNotPulledBackNorAConflict() throws {
        try expectPushedSeriesComesBackUnchanged { fixture, lines in
            let index = try #require(lines.firstIndex { $0.hasPrefix("SUMMARY:") })
            lines[index] = "SUMMARY:Standup (renamed)"
        }
    }

    @Test func aPushedOverrideIsNotPulledBackNorAConflict() throws {
        try expectPushedSeriesComesBackUnchanged { fixture, lines in
            let end = try #require(lines.lastIndex(of: "END:VCALENDAR"))
            lines.insert(contentsOf: SyncPushSeriesTests.override, at: end)
        }
    }

    @Test func aPushedExdateIsNotPulledBackNorAConflict() throws {
        try expectPushedSeriesComesBackUnchanged { fixture, lines in
            let rrule = try #require(lines.firstIndex { $0.hasPrefix("RRULE:") })
            lines.insert("EXDATE:20261214T090000Z", at: rrule + 1)
        }
    }
}
