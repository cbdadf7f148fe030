import Foundation
import GraphICS
import GraphStandIn
import Testing

@testable import GraphICSSync

/// The pull half of `sync` against Graph's failures (issue 14, item 8): throttling and unavailability are
/// waited out and the run completes as a clean one does; a refused sign-in fails the run and touches
/// neither the folder nor the state; a full disk fails the run with an I/O error, leaves the state
/// agreeing with the files, and the next run converges.
@Suite struct SyncPullFaultTests {
    static func graphError(_ status: Int, _ code: String, retryAfter: String? = nil) -> LoopbackHTTPServer.Action {
        var response = LoopbackHTTPServer.Response.json(status, ["error": ["code": code, "message": "stand-in fault"]])
        if let retryAfter { response.headers.append(("Retry-After", retryAfter)) }
        return .respond(response)
    }

    /// What the command turns into exit status 77: a token the identity platform or Graph refused.
    static func isSignInFailure(_ error: any Error) -> Bool {
        (error as? AuthError)?.code == .tokenRejected || (error as? GraphError)?.kind == .unauthorized
    }

    /// The delta requests the stand-in received, in order.
    static func deltaRequests(_ fixture: PullFixture) -> [GraphStandIn.RecordedRequest] {
        fixture.standIn.requests.filter { $0.path.hasSuffix("/delta") }
    }

    @Test("a first pull throttled with Retry-After waits as told and completes")
    func throttledFirstPull() throws {
        let fixture = try PullFixture()
        try fixture.seedCalendar()
        fixture.standIn.throttleEvery = 3
        fixture.standIn.retryAfter = .milliseconds(300)
        var pull = fixture.pull()
        pull.pageSize = 25
        _ = try pull.run(window: fixture.window)
        #expect(fixture.standIn.throttledCount >= 4)
        #expect(fixture.standIn.retryAfterViolations == 0)
        fixture.standIn.throttleEvery = nil
        try fixture.expectMatchesCleanPull()
    }

    @Test("a changes round answered 429 with Retry-After, then 503, is sent again after the wait and completes")
    func throttledChangesRound() throws {
        let fixture = try PullFixture()
        try fixture.seedCalendar()
        try fixture.run()
        try fixture.changeCalendarInOutlook()
        let before = Self.deltaRequests(fixture).count
        fixture.standIn.injectFault(
            Self.graphError(429, "TooManyRequests", retryAfter: "1"), forPathContaining: "delta")
        fixture.standIn.injectFault(Self.graphError(503, "ServiceUnavailable"), forPathContaining: "delta", times: 2)
        let report = try fixture.run()
        #expect(report.round == .changes)
        let round = Self.deltaRequests(fixture).dropFirst(before).map { $0 }
        #expect(round.map(\.status).prefix(4) == [429, 503, 503, 200])
        if round.count >= 2 {
            #expect(round[1].receivedAt.timeIntervalSince(round[0].receivedAt) >= 1.0, "Retry-After: 1 not waited")
        }
        #expect(report.pulled.count == 51)
        try fixture.expectMatchesCleanPull()
    }

    @Test("a connection dropped in the middle of a delta round is retried and the round completes")
    func droppedConnection() throws {
        let fixture = try PullFixture()
        try fixture.seedCalendar()
        fixture.standIn.injectFault(.closeConnection, forPathContaining: "skiptoken", times: 2)
        var pull = fixture.pull()
        pull.pageSize = 25
        _ = try pull.run(window: fixture.window)
        #expect(Self.deltaRequests(fixture).contains { $0.status == nil }, "no connection was dropped")
        try fixture.expectMatchesCleanPull()
    }

    @Test("an expired sign-in fails the changes round as a sign-in failure and leaves folder and state untouched")
    func expiredSignIn() throws {
        let fixture = try PullFixture()
        try fixture.seedCalendar()
        try fixture.run()
        try fixture.changeCalendarInOutlook()
        let rows = try StateRows(fixture.state)
        let files = try FolderFiles(fixture.folder.path)
        fixture.standIn.expireAccessTokens()
        #expect {
            try fixture.run()
        } throws: { error in
            Self.isSignInFailure(error)
        }
        #expect(try StateRows(fixture.state) == rows)
        #expect(try FolderFiles(fixture.folder.path) == files)
    }

    @Test("a sign-in refused halfway through a first round's pages writes no file and records nothing")
    func refusedMidRound() throws {
        let fixture = try PullFixture()
        try fixture.seedCalendar()
        let rows = try StateRows(fixture.state)
        fixture.standIn.injectFault(
            Self.graphError(401, "InvalidAuthenticationToken"), forPathContaining: "skiptoken", times: 2)
        var pull = fixture.pull()
        pull.pageSize = 25
        #expect {
            try pull.run(window: fixture.window)
        } throws: { error in
            Self.isSignInFailure(error)
        }
        #expect(try StateRows(fixture.state) == rows)
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.folder.path).isEmpty)
    }

    @Test(
        "a disk that fills while files are written fails with an I/O error; the state matches the disk; a rerun converges"
    )
    func diskFull() async throws {
        let fixture = try PullFixture()
        try fixture.seedCalendar()
        // One event whose file is larger than the child may write (RLIMIT_FSIZE stands in for a full disk:
        // write(2) fails with EFBIG, the same path as ENOSPC).
        try fixture.standIn.addEvent([
            "id": "huge", "subject": "Huge", "iCalUId": "uid-huge",
            "body": ["contentType": "text", "content": String(repeating: "All work and no play. ", count: 100_000)],
            "start": ["dateTime": "2026-12-12T10:00:00", "timeZone": "UTC"],
            "end": ["dateTime": "2026-12-12T11:00:00", "timeZone": "UTC"],
        ])
        // The calendar's mirror already holds the events (read before the limit), so the limit meets the files.
        _ = try fixture.pull().mirror.read(consumer: "warm-up", window: fixture.window, since: nil)
        let target = KillTarget(fixture)
        await #expect(processExitsWith: .exitCode(74)) { [target = target as KillTarget] in
            signal(SIGXFSZ, SIG_IGN)
            var limit = rlimit()
            getrlimit(RLIMIT_FSIZE_VALUE, &limit)
            limit.rlim_cur = 1 << 20
            setrlimit(RLIMIT_FSIZE_VALUE, &limit)
            do {
                _ = try target.pull().run(window: target.syncWindow)
            } catch let error as SyncStoreError where error.code == .io {
                print("io: \(error)")
                exit(74)
            }
        }
        let records = try fixture.state.items(of: fixture.pairing)
        #expect(!records.isEmpty, "the batches before the full disk are recorded")
        #expect(!records.contains { $0.fileName.contains("huge") })
        for record in records {
            #expect(try fixture.folder.read(record.fileName).sha256 == record.sha256, "\(record.fileName)")
        }
        #expect(
            try fixture.state.deltaCheckpoint(of: fixture.pairing) == nil, "the delta link moved past a failed write")
        let report = try fixture.run()
        #expect(report.keptLocalChanges.isEmpty)
        #expect(try fixture.folder.scan().count == 302)
        try fixture.expectMatchesCleanPull()
    }
}

/// `RLIMIT_FSIZE` as `setrlimit` takes it on glibc (an enum there).
let RLIMIT_FSIZE_VALUE = __rlimit_resource_t(RLIMIT_FSIZE.rawValue)
