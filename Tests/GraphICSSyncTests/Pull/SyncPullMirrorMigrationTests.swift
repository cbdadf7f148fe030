import Foundation
import GraphICS
import GraphICSMirror
import GraphStandIn
import Testing

@testable import GraphICSSync

/// A pairing synced by graph-ics before the mirror: its checkpoint holds Graph's delta link itself and no
/// mirror exists. The first sync after the upgrade reads the window into a new mirror, compares it with
/// the records, and sends nothing and rewrites nothing.
@Suite struct SyncPullMirrorMigrationTests {
    @Test func theFirstSyncAfterTheUpgradeWritesNothingAndTheNextOneResumes() throws {
        let fixture = try PullFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.addSingle("Review", day: 10, id: "review")
        try fixture.addSeries()
        try fixture.run()
        let times = try fixture.modificationTimes()
        let records = try fixture.state.items(of: fixture.pairing)
        let stored = try #require(try fixture.state.deltaCheckpoint(of: fixture.pairing))
        // What the binary before the mirror left: the delta link in the checkpoint, and no mirrors folder.
        let oldLink = fixture.standIn.baseURL + "/v1.0/me/calendarView/delta?$deltatoken=written-by-0.9"
        try fixture.state.saveDeltaCheckpoint(
            DeltaCheckpoint(link: oldLink, window: stored.window), for: fixture.pairing)
        let mirrors = (fixture.state.database.path as NSString).deletingLastPathComponent + "/mirrors"
        try FileManager.default.removeItem(atPath: mirrors)

        let before = fixture.requestCount
        let upgraded = try fixture.run()
        #expect(upgraded.pulled.isEmpty && upgraded.outsideWindow.isEmpty, "\(upgraded.pulled)")
        #expect(try fixture.modificationTimes() == times, "no file rewritten")
        #expect(try fixture.state.items(of: fixture.pairing) == records)
        let methods = Set(fixture.standIn.operations.dropFirst(before).map(\.method))
        #expect(methods == ["GET"], "reads only: \(methods)")
        #expect(!fixture.standIn.operations.dropFirst(before).contains { $0.target.contains("written-by-0.9") })
        let link = try #require(try fixture.state.deltaCheckpoint(of: fixture.pairing)?.link)
        #expect(MirrorCursor(link) != nil, "the checkpoint is now a cursor into the mirror")

        let quiet = fixture.requestCount
        let next = try fixture.run()
        #expect(next.round == .changes && next.pulled.isEmpty && fixture.requestCount == quiet + 1)
    }
}
