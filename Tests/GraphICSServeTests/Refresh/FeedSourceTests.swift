import Foundation
import GraphICS
import GraphICSSync
import GraphStandIn
import ICalBridge
import TestSupport
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
        try fixture.addSingle("Review", day: 10, id: "review", extra: ["categories": ["Work"]])
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        let source = fixture.source(fixture.target(selection: EventSelection(detail: .limited, categories: ["Work"])))
        try source.refresh(now: fixture.now)
        let first = try #require(source.current)
        #expect(!FeedFixture.text(first).contains("Lunch"), "only the Work category")

        try fixture.standIn.changeEvent(id: "lunch", ["subject": "Brunch"])
        #expect(try source.refresh(now: fixture.now.addingTimeInterval(60)) == .unchanged)
        #expect(source.lastRefresh?.rendered == true, "a new change key renders again")
        #expect(source.current == first, "same bytes, same ETag, same Last-Modified")
    }

    @Test func aWholeRoundAfterGraphs410KeepsAnUnchangedBodyAndETag() throws {
        let fixture = try FeedFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        let source = fixture.source()
        try source.refresh(now: fixture.now)
        let first = try #require(source.current)

        fixture.standIn.expireDeltaTokens()
        #expect(try source.refresh(now: fixture.now.addingTimeInterval(60)) == .unchanged)
        #expect(source.lastRefresh?.round == .full && source.lastRefresh?.rendered == false)
        #expect(source.current == first)
    }

    @Test func aNewDayMovesTheWindowFromTheMirrorWithOneRequest() throws {
        let fixture = try FeedFixture()
        try fixture.addSingle("First", day: 1, id: "first")
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        let source = fixture.source()
        try source.refresh(now: fixture.now)
        #expect(FeedFixture.text(source.current).contains("SUMMARY:First"))

        let tomorrow = fixture.now.addingTimeInterval(86_400)
        #expect(try source.refresh(now: tomorrow) == .changed)
        #expect(source.lastRefresh?.round == .full && source.lastRefresh?.requests == 1, "no whole Graph round")
        let text = FeedFixture.text(source.current)
        #expect(!text.contains("SUMMARY:First") && text.contains("SUMMARY:Lunch"), "1 December left the window")
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
        try fixture.addSingle("Focus", day: 11, id: "focus", extra: ["showAs": "free"])
        try fixture.addSeries()
        try fixture.standIn.changeEvent(id: "standup-14", ["subject": "Standup with demo"])
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
            #expect(
                source.current?.eventCount == (selection.detail == .busy ? 7 : selection.categories.isEmpty ? 8 : 1))
        }
    }

    @Test func privateEventsAreBusyBlocksInANewFeed() throws {
        let fixture = try FeedFixture()
        try fixture.addSingle(
            "Doctor", day: 4, id: "doctor",
            extra: ["sensitivity": "private", "location": ["displayName": "Clinic"]])
        try fixture.addSingle("Lunch", day: 3, id: "lunch", extra: ["location": ["displayName": "Canteen"]])
        let source = fixture.source()
        try source.refresh(now: fixture.now)
        let text = FeedFixture.text(source.current)
        #expect(text.contains("SUMMARY:Lunch") && text.contains("LOCATION:Canteen"))
        #expect(!text.contains("Doctor") && !text.contains("Clinic") && text.contains("SUMMARY:Busy"), "\(text)")
    }

    @Test func refreshesAtOnceRunOneAfterTheOtherAndReadersNeverWait() throws {
        let fixture = try FeedFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        let source = fixture.source()
        let outcomes = Locked<[FeedRefreshOutcome]>([])
        let reads = Locked(0)
        let now = fixture.now
        DispatchQueue.concurrentPerform(iterations: 5) { index in
            if index == 0 {
                for _ in 0..<200 where source.current.map({ !$0.body.isEmpty }) ?? true { reads.mutate { $0 += 1 } }
                return
            }
            if let outcome = try? source.refresh(now: now) { outcomes.mutate { $0.append(outcome) } }
        }
        #expect(outcomes.value.sorted { "\($0)" < "\($1)" } == [.changed, .unchanged, .unchanged, .unchanged])
        #expect(reads.value == 200)
    }
}
