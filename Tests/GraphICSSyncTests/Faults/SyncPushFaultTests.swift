import Foundation
import GraphICS
import GraphStandIn
import Testing

@testable import GraphICSSync

/// A whole `graph-ics sync` (``SyncRun``) against Graph's failures while it pushes (issue 14, item 8):
/// throttling, unavailability and dropped connections are waited out and the run completes with every
/// change sent once; at most four requests are in flight; a refused sign-in stops the run before it
/// changes anything.
@Suite struct SyncPushFaultTests {
    static func run(_ fixture: PullFixture) throws -> SyncReport {
        try SyncRun(
            client: fixture.client, state: fixture.state, pairing: fixture.state.pairing(fixture.pairing.key),
            folder: fixture.folder, stateDirectory: fixture.directory.path, options: SyncOptions(window: fixture.window)
        ).run()
    }

    static func problems(_ report: SyncReport) -> [String] {
        report.items.filter(\.isProblem).map { "\($0.fileName): \($0.outcome)" }
    }

    /// 40 new files, as khal writes them, one a day-hour of December 2026.
    static func writeNewFiles(_ fixture: PullFixture, count: Int = 40) throws {
        for index in 0..<count {
            let day = String(format: "%02d", 1 + index % 28)
            let hour = String(format: "%02d", 8 + index / 28)
            let text = [
                "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//pimutils//khal//EN", "BEGIN:VEVENT",
                "UID:big-push-\(index)@khal.example", "DTSTAMP:20261120T100000Z", "DTSTART:202612\(day)T\(hour)0000Z",
                "DTEND:202612\(day)T\(hour)3000Z", "SUMMARY:Pushed \(index)", "END:VEVENT", "END:VCALENDAR", "",
            ].joined(separator: "\r\n")
            try fixture.directory.write(text, to: "calendar/big-push-\(index).ics")
        }
    }

    static func subjects(_ standIn: GraphStandIn, prefix: String) -> [String] {
        standIn.events().compactMap { $0["subject"] as? String }.filter { $0.hasPrefix(prefix) }
    }

    @Test("a big push throttled with Retry-After keeps at most 4 requests in flight and sends every file once")
    func throttledBigPush() throws {
        let fixture = try PullFixture()
        try fixture.seedCalendar()
        _ = try Self.run(fixture)
        try Self.writeNewFiles(fixture)
        fixture.standIn.mailboxConcurrencyLimit = 4
        fixture.standIn.latency = .milliseconds(10)
        fixture.standIn.throttleEvery = 7
        fixture.standIn.retryAfter = .milliseconds(200)
        let report = try Self.run(fixture)
        #expect(Self.problems(report).isEmpty, "\(Self.problems(report))")
        #expect(fixture.standIn.throttledCount > 0)
        #expect(fixture.standIn.retryAfterViolations == 0)
        #expect(fixture.standIn.maxInFlightPerMailbox <= 4)
        let pushed = Self.subjects(fixture.standIn, prefix: "Pushed ")
        #expect(pushed.count == 40 && Set(pushed).count == 40, "\(pushed.count) events for 40 files")
        #expect(try fixture.state.items(of: fixture.pairing).count == 341)
    }

    @Test("503s and a dropped connection while pushing are retried and every change lands once")
    func unavailableWhilePushing() throws {
        let scenario = try TwoWayScenario()
        let standIn = scenario.fixture.standIn
        standIn.injectFault(SyncPullFaultTests.graphError(503, "ServiceUnavailable"), forPathContaining: "$batch")
        standIn.injectFault(.closeConnection, forPathContaining: "$batch")
        standIn.injectFault(SyncPullFaultTests.graphError(503, "ServiceUnavailable"), forPathContaining: "/events/")
        standIn.injectFault(.closeConnection, forPathContaining: "/events/")
        let report = try scenario.sync()
        #expect(Self.problems(report).isEmpty, "\(Self.problems(report))")
        let statuses = standIn.requests.map(\.status)
        #expect(statuses.contains(503) && statuses.contains(nil), "the faults were not met")
        scenario.expectGraphLikeCleanSync(conflicts: [])
        _ = try scenario.sync()
        try scenario.expectFolderLikeCleanSync()
    }

    @Test("a sign-in refused at the start of a two-way sync fails it and leaves folder and state untouched")
    func refusedSignIn() throws {
        let scenario = try TwoWayScenario()
        let fixture = scenario.fixture
        let rows = try StateRows(fixture.state)
        let files = try FolderFiles(fixture.folder.path)
        fixture.standIn.revokeAllTokens()
        #expect {
            try scenario.sync()
        } throws: { error in
            SyncPullFaultTests.isSignInFailure(error)
        }
        #expect(try StateRows(fixture.state) == rows)
        #expect(try FolderFiles(fixture.folder.path) == files)
    }

    @Test("a sign-in refused in the middle of a push stops it with what was sent recorded; a rerun converges")
    func refusedMidPush() throws {
        let scenario = try TwoWayScenario()
        let fixture = scenario.fixture
        // The first request about the event of one deleted file is refused (the token cannot be refreshed).
        let id = try #require(
            fixture.standIn.events().first { ($0["subject"] as? String) == "Event 251" }?["id"] as? String)
        fixture.standIn.injectFault(
            SyncPullFaultTests.graphError(401, "InvalidAuthenticationToken"), forPathContaining: "/events/\(id)")
        let before = fixture.standIn.requests.count
        #expect {
            try scenario.sync()
        } throws: { error in
            SyncPullFaultTests.isSignInFailure(error)
        }
        let sent = fixture.standIn.requests.dropFirst(before).prefix { $0.status != 401 }.filter { $0.method != "GET" }
        #expect(!sent.isEmpty, "nothing was sent before the refusal")
        // Nothing recorded that Graph does not have.
        for record in try fixture.state.items(of: fixture.pairing) {
            let id = try #require(record.graphID)
            #expect(fixture.standIn.event(id: id) != nil, "\(record.fileName) recorded, not in Graph")
        }
        let rerun = try scenario.sync()
        #expect(Self.problems(rerun).isEmpty, "\(Self.problems(rerun))")
        scenario.expectGraphLikeCleanSync(conflicts: [])
        _ = try scenario.sync()
        try scenario.expectFolderLikeCleanSync()
    }
}
