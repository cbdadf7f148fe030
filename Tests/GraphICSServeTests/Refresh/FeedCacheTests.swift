import Foundation
import GraphICS
import ICalBridge
import Testing

@testable import GraphICSServe

/// The disk cache: a restarted serve answers at once and resumes the delta.
@Suite struct FeedCacheTests {
    @Test func aRestartServesTheCachedBodyAtOnceAndResumesTheDelta() throws {
        let fixture = try FeedFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        let first = fixture.source()
        try first.refresh(now: fixture.now)
        let body = try #require(first.current)

        let restarted = fixture.source()
        #expect(restarted.current == body, "served before any request")
        let before = fixture.requestCount
        #expect(try restarted.refresh(now: fixture.now.addingTimeInterval(3600)) == .unchanged)
        #expect(fixture.requestCount == before + 1 && restarted.lastRefresh?.round == .changes)
        #expect(restarted.lastRefresh?.rendered == false && restarted.current == body)

        try fixture.standIn.changeEvent(id: "lunch", ["subject": "Brunch"])
        #expect(try restarted.refresh(now: fixture.now.addingTimeInterval(7200)) == .changed)
        let again = fixture.source()
        #expect(FeedFixture.text(again.current).contains("SUMMARY:Brunch"), "each change is written")
        #expect(again.current?.lastModified == fixture.now.addingTimeInterval(7200))
    }

    /// A cache written before feeds read through the calendar's mirror: `events.json` ends with Graph's
    /// delta link, `state.json` has no cursor, and no mirror exists.
    @Test func aCacheWrittenBeforeTheMirrorIsServedAtOnceAndItsBodyKept() throws {
        let fixture = try FeedFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.addSeries()
        let first = fixture.source()
        try first.refresh(now: fixture.now)
        let body = try #require(first.current)
        let folder = first.cache.directory
        var record =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/state.json")))
            as? [String: Any]
        #expect(record?["cursor"] != nil)
        record?["cursor"] = nil
        try JSONSerialization.data(withJSONObject: record ?? [:], options: [.sortedKeys])
            .write(to: URL(fileURLWithPath: folder + "/state.json"))
        var page = try String(contentsOfFile: folder + "/events.json", encoding: .utf8)
        page.removeLast()
        page += #","@odata.deltaLink":"https://graph.microsoft.com/v1.0/me/calendarView/delta?$deltatoken=old"}"#
        try page.write(toFile: folder + "/events.json", atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(at: fixture.state.url.appendingPathComponent("mirrors"))

        let restarted = fixture.source()
        #expect(restarted.current == body, "served before any request")
        #expect(try restarted.refresh(now: fixture.now.addingTimeInterval(3600)) == .unchanged)
        #expect(restarted.current == body && restarted.lastRefresh?.rendered == false, "same bytes, same ETag")
    }

    @Test func aCachedBodyOfAnotherSelectionIsNeverServed() throws {
        let fixture = try FeedFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.source(fixture.target(selection: .everything)).refresh(now: fixture.now)

        let busy = fixture.source(fixture.target(selection: EventSelection(detail: .busy, showPrivate: false)))
        #expect(busy.current == nil, "the full body must not stand in for a busy one")
        let before = fixture.requestCount
        #expect(try busy.refresh(now: fixture.now) == .changed)
        #expect(fixture.requestCount == before + 1, "the events and delta link are still good")
        #expect(
            try busy.current?.body
                == fixture.exported(fixture.target(selection: EventSelection(detail: .busy, showPrivate: false))))
    }

    @Test func feedsOfOtherNamesOrCalendarsKeepCopiesOfTheirOwn() throws {
        let fixture = try FeedFixture()
        let team = fixture.standIn.addCalendar(name: "Team")
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.addSingle("Planning", day: 2, id: "planning", calendar: team)
        try fixture.source(fixture.target(name: "a")).refresh(now: fixture.now)
        try fixture.source(fixture.target(calendar: team, name: "a-team")).refresh(now: fixture.now)
        #expect(fixture.source(fixture.target(name: "b")).current == nil)
        #expect(FeedFixture.text(fixture.source(fixture.target(name: "a")).current).contains("Lunch"))
        #expect(
            FeedFixture.text(fixture.source(fixture.target(calendar: team, name: "a-team")).current).contains(
                "Planning"))
        let folders = try FileManager.default.contentsOfDirectory(atPath: fixture.state.path("feeds")).sorted()
        #expect(folders.count == 2 && folders.allSatisfy { $0.hasPrefix("a-") }, "\(folders)")
        #expect(fixture.state.mode("feeds") == 0o700)
    }

    @Test func eventsWrittenWithoutTheirRecordAreNotTrusted() throws {
        let fixture = try FeedFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        let first = fixture.source()
        try first.refresh(now: fixture.now)
        let good = try #require(first.current)
        let folder = try #require(
            try FileManager.default.contentsOfDirectory(atPath: fixture.state.path("feeds")).first)
        let files = ["feed.ics", "state.json"].map { fixture.state.path("feeds/\(folder)/\($0)") }
        let kept = try files.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        try fixture.standIn.changeEvent(id: "lunch", ["subject": "Brunch"])
        try first.refresh(now: fixture.now.addingTimeInterval(60))
        // A crash after events.json was replaced and before the body and state.json were: the old body and
        // record beside the new events.
        for (file, data) in zip(files, kept) { try data.write(to: URL(fileURLWithPath: file)) }

        let restarted = fixture.source()
        #expect(restarted.current == good, "the old body still matches its record")
        #expect(try restarted.refresh(now: fixture.now.addingTimeInterval(120)) == .changed)
        #expect(restarted.lastRefresh?.round == .full, "events the record does not vouch for are read again")
        #expect(FeedFixture.text(restarted.current).contains("SUMMARY:Brunch"))
    }

    @Test func aDamagedBodyIsNotServed() throws {
        let fixture = try FeedFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.source().refresh(now: fixture.now)
        let folder = try #require(
            try FileManager.default.contentsOfDirectory(atPath: fixture.state.path("feeds")).first)
        try Data("BEGIN:VCALENDAR\r\n".utf8).write(
            to: URL(fileURLWithPath: fixture.state.path("feeds/\(folder)/feed.ics")))
        let restarted = fixture.source()
        #expect(restarted.current == nil)
        #expect(
            try restarted.refresh(now: fixture.now) == .changed && FeedFixture.text(restarted.current).contains("Lunch")
        )
    }
}
