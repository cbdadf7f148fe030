import Foundation
import GraphICS
import Testing

@testable import GraphICSSync

/// 150 ticket files outside the window (2020 and 2028), written into a synced folder: a sync SIGKILLed at
/// each point of the two-way kill sweep while it pushes them, or while the next sync asks Graph about them,
/// then run again, ends with 150 files as written, 150 events in Graph, and nothing deleted on either side.
/// One case at a time (`.serialized`), as the other kill suites; under the sanitizers, at every fourth point
/// (``KillPoint/sampled(_:)``).
@Suite(.serialized) struct SyncOutsideWindowKillTests {
    static let count = 150

    /// The points of the next sync after the push: its delta round, the confirming `$batch` requests (150 in
    /// eight), the commits of its marks and its delta link.
    static let confirmingPoints: [KillPoint] =
        (1...9).map { KillPoint(.afterResponse, $0) } + (1...9).map { KillPoint(.beforeRequest, $0) }
        + (1...3).map { KillPoint(.afterCommit, $0) } + (1...3).map { KillPoint(.beforeCommit, $0) }

    /// Writes the tickets as khal writes them (75 in 2020, 75 in 2028); their bytes by file name.
    static func writeTickets(_ fixture: PullFixture) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for index in 0..<count {
            let day = String(
                format: "%04d%02d%02d", index < count / 2 ? 2020 : 2028, 1 + index % 12, 1 + (index / 12) % 28)
            let lines = SyncKeepsFilesTests.ticket("ticket-\(index)@khal.example", day: day, summary: "Ticket \(index)")
            let contents = Data((lines.joined(separator: "\r\n") + "\r\n").utf8)
            let name = "ticket-\(index).ics"
            try contents.write(to: URL(fileURLWithPath: fixture.folder.path + "/" + name))
            files[name] = contents
        }
        return files
    }

    /// One sync in this process.
    @discardableResult
    static func sync(_ fixture: PullFixture) throws -> SyncReport {
        try SyncRun(
            client: fixture.client, state: fixture.state, pairing: try fixture.state.pairing(fixture.pairing.key),
            folder: fixture.folder, stateDirectory: fixture.directory.path, options: SyncOptions(window: fixture.window)
        ).run()
    }

    /// Checks the end: every ticket's file as written, no other file, each ticket once in Graph.
    static func expectKept(
        _ fixture: PullFixture, _ files: [String: Data], reports: [SyncReport],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let names = try fixture.folder.scan().map(\.name)
        #expect(names.sorted() == files.keys.sorted(), "\(names.count) files", sourceLocation: sourceLocation)
        for (name, contents) in files where try fixture.folder.entry(name) != nil {
            #expect(try fixture.folder.read(name).contents == contents, "\(name)", sourceLocation: sourceLocation)
        }
        let subjects = fixture.standIn.events().compactMap { $0["subject"] as? String }
        #expect(subjects.count == count && Set(subjects).count == count, sourceLocation: sourceLocation)
        for report in reports {
            let deleted = report.items.filter {
                $0.outcome == .pulled(.deleted) || $0.outcome == .pushed(.deleted)
            }
            #expect(deleted.isEmpty, "\(deleted)", sourceLocation: sourceLocation)
            #expect(report.problems.isEmpty, "\(report.problems)", sourceLocation: sourceLocation)
        }
    }

    /// Runs the sync in a child killed at `point`, then twice here; checks the end.
    static func killAndRecover(_ fixture: PullFixture, _ files: [String: Data], at point: KillPoint) async throws {
        let target = KillTarget(fixture)
        await #expect(processExitsWith: .signal(SIGKILL)) {
            [target = target as KillTarget, point = point as KillPoint] in
            try target.runKilled(at: point, both: true)
        }
        let rerun = try sync(fixture)
        let settle = try sync(fixture)
        let quiet = try sync(fixture)
        try expectKept(fixture, files, reports: [rerun, settle, quiet])
        #expect(quiet.items.isEmpty, "the third run after the kill still did \(quiet.items)")
    }

    @Test(
        "a sync pushing 150 files outside the window, killed at a point, keeps them all",
        arguments: KillPoint.sampled(SyncTwoWayKillTests.points))
    func killedWhilePushing(at point: KillPoint) async throws {
        let fixture = try PullFixture()
        let files = try Self.writeTickets(fixture)
        try await Self.killAndRecover(fixture, files, at: point)
    }

    @Test(
        "the sync after that push, killed while asking Graph about them, keeps them all",
        arguments: KillPoint.sampled(confirmingPoints))
    func killedWhileConfirming(at point: KillPoint) async throws {
        let fixture = try PullFixture()
        let files = try Self.writeTickets(fixture)
        let pushed = try Self.sync(fixture)
        #expect(pushed.counts == ["pushed new": Self.count], "\(pushed.counts)")
        try await Self.killAndRecover(fixture, files, at: point)
    }
}
