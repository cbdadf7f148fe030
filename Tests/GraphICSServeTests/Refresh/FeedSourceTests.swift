import Foundation
import GraphICS
import GraphICSSync
import GraphStandIn
import ICalBridge
import Testing

@testable import GraphICSServe

/// One feed's refreshes against the stand-in: the primary calendar through delta.
@Suite struct FeedSourceTests {
    @Test func theFirstRefreshBuildsTheBodyAndOneWithoutChangeKeepsItByteForByte() throws {
        let fixture = try FeedFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.addSingle("Review", day: 10, id: "review")
        let source = fixture.source()
        #expect(source.current == nil && source.status == FeedStatus())

        #expect(try source.refresh(now: fixture.now) == .changed)
        let first = try #require(source.current)
        let text = FeedFixture.text(first)
        #expect(text.contains("SUMMARY:Lunch") && text.contains("SUMMARY:Review") && first.eventCount == 2)
        #expect(first.etag == "\"" + SHA256.hexDigest(first.body) + "\"")
        #expect(first.lastModified == fixture.now)
        #expect(source.lastRefresh?.round == .full && source.status.lastSuccess == fixture.now)

        let before = fixture.requestCount
        let later = fixture.now.addingTimeInterval(300)
        #expect(try source.refresh(now: later) == .unchanged)
        #expect(fixture.requestCount == before + 1, "\(fixture.paths(after: before))")
        #expect(fixture.paths(after: before).first?.hasSuffix("/calendarView/delta") == true)
        #expect(source.current == first, "the same bytes, ETag and Last-Modified")
        #expect(source.lastRefresh == FeedRefreshReport(round: .changes, requests: 1, rendered: false))
        #expect(source.status.lastSuccess == later)
    }

    @Test func anOutlookChangeAndADeletionChangeTheBodyAndItsETag() throws {
        let fixture = try FeedFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.addSingle("Review", day: 10, id: "review")
        let source = fixture.source()
        try source.refresh(now: fixture.now)
        let first = try #require(source.current)

        try fixture.standIn.changeEvent(id: "lunch", ["subject": "Long lunch"])
        let later = fixture.now.addingTimeInterval(300)
        #expect(try source.refresh(now: later) == .changed)
        let changed = try #require(source.current)
        #expect(FeedFixture.text(changed).contains("SUMMARY:Long lunch") && changed.etag != first.etag)
        #expect(changed.lastModified == later && source.lastRefresh?.rendered == true)

        try fixture.standIn.removeEvent(id: "review")
        #expect(try source.refresh(now: later.addingTimeInterval(300)) == .changed)
        let removed = try #require(source.current)
        #expect(!FeedFixture.text(removed).contains("Review") && removed.eventCount == 1)
        #expect(try removed.body == fixture.exported(fixture.target()))
    }

    @Test func aChangeTheFeedDoesNotShowRendersTheSameBytesAndKeepsTheETag() throws {
        let fixture = try FeedFixture()
        try fixture.addSingle(
            "Lunch", day: 3, id: "lunch", extra: ["body": ["contentType": "text", "content": "Soup"]])
        let source = fixture.source()
        try source.refresh(now: fixture.now)
        let first = try #require(source.current)
        #expect(!FeedFixture.text(first).contains("Soup"), "limited detail shows no body")

        try fixture.standIn.changeEvent(id: "lunch", ["body": ["contentType": "text", "content": "Salad"]])
        #expect(try source.refresh(now: fixture.now.addingTimeInterval(60)) == .unchanged)
        #expect(source.lastRefresh?.rendered == true, "a new change key renders again")
        #expect(source.current == first, "same bytes, same ETag, same Last-Modified")
    }

    @Test func graphsAnswer410ReadsTheWholeWindowAgainAndKeepsAnUnchangedBody() throws {
        let fixture = try FeedFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        let source = fixture.source()
        try source.refresh(now: fixture.now)
        let first = try #require(source.current)

        fixture.standIn.expireDeltaTokens()
        #expect(try source.refresh(now: fixture.now.addingTimeInterval(60)) == .unchanged)
        #expect(source.lastRefresh?.round == .full && source.lastRefresh?.rendered == false)
        #expect(source.current == first)

        // The new round's link works: the next refresh is one request again.
        try fixture.standIn.changeEvent(id: "lunch", ["subject": "Brunch"])
        let before = fixture.requestCount
        #expect(try source.refresh(now: fixture.now.addingTimeInterval(120)) == .changed)
        #expect(fixture.requestCount == before + 1 && FeedFixture.text(source.current).contains("SUMMARY:Brunch"))
    }

    @Test func aNewDayMovesTheWindowWithAWholeRound() throws {
        let fixture = try FeedFixture()
        try fixture.addSingle("First", day: 1, id: "first")
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        let source = fixture.source()
        try source.refresh(now: fixture.now)
        #expect(FeedFixture.text(source.current).contains("SUMMARY:First"))

        let tomorrow = fixture.now.addingTimeInterval(86_400)
        #expect(try source.refresh(now: tomorrow) == .changed)
        #expect(source.lastRefresh?.round == .full)
        let text = FeedFixture.text(source.current)
        #expect(!text.contains("SUMMARY:First") && text.contains("SUMMARY:Lunch"), "1 December left the window")
    }

    @Test func manyPagesAreReadAndCounted() throws {
        let fixture = try FeedFixture()
        try fixture.standIn.addEvents(count: 25, from: fixture.windowStart, to: fixture.windowEnd)
        let source = fixture.source(pageSize: 10)
        try source.refresh(now: fixture.now)
        #expect(source.current?.eventCount == 25 && source.lastRefresh?.requests == 3)
    }

    @Test func theBodyIsWhatExportWritesForTheSameWindowAndSelection() throws {
        let fixture = try FeedFixture()
        try fixture.addSingle(
            "Lunch", day: 3, id: "lunch",
            extra: [
                "body": ["contentType": "text", "content": "Soup"], "location": ["displayName": "Canteen"],
                "showAs": "tentative",
            ])
        try fixture.addSingle("Doctor", day: 4, id: "doctor", extra: ["sensitivity": "private"])
        try fixture.addSingle("Review", day: 10, id: "review", extra: ["categories": ["Work"]])
        for selection in [
            EventSelection.everything, FeedDefinition.defaultSelection,
            EventSelection(detail: .busy, showPrivate: false),
            EventSelection(detail: .full, showPrivate: true, categories: ["work"]),
        ] {
            let target = fixture.target(selection: selection, name: "feed-\(selection.detail)")
            let source = fixture.source(target)
            try source.refresh(now: fixture.now)
            let body = try #require(source.current?.body)
            #expect(try body == fixture.exported(target), "\(selection)")
        }
    }
}
