import Foundation
import GraphICS
import Testing

@testable import GraphICSMirror

/// What the child of a mirror kill test needs: plain values, since an exit test's closure captures only what
/// it can encode.
struct MirrorKillTarget: Codable, Sendable {
    var baseURL: String
    var token: String
    var directory: String
    var window: [Int64]
    var marker: String
    /// The killed consumer's cursor (``MirrorCursor/description``); empty for a first read.
    var cursor: String

    var syncWindow: SyncWindow { SyncWindow(start: window[0], end: window[1]) }

    /// The mirror the child (and the parent) reads: pages of 4, so that a round has several responses.
    func mirror(transport: any HTTPTransport) throws -> CalendarMirror {
        guard let base = URL(string: baseURL) else { throw CocoaError(.fileReadInvalidFileName) }
        let client = GraphClient(
            baseURL: base, transport: transport, tokens: StaticTokenSource(token: token),
            retry: RetryPolicy(maxAttempts: 8, baseDelay: .milliseconds(20), maxDelay: .milliseconds(200)))
        let mirror = CalendarMirror(
            directory: directory, account: "ada@contoso.example", calendar: .primary, client: client)
        mirror.pageSize = 4
        return mirror
    }

    /// Runs `sync:1`'s read with the switch armed at `point`: every Graph response, the round's commit
    /// (inside its transaction, before SQLite makes it durable) and after it (the read returned, the
    /// consumer has not stored its cursor). Kills the process at the end if the point never came.
    func readKilled(at point: KillPoint) throws -> Never {
        KillSwitch.arm(point, marker: marker)
        let mirror = try mirror(transport: KillingTransport(inner: CurlTransport(defaultTimeout: .seconds(20))))
        mirror.beforeCommit = { KillSwitch.reached(.beforeCommit) }
        _ = try mirror.read(consumer: "sync:1", window: syncWindow, since: MirrorCursor(cursor))
        KillSwitch.reached(.afterCommit)
        KillSwitch.finished()
        kill(getpid(), SIGKILL)
        while true { pause() }
    }

    var markerText: String {
        (try? String(contentsOfFile: marker, encoding: .utf8)) ?? "no marker (the child died before the point)"
    }
}

/// A mirror round SIGKILLed at each Graph response and at its commit (a child process, an exit test, against
/// the parent's stand-in) and read again: the store opens, the round completes, and each consumer, reading
/// from the cursor it held before the kill, ends with exactly the events Graph holds: nothing lost, nothing
/// twice, no change skipped. Each point is checked to have been reached (the child's marker).
@Suite(.serialized) struct MirrorRoundKillTests {
    /// A first round of 30 events in pages of 4: 8 responses, then the one commit.
    static let firstRoundPoints: [KillPoint] =
        (1...8).map { KillPoint(.afterResponse, $0) } + [KillPoint(.beforeCommit, 1), KillPoint(.afterCommit, 1)]

    /// A round of 4 changes, 4 removals and 4 additions in pages of 4: 3 responses, then the one commit.
    static let changesPoints: [KillPoint] =
        (1...3).map { KillPoint(.afterResponse, $0) } + [KillPoint(.beforeCommit, 1), KillPoint(.afterCommit, 1)]

    @Test("a first mirror round killed at a named point completes when read again", arguments: firstRoundPoints)
    func killedFirstRound(at point: KillPoint) async throws {
        let fixture = try PullFixture()
        try Self.seed(fixture)
        let target = Self.target(fixture, cursor: nil)
        await #expect(processExitsWith: .signal(SIGKILL)) {
            [target = target as MirrorKillTarget, point = point as KillPoint] in
            try target.readKilled(at: point)
        }
        #expect(target.markerText.hasPrefix("reached"), "\(point): \(target.markerText)")
        let mirror = try target.mirror(transport: CurlTransport(defaultTimeout: .seconds(20)))
        var held: [String: MirrorEvent] = [:]
        let read = try mirror.read(consumer: "sync:1", window: fixture.window, since: nil)
        try Self.apply(read, to: &held)
        try Self.expectHolds(held, asACleanMirrorOf: fixture, target: target, point: point)
        let feed = try mirror.read(consumer: "feed:team", window: fixture.window, since: nil)
        var feedHeld: [String: MirrorEvent] = [:]
        try Self.apply(feed, to: &feedHeld)
        #expect(feedHeld == held, "\(point)")
    }

    @Test("a mirror round of changes killed at a named point loses nothing when read again", arguments: changesPoints)
    func killedChangesRound(at point: KillPoint) async throws {
        let fixture = try PullFixture()
        try Self.seed(fixture)
        let setUp = try Self.target(fixture, cursor: nil).mirror(transport: CurlTransport(defaultTimeout: .seconds(20)))
        // Two consumers read the first round and hold its events, each with its own cursor.
        var sync: [String: MirrorEvent] = [:]
        var feed: [String: MirrorEvent] = [:]
        let syncFirst = try setUp.read(consumer: "sync:1", window: fixture.window, since: nil)
        let feedFirst = try setUp.read(consumer: "feed:team", window: fixture.window, since: nil)
        try Self.apply(syncFirst, to: &sync)
        try Self.apply(feedFirst, to: &feed)
        for day in 1...4 { try fixture.standIn.changeEvent(id: "e\(day)", ["subject": "Changed \(day)"]) }
        for day in 5...8 { try fixture.standIn.removeEvent(id: "e\(day)") }
        for day in 1...4 { try fixture.addSingle("Added \(day)", day: day + 20, id: "new\(day)") }

        let target = Self.target(fixture, cursor: syncFirst.cursor)
        await #expect(processExitsWith: .signal(SIGKILL)) {
            [target = target as MirrorKillTarget, point = point as KillPoint] in
            try target.readKilled(at: point)
        }
        #expect(target.markerText.hasPrefix("reached"), "\(point): \(target.markerText)")

        let mirror = try target.mirror(transport: CurlTransport(defaultTimeout: .seconds(20)))
        let syncRead = try mirror.read(consumer: "sync:1", window: fixture.window, since: syncFirst.cursor)
        #expect(syncRead.kind == .changes, "\(point): the cursor held before the kill resumes")
        try Self.apply(syncRead, to: &sync)
        try Self.expectHolds(sync, asACleanMirrorOf: fixture, target: target, point: point)
        let feedRead = try mirror.read(consumer: "feed:team", window: fixture.window, since: feedFirst.cursor)
        #expect(feedRead.kind == .changes, "\(point)")
        try Self.apply(feedRead, to: &feed)
        #expect(feed == sync, "\(point): both consumers hold the same events")
        // Read once: a further read from the new cursors gives nothing.
        let again = try mirror.read(consumer: "sync:1", window: fixture.window, since: syncRead.cursor)
        #expect(again.events.isEmpty && again.removedIDs.isEmpty, "\(point)")
    }

    // MARK: Helpers

    /// 30 single events, e1 … e30, one a day from 1 December.
    private static func seed(_ fixture: PullFixture) throws {
        for day in 1...30 { try fixture.addSingle("Event \(day)", day: day, id: "e\(day)") }
    }

    private static func target(_ fixture: PullFixture, cursor: MirrorCursor?) -> MirrorKillTarget {
        MirrorKillTarget(
            baseURL: fixture.standIn.baseURL, token: fixture.standIn.issueAccessToken(),
            directory: fixture.directory.path, window: [fixture.window.start, fixture.window.end],
            marker: fixture.directory.file("kill-marker"), cursor: cursor?.description ?? "")
    }

    /// Applies a read as a consumer does: a whole read replaces what it holds, changes upsert and remove.
    /// A read that names an event twice is a failure (the consumer would apply it twice).
    private static func apply(_ read: MirrorRead, to held: inout [String: MirrorEvent]) throws {
        let ids = read.events.map(\.id) + read.removedIDs
        #expect(Set(ids).count == ids.count, "an event named twice in one read: \(ids)")
        if read.kind == .whole { held = [:] }
        for id in read.removedIDs { held[id] = nil }
        for event in read.events { held[event.id] = event }
    }

    /// The events a fresh mirror (another state folder) reads from Graph now.
    private static func expectHolds(
        _ held: [String: MirrorEvent], asACleanMirrorOf fixture: PullFixture, target: MirrorKillTarget,
        point: KillPoint, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        var clean = target
        clean.directory = fixture.directory.file("clean")
        try FileManager.default.createDirectory(atPath: clean.directory, withIntermediateDirectories: true)
        let read = try clean.mirror(transport: CurlTransport(defaultTimeout: .seconds(20)))
            .read(consumer: "check", window: fixture.window, since: nil)
        var expected: [String: MirrorEvent] = [:]
        try apply(read, to: &expected)
        #expect(held.keys.sorted() == expected.keys.sorted(), "\(point)", sourceLocation: sourceLocation)
        #expect(
            held.mapValues(\.changeKey) == expected.mapValues(\.changeKey), "\(point)", sourceLocation: sourceLocation)
    }
}
