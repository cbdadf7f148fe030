import Foundation
import GraphICS
import Testing

@testable import GraphICSSync

/// A `graph-ics sync` (``SyncRun``) with changes on both sides (``TwoWayScenario``) SIGKILLed at a named
/// point of its pull or its push, then run again, ends as a clean sync does: no conflict (none was made
/// on both sides), Graph has every event once with every local edit, and after one more run the folder
/// holds the files a clean sync leaves.
/// One case at a time (`.serialized`): each spawns processes that sync hundreds of files, and dozens at
/// once on a small machine starve the suites that time themselves.
@Suite(.serialized) struct SyncTwoWayKillTests {
    /// The scenario's sync makes 29 requests (the pull's delta round; the push's lookups, creates, reads,
    /// PATCHes and DELETEs; a create's change key is in Graph's answer, not read again) and 17 commits (the pull's batch and delta link, one per push action, the
    /// pairing). Every answered request is a point: a write Graph has made (or a read) that the folder and
    /// the state do not know of yet.
    static let points: [KillPoint] =
        (1...29).map { KillPoint(.afterResponse, $0) } + KillPoint.spread(.beforeRequest, over: 29, count: 6)
        + (1...17).map { KillPoint(.afterCommit, $0) } + KillPoint.spread(.beforeCommit, over: 17, count: 6)

    static func items(_ report: SyncReport, _ test: (SyncReport.Outcome) -> Bool) -> [SyncReport.Item] {
        report.items.filter { test($0.outcome) }
    }

    /// What the run reported as conflicts (an edit there is not lost: it is named).
    static func conflicts(_ report: SyncReport) -> Set<String> {
        Set(items(report) { if case .conflict = $0 { true } else { false } }.map(\.fileName))
    }

    static func failures(_ report: SyncReport) -> [String] {
        items(report) {
            switch $0 {
            case .failed, .refused: true
            default: false
            }
        }.map { "\($0.fileName): \($0.outcome)" }
    }

    static func pushed(_ report: SyncReport) -> [String] {
        items(report) { if case .pushed = $0 { true } else { false } }.map(\.fileName)
    }

    @Test("a clean two-way sync gives Graph every edit once, and the next run leaves the folder as it is")
    func cleanSync() throws {
        let scenario = try TwoWayScenario()
        let run = try scenario.sync()
        #expect(Self.conflicts(run).isEmpty)
        #expect(Self.failures(run).isEmpty)
        #expect(Self.pushed(run).count == 13)
        scenario.expectGraphLikeCleanSync(conflicts: [])
        let settle = try scenario.sync()
        #expect(Self.pushed(settle).isEmpty)
        try scenario.expectFolderLikeCleanSync()
    }

    @Test("a two-way sync killed at a named point converges when run again", arguments: points)
    func killedTwoWaySync(at point: KillPoint) async throws {
        let scenario = try TwoWayScenario()
        let target = KillTarget(scenario.fixture)
        await #expect(processExitsWith: .signal(SIGKILL)) {
            [target = target as KillTarget, point = point as KillPoint] in
            try target.runKilled(at: point, both: true)
        }
        #expect(target.markerText.hasPrefix("reached"), "\(point): \(target.markerText)")
        let rerun = try scenario.sync()
        #expect(Self.failures(rerun).isEmpty)
        // No item changed on both sides: a conflict here would be the kill's (the run's own change taken
        // for Outlook's).
        #expect(Self.conflicts(rerun).isEmpty, "\(Self.conflicts(rerun).sorted())")
        scenario.expectGraphLikeCleanSync(conflicts: Self.conflicts(rerun))
        let settle = try scenario.sync()
        #expect(Self.pushed(settle).isEmpty, "the run after the rerun still sent \(Self.pushed(settle))")
        try scenario.expectFolderLikeCleanSync()
    }
}
