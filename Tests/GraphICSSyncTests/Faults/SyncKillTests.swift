import Foundation
import GraphICS
import Testing

@testable import GraphICSSync

/// A sync SIGKILLed at a named instant and run again ends as a clean sync does. The child process (an
/// exit test) reaches the parent's stand-in over loopback, so Graph's side outlives the kill; the child
/// kills itself at the `n`th request sent or answered, the `n`th state commit (before or after it is
/// durable) or the `n`th pulled batch on disk and not yet recorded. Each point is checked to have been
/// reached (a marker the child writes as it dies), so the sweep cannot pass by never arriving.
/// One case at a time (`.serialized`): each spawns processes that sync hundreds of files, and dozens at
/// once on a small machine starve the suites that time themselves.
@Suite(.serialized) struct SyncKillTests {
    /// A first pull of 301 items in pages of 25 and batches of 10: 14 requests (13 delta pages and the
    /// series' master), 31 batches, 32 commits (one per batch, then the delta link).
    static let firstPullPoints: [KillPoint] =
        KillPoint.spread(.beforeRequest, over: 14, count: 4) + KillPoint.spread(.afterResponse, over: 14, count: 4)
        + KillPoint.spread(.beforeRecording, over: 31, count: 4) + KillPoint.spread(.beforeCommit, over: 32, count: 3)
        + KillPoint.spread(.afterCommit, over: 32, count: 4)

    /// A changes round after 20 moves, 10 removals, 20 additions and a changed occurrence: 5 requests
    /// (delta pages, the series' occurrences and master), 5 batches, 16 commits (the batches, one per
    /// deleted file, the delta link).
    static let changesPoints: [KillPoint] =
        KillPoint.spread(.beforeRequest, over: 5, count: 5) + KillPoint.spread(.afterResponse, over: 5, count: 5)
        + KillPoint.spread(.beforeRecording, over: 5, count: 3) + KillPoint.spread(.beforeCommit, over: 16, count: 3)
        + KillPoint.spread(.afterCommit, over: 16, count: 5)

    @Test("a first pull killed at a named point converges when run again", arguments: firstPullPoints)
    func killedFirstPull(at point: KillPoint) async throws {
        let fixture = try PullFixture()
        try fixture.seedCalendar()
        let target = KillTarget(fixture)
        await #expect(processExitsWith: .signal(SIGKILL)) {
            [target = target as KillTarget, point = point as KillPoint] in
            try target.runKilled(at: point)
        }
        #expect(target.markerText.hasPrefix("reached"), "\(point): \(target.markerText)")
        let report = try fixture.pull().run(window: fixture.window)
        #expect(report.keptLocalChanges.isEmpty, "the kill left a file the rerun took for a local edit")
        #expect(try fixture.folder.scan().count == 301)
        try fixture.expectMatchesCleanPull()
    }

    @Test("a changes round killed at a named point converges when run again", arguments: changesPoints)
    func killedChangesRound(at point: KillPoint) async throws {
        let fixture = try PullFixture()
        try fixture.seedCalendar()
        try fixture.run()
        try fixture.changeCalendarInOutlook()
        let target = KillTarget(fixture)
        await #expect(processExitsWith: .signal(SIGKILL)) {
            [target = target as KillTarget, point = point as KillPoint] in
            try target.runKilled(at: point)
        }
        #expect(target.markerText.hasPrefix("reached"), "\(point): \(target.markerText)")
        let report = try fixture.pull().run(window: fixture.window)
        #expect(report.keptLocalChanges.isEmpty, "the kill left a file the rerun took for a local edit")
        #expect(try fixture.folder.scan().count == 311)
        try fixture.expectMatchesCleanPull()
        #expect(
            try fixture.text(fixture.folder.scan().first { $0.name.contains("standup") }?.name ?? "").contains(
                "moved room"))
    }
}
