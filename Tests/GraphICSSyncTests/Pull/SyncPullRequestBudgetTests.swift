import Foundation
import GraphStandIn
import Testing

@testable import GraphICSSync

/// What a pull asks Graph for a series with a cancelled occurrence: the series' occurrences in the window come
/// with the round (delta, or `instances` in a changes round), so the export's look-up of the missing
/// occurrence (moved, or cancelled?) is answered from them and costs no request of its own, as long as the
/// look-up (from two occurrences before to two after, else a month) stays inside the window.
@Suite struct SyncPullRequestBudgetTests {
    /// The requests served since `start`, as `METHOD path`.
    static func requests(_ fixture: PullFixture, since start: Int) -> [String] {
        fixture.standIn.operations.dropFirst(start).map { "\($0.method) \($0.path)" }
    }

    @Test func aFirstPullOfASeriesWithACancelledOccurrenceReadsTheRoundAndTheMasterOnly() throws {
        let fixture = try PullFixture()
        try fixture.addSeries()
        try fixture.standIn.removeEvent(id: "standup-21")
        try fixture.run()
        let asked = Self.requests(fixture, since: 0)
        #expect(asked.count == 2, "the delta page and the master: \(asked)")
        #expect(!asked.contains { $0.hasSuffix("/instances") }, "\(asked)")
        #expect(try fixture.text("uid-standup.ics").contains("EXDATE:20261221T090000Z"))
    }

    @Test func aChangedOccurrenceOfASeriesWithACancelledOneCostsThreeRequests() throws {
        let fixture = try PullFixture()
        try fixture.addSeries()
        try fixture.standIn.removeEvent(id: "standup-21")
        try fixture.run()
        let before = fixture.standIn.operations.count
        try fixture.standIn.changeEvent(id: "standup-14", ["subject": "Standup with demo"])
        let report = try fixture.run()
        let asked = Self.requests(fixture, since: before)
        #expect(report.pulled.map(\.fileName) == ["uid-standup.ics"])
        #expect(asked.count == 3, "the delta link, the master and its instances once: \(asked)")
        let text = try fixture.text("uid-standup.ics")
        #expect(text.contains("EXDATE:20261221T090000Z") && text.contains("SUMMARY:Standup with demo"))
    }
}
