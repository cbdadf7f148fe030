import Foundation
import GraphICS
import GraphStandIn
import TestSupport
import Testing

@testable import GraphICSMirror

#if canImport(Glibc)
    import Glibc
#endif

/// The stand-in with one user, a client for it, a fresh state folder, and December 2026.
private final class MirrorFixture {
    let standIn: GraphStandIn
    let client: GraphClient
    let directory: TemporaryDirectory
    /// 2026-12-01T00:00:00Z to 2027-01-01T00:00:00Z.
    let december = SyncWindow(start: 1_796_083_200, end: 1_796_083_200 + 31 * 86_400)

    init() throws {
        standIn = try GraphStandIn()
        standIn.addUser(displayName: "Ada Lovelace", mail: "ada@contoso.example", mailboxTimeZone: "UTC")
        guard let base = URL(string: standIn.baseURL) else { throw CocoaError(.fileReadInvalidFileName) }
        client = GraphClient(
            baseURL: base, transport: CurlTransport(defaultTimeout: .seconds(20)),
            tokens: StaticTokenSource(token: standIn.issueAccessToken()),
            retry: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50)))
        directory = try TemporaryDirectory()
    }

    deinit {
        standIn.stop()
    }

    func mirror(_ calendar: MirrorCalendar = .primary) -> CalendarMirror {
        CalendarMirror(directory: directory.path, account: "ada@contoso.example", calendar: calendar, client: client)
    }

    /// A single event on `day` of `month` 2026 (12) or 2027 (1, 2), 10:00–11:00 UTC.
    @discardableResult
    func addSingle(_ subject: String, day: Int, month: Int = 12, id: String, calendar: String? = nil) throws -> String {
        let date = String(format: "%04d-%02d-%02d", month == 12 ? 2026 : 2027, month, day)
        return try standIn.addEvent(
            [
                "id": id, "subject": subject, "iCalUId": "uid-\(id)",
                "start": ["dateTime": "\(date)T10:00:00", "timeZone": "UTC"],
                "end": ["dateTime": "\(date)T11:00:00", "timeZone": "UTC"],
            ], calendar: calendar)
    }

    var requestCount: Int { standIn.operations.count }

    /// Graph's answer when it dropped a round's state.
    static var gone: LoopbackHTTPServer.Response {
        LoopbackHTTPServer.Response(
            status: 410, headers: [("Content-Type", "application/json")],
            body: Data(#"{"error":{"code":"syncStateNotFound","message":"The sync state could not be found."}}"#.utf8))
    }
}

/// One mirror of a calendar, read by several consumers: the Graph rounds (first, resumed, 410, re-anchored,
/// calendarView, pages and their requests), the change log each consumer reads from its own cursor, the
/// windows, the lock, and a kill at the commit. The one suite of the rounds: sync's pull and serve's feeds
/// test only what they do with a read (files, feed bodies); the kill sweep over a round is
/// GraphICSSyncTests' MirrorRoundKillTests, beside the kill switch.
@Suite struct CalendarMirrorTests {
    @Test func aFirstReadIsWholeAndAReadWithNoChangeCostsOneRequestAndReportsNothing() throws {
        let fixture = try MirrorFixture()
        for day in 1...3 { try fixture.addSingle("Event \(day)", day: day, id: "e\(day)") }
        let mirror = fixture.mirror()
        let first = try mirror.read(consumer: "sync:1", window: fixture.december, since: nil)
        #expect(first.kind == .whole && first.round == .first)
        #expect(first.events.map(\.id) == ["e1", "e2", "e3"])

        let before = fixture.requestCount
        let second = try mirror.read(consumer: "sync:1", window: fixture.december, since: first.cursor)
        #expect(fixture.requestCount == before + 1, "one delta request")
        #expect(second.kind == .changes && second.round == .changes)
        #expect(second.events.isEmpty && second.removedIDs.isEmpty)
        #expect(second.cursor == first.cursor, "no change, no new round in the log")
    }

    @Test func eachConsumerReadsEveryChangeOnceFromItsOwnCursor() throws {
        let fixture = try MirrorFixture()
        for day in 1...3 { try fixture.addSingle("Event \(day)", day: day, id: "e\(day)") }
        let sync = try fixture.mirror().read(consumer: "sync:1", window: fixture.december, since: nil)
        let feed = try fixture.mirror().read(consumer: "feed:team", window: fixture.december, since: nil)
        _ = try fixture.standIn.changeEvent(id: "e1", ["subject": "Renamed"])
        try fixture.standIn.removeEvent(id: "e2")

        // The sync's round takes the changes from Graph; the feed's round finds none left there, and still
        // reads both from the log.
        let syncRead = try fixture.mirror().read(consumer: "sync:1", window: fixture.december, since: sync.cursor)
        #expect(syncRead.events.map(\.id) == ["e1"] && syncRead.removedIDs == ["e2"])
        let feedRead = try fixture.mirror().read(consumer: "feed:team", window: fixture.december, since: feed.cursor)
        #expect(feedRead.kind == .changes && feedRead.events.map(\.id) == ["e1"] && feedRead.removedIDs == ["e2"])
        let renamed = try #require(feedRead.events.first)
        #expect(String(decoding: renamed.raw, as: UTF8.self).contains("Renamed"))

        let again = try fixture.mirror().read(consumer: "sync:1", window: fixture.december, since: syncRead.cursor)
        #expect(again.events.isEmpty && again.removedIDs.isEmpty, "read once")
        let before = fixture.requestCount
        let stored = try fixture.mirror().storedEvent(id: "e1")
        #expect(stored?.raw == renamed.raw && fixture.requestCount == before, "read from the store, not Graph")
        #expect(try fixture.mirror().storedEvent(id: "e2") == nil)
    }

    @Test func storedEventsContainingATextAreOnlyThoseWhoseJSONHoldsIt() throws {
        let fixture = try MirrorFixture()
        for day in 1...4 { try fixture.addSingle("Event \(day)", day: day, id: "e\(day)") }
        _ = try fixture.mirror().read(consumer: "sync:1", window: fixture.december, since: nil)
        let mirror = fixture.mirror()
        #expect(try mirror.storedEvents(in: fixture.december).map(\.id) == ["e1", "e2", "e3", "e4"])
        #expect(try mirror.storedEvents(in: fixture.december, containing: "Event 3").map(\.id) == ["e3"])
        #expect(try mirror.storedEvents(in: fixture.december, containing: "uid-e").count == 4)
        #expect(try mirror.storedEvents(in: fixture.december, containing: "graph-ics-moved|").isEmpty)
        let firstDay = SyncWindow(start: fixture.december.start, end: fixture.december.start + 86_400)
        #expect(try mirror.storedEvents(in: firstDay, containing: "uid-e").map(\.id) == ["e1"], "and in the window")
    }

    @Test func aCursorOfAnotherStoreOrAnOldDeltaLinkReadsTheWholeWindow() throws {
        let fixture = try MirrorFixture()
        try fixture.addSingle("Event", day: 2, id: "e1")
        let first = try fixture.mirror().read(consumer: "sync:1", window: fixture.december, since: nil)
        var foreign = first.cursor
        foreign.generation = "0000000000000000"
        let read = try fixture.mirror().read(consumer: "sync:1", window: fixture.december, since: foreign)
        #expect(read.kind == .whole && read.events.map(\.id) == ["e1"])
        #expect(MirrorCursor("https://graph.microsoft.com/v1.0/me/calendarView/delta?$deltatoken=x") == nil)
        #expect(MirrorCursor(first.cursor.description) == first.cursor)
    }

    @Test func a410ReadsTheStoredWindowAgainAndLogsOnlyWhatDiffers() throws {
        let fixture = try MirrorFixture()
        for day in 1...4 { try fixture.addSingle("Event \(day)", day: day, id: "e\(day)") }
        let first = try fixture.mirror().read(consumer: "feed:team", window: fixture.december, since: nil)
        _ = try fixture.standIn.changeEvent(id: "e3", ["subject": "Moved room"])
        fixture.standIn.expireDeltaTokens()
        let read = try fixture.mirror().read(consumer: "feed:team", window: fixture.december, since: first.cursor)
        #expect(read.round == .resync && read.kind == .whole && read.events.count == 4)
        // Another consumer reading later gets only the difference the 410 round logged.
        let other = try fixture.mirror().read(consumer: "sync:1", window: fixture.december, since: first.cursor)
        #expect(other.round == .changes, "the new round's link is stored")
        #expect(other.kind == .changes && other.events.map(\.id) == ["e3"] && other.removedIDs.isEmpty)
        #expect(other.requests == 1, "the 410 round's new link is resumed in one request")
    }

    @Test func aFirstRoundThatMeetsA410IsStartedAgainOnceAndTwiceWritesNothing() throws {
        let fixture = try MirrorFixture()
        for day in 1...6 { try fixture.addSingle("Event \(day)", day: day, id: "e\(day)") }
        let once = fixture.mirror()
        once.pageSize = 2
        fixture.standIn.injectFault(.respond(MirrorFixture.gone), forPathContaining: "skiptoken")
        #expect(try once.read(consumer: "a", window: fixture.december, since: nil).events.count == 6)

        let other = try MirrorFixture()
        for day in 1...6 { try other.addSingle("Event \(day)", day: day, id: "e\(day)") }
        let twice = other.mirror()
        twice.pageSize = 2
        other.standIn.injectFault(.respond(MirrorFixture.gone), forPathContaining: "skiptoken", times: 2)
        #expect(throws: DeltaResyncRequired.self) { try twice.read(consumer: "a", window: other.december, since: nil) }
        #expect(try MirrorStore(path: twice.path).meta().window == nil, "no checkpoint stored")
    }

    @Test func aWindowNotCoveredReanchorsOverEveryConsumersWindowPlusTheLookahead() throws {
        let fixture = try MirrorFixture()
        try fixture.addSingle("December", day: 2, id: "dec")
        try fixture.addSingle("February", day: 10, month: 2, id: "feb")
        let december = try fixture.mirror().read(consumer: "feed:dec", window: fixture.december, since: nil)
        #expect(december.events.map(\.id) == ["dec"])
        let winter = SyncWindow(start: fixture.december.start, end: fixture.december.end + 59 * 86_400)
        let wider = try fixture.mirror().read(consumer: "sync:1", window: winter, since: nil)
        #expect(wider.round == .reanchored && wider.kind == .whole && wider.events.map(\.id) == ["dec", "feb"])
        let stored = try #require(try MirrorStore(path: fixture.mirror().path).meta().window)
        #expect(stored == SyncWindow(start: winter.start, end: winter.end + 30 * 86_400))

        // The first consumer's window is inside the new one: its next read resumes, and sees only its days.
        let before = fixture.requestCount
        let next = try fixture.mirror().read(consumer: "feed:dec", window: fixture.december, since: december.cursor)
        #expect(next.round == .changes && fixture.requestCount == before + 1)
        // February came into the mirror outside this consumer's window: it is named as not (or no longer) in
        // it, which a consumer that never held it ignores.
        #expect(next.kind == .changes && next.events.isEmpty && next.removedIDs == ["feb"])
    }

    @Test func aRoundOfManyPagesReadsEveryPageAndCountsItsRequests() throws {
        let fixture = try MirrorFixture()
        for day in 1...25 { try fixture.addSingle("Event \(day)", day: day, id: "e\(day)") }
        let mirror = fixture.mirror()
        mirror.pageSize = 10
        let before = fixture.requestCount
        let read = try mirror.read(consumer: "feed:team", window: fixture.december, since: nil)
        #expect(read.events.count == 25 && Set(read.events.map(\.id)).count == 25)
        #expect(read.requests == 3 && fixture.requestCount == before + 3, "three pages of at most 10")
    }

    /// A consumer's window moving a day (serve's feed at midnight, a daily sync) stays inside the stored
    /// window: no whole Graph round, one delta request, and the consumer's whole new window from the store.
    @Test func aWindowMovedByADayIsAnsweredFromTheStoreWithOneRequest() throws {
        let fixture = try MirrorFixture()
        try fixture.addSingle("First", day: 1, id: "first")
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        let today = try fixture.mirror().read(consumer: "feed:team", window: fixture.december, since: nil)
        #expect(today.events.map(\.id) == ["first", "lunch"])
        let tomorrow = SyncWindow(start: fixture.december.start + 86_400, end: fixture.december.end + 86_400)
        let before = fixture.requestCount
        let moved = try fixture.mirror().read(consumer: "feed:team", window: tomorrow, since: today.cursor)
        #expect(moved.round == .changes && moved.requests == 1 && fixture.requestCount == before + 1)
        #expect(moved.kind == .whole && moved.events.map(\.id) == ["lunch"], "1 December left the window")
        #expect(moved.cursor.window == tomorrow)
    }

    @Test func aConsumerSeesOnlyItsWindowAndAnEventMovedOutOfItIsARemovalForIt() throws {
        let fixture = try MirrorFixture()
        try fixture.addSingle("Early", day: 3, id: "early")
        try fixture.addSingle("Late", day: 20, id: "late")
        let firstWeek = SyncWindow(start: fixture.december.start, end: fixture.december.start + 7 * 86_400)
        let sync = try fixture.mirror().read(consumer: "sync:1", window: fixture.december, since: nil)
        let feed = try fixture.mirror().read(consumer: "feed:week", window: firstWeek, since: nil)
        #expect(sync.events.count == 2 && feed.events.map(\.id) == ["early"])

        _ = try fixture.standIn.changeEvent(
            id: "early",
            [
                "start": ["dateTime": "2026-12-21T10:00:00", "timeZone": "UTC"],
                "end": ["dateTime": "2026-12-21T11:00:00", "timeZone": "UTC"],
            ])
        let moved = try fixture.mirror().read(consumer: "feed:week", window: firstWeek, since: feed.cursor)
        #expect(moved.events.isEmpty && moved.removedIDs == ["early"])
        let syncMoved = try fixture.mirror().read(consumer: "sync:1", window: fixture.december, since: sync.cursor)
        #expect(syncMoved.events.map(\.id) == ["early"] && syncMoved.removedIDs.isEmpty)
    }

    @Test func anotherCalendarIsReadWholeAndComparedByChangeKey() throws {
        let fixture = try MirrorFixture()
        let calendar = fixture.standIn.addCalendar(name: "Team")
        try fixture.addSingle("One", day: 2, id: "one", calendar: calendar)
        try fixture.addSingle("Two", day: 3, id: "two", calendar: calendar)
        let mirror = fixture.mirror(.other(id: calendar))
        let first = try mirror.read(consumer: "sync:1", window: fixture.december, since: nil)
        #expect(first.kind == .whole && first.events.count == 2)
        let quiet = try mirror.read(consumer: "sync:1", window: fixture.december, since: first.cursor)
        #expect(quiet.kind == .changes && quiet.events.isEmpty && quiet.cursor == first.cursor)
        try fixture.standIn.removeEvent(id: "two")
        let gone = try mirror.read(consumer: "sync:1", window: fixture.december, since: quiet.cursor)
        #expect(gone.removedIDs == ["two"] && gone.events.isEmpty)
        #expect(
            !fixture.standIn.operations.contains { $0.path.contains("/delta") }, "no delta off the primary calendar")
    }

    /// A process killed after the Graph round and before the store's commit: the store is at the last
    /// round, and the next read gives the consumer the same changes.
    @Test(arguments: [false, true])
    func aKillBeforeTheCommitLeavesTheLastRoundAndTheNextReadRepeatsIt(firstRound: Bool) throws {
        let fixture = try MirrorFixture()
        for day in 1...3 { try fixture.addSingle("Event \(day)", day: day, id: "e\(day)") }
        var cursor: MirrorCursor?
        if !firstRound {
            cursor = try fixture.mirror().read(consumer: "a", window: fixture.december, since: nil).cursor
            _ = try fixture.standIn.changeEvent(id: "e2", ["subject": "Changed"])
            try fixture.standIn.removeEvent(id: "e3")
        }
        let killed = fixture.mirror()
        struct Killed: Error {}
        killed.beforeCommit = { throw Killed() }
        try StateDirectory.prepare((killed.path as NSString).deletingLastPathComponent)
        let before = try MirrorStore(path: killed.path).meta()
        #expect(throws: Killed.self) { try killed.read(consumer: "a", window: fixture.december, since: cursor) }
        #expect(try MirrorStore(path: killed.path).meta() == before)

        let read = try fixture.mirror().read(consumer: "a", window: fixture.december, since: cursor)
        if firstRound {
            #expect(read.kind == .whole && read.events.map(\.id) == ["e1", "e2", "e3"])
        } else {
            // Graph's link moved on only in the killed process's memory: the stored link gives them again.
            #expect(read.events.map(\.id) == ["e2"] && read.removedIDs == ["e3"])
        }
    }

    @Test func aRoundWaitsForAnotherProcesssRoundAndGivesUpNamingTheLock() throws {
        let fixture = try MirrorFixture()
        let mirror = fixture.mirror()
        _ = try mirror.read(consumer: "a", window: fixture.december, since: nil)
        let holder = open(mirror.path + ".lock", O_RDWR)
        #expect(holder >= 0 && flock(holder, LOCK_EX) == 0)
        defer { close(holder) }
        let waiting = fixture.mirror()
        waiting.lockTimeout = .milliseconds(200)
        let before = fixture.requestCount
        #expect {
            try waiting.read(consumer: "a", window: fixture.december, since: nil)
        } throws: { error in
            (error as? MirrorError)?.code == .locked && "\(error)".contains(".lock")
        }
        #expect(fixture.requestCount == before, "no request while another round runs")
    }
}
