import Foundation
import ICalBridge
import Testing

@testable import GraphICSServe

@Suite struct FeedTargetTests {
    private func target(_ zone: ResolvedZone, past: Int, future: Int) -> FeedTarget {
        FeedTarget(definition: FeedDefinition(name: "a", pastDays: past, futureDays: future), zone: zone)
    }

    @Test func theWindowIsWholeDaysAroundTodayInTheFeedsZone() throws {
        let berlin = try #require(ResolvedZone.iana("Europe/Berlin"))
        // 2026-03-28T23:30:00Z is already Sunday 29 March in Berlin (00:30 CET; clocks go forward at 02:00).
        let now = Date(timeIntervalSince1970: 1_774_740_600)
        let window = target(berlin, past: 1, future: 1).window(at: now)
        // From Saturday 28 March 00:00 CET (27 March 23:00Z) to Tuesday 31 March 00:00 CEST (30 March 22:00Z).
        #expect(window.start == 1_774_652_400 && window.end == 1_774_908_000)

        let utc = target(.utc, past: 0, future: 0).window(at: now)
        #expect(utc.start == 1_774_656_000 && utc.end == 1_774_742_400, "28 March in UTC, one day")
    }

    @Test func theWindowMovesOnlyAtMidnight() {
        let feed = target(.utc, past: 30, future: 365)
        let morning = Date(timeIntervalSince1970: 1_796_083_200 + 60)
        let evening = Date(timeIntervalSince1970: 1_796_083_200 + 86_399)
        #expect(feed.window(at: morning) == feed.window(at: evening))
        #expect(feed.window(at: evening.addingTimeInterval(1)) != feed.window(at: evening))
        #expect(feed.window(at: morning).end - feed.window(at: morning).start == 396 * 86_400)
    }
}
