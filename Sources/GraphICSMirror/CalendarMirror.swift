import Foundation
import GraphICS
import ICalBridge

#if canImport(Glibc)
    import Glibc
#endif

/// One mirror of one calendar of one account: the only owner of Graph's delta link for it, and the one
/// place where resuming, the 410 restart, re-anchoring and the change-key comparison of a calendar without
/// delta live. `sync`'s pull, `serve`'s feeds (and the CalDAV gateway) are its consumers.
///
/// ``read(consumer:window:since:now:)`` runs one Graph round, records what it found in the store as a new
/// round of the change log, and answers the consumer from the store:
/// - On the primary calendar the round resumes `calendarView/delta` from the stored link (one request when
///   nothing changed). A 410 (Graph dropped the link's state) reads the stored window whole again and
///   compares it with the store; a 410 in the first pages of a whole round starts it again once.
/// - On another calendar, where Graph v1.0 documents no delta, the stored window is read whole with
///   `calendars/{id}/calendarView` and compared by change key.
/// - When the consumer's window is not covered by the stored one, the mirror re-anchors: it reads the union
///   of its consumers' windows (those seen in the last ``consumersKept`` seconds), plus ``lookahead`` ahead.
///   A consumer's window moving day by day stays inside that slack for a month, with no new whole round.
///
/// Rounds are serialised across processes by an `flock` on `<store>.lock`: a `sync` from cron and a
/// running `serve` never resume the same link twice nor overwrite each other's rounds.
///
/// Not thread-safe: one thread uses a mirror object at a time (each process opens its own).
public final class CalendarMirror {
    public let client: GraphClient
    public let calendar: MirrorCalendar
    /// The store (`<state dir>/mirrors/<16 hex>.sqlite`).
    public let path: String
    /// How much further ahead than its consumers a new window reaches (30 days).
    public var lookahead: Int64 = 30 * 86_400
    /// Consumers not seen for this long no longer widen the window (60 days).
    public var consumersKept: Int64 = 60 * 86_400
    /// Entries per Graph page (`Prefer: odata.maxpagesize`, `$top`).
    public var pageSize = 1000
    /// How long a round waits for another process's round on the same mirror.
    public var lockTimeout: Duration = .seconds(120)
    /// Tests only: runs after a round's Graph reads and before its store transaction commits (a crash there).
    var beforeCommit: (() throws -> Void)?

    private var store: MirrorStore?

    /// The mirror of `calendar` of `account` (a user principal name, or any stable name of the mailbox) in
    /// the state folder `directory`; its store is opened (created) on the first read.
    public init(directory: String, account: String, calendar: MirrorCalendar, client: GraphClient) {
        self.client = client
        self.calendar = calendar
        path = Self.path(directory: directory, account: account, calendar: calendar)
    }

    /// `mirrors/` and the first 16 hexadecimal digits of the SHA-256 of the account and calendar.
    public static func path(directory: String, account: String, calendar: MirrorCalendar) -> String {
        let calendarKey: String
        switch calendar {
        case .primary: calendarKey = "primary"
        case .other(let id): calendarKey = "calendar:" + id
        }
        let digest = SHA256.hexDigest((account.lowercased() + "\n" + calendarKey).utf8).prefix(16)
        return ((directory as NSString).appendingPathComponent("mirrors") as NSString)
            .appendingPathComponent("\(digest).sqlite")
    }

    /// Runs one Graph round, then answers `consumer` (a stable name: `sync:<pairing>`, `feed:<name>`) for
    /// `window` from the store: the changes since `cursor`, or the whole window when the cursor cannot be
    /// resumed. The consumer stores ``MirrorRead/cursor`` once it has applied the read.
    ///
    /// - Throws: ``GraphError``, `AuthError`, ``DeltaResyncRequired`` (410 twice in a row), ``MirrorError``,
    ///   ``SQLiteError``. Nothing is written then: the store is at its last round.
    public func read(consumer: String, window: SyncWindow, since cursor: MirrorCursor?, now: Date = Date()) throws
        -> MirrorRead
    {
        let lock = try takeLock()
        defer { close(lock) }
        let store = try openStore()
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        let meta = try store.meta()
        var windows = try store.consumerWindows(seenSince: seconds - consumersKept)
        windows.append(window)
        let wanted = windows.dropFirst().reduce(windows[0]) { $0.union($1) }
        let widened = SyncWindow(start: wanted.start, end: wanted.end + lookahead)
        var requests = 0
        let round: MirrorRound
        let found: Found
        switch calendar {
        case .primary:
            if let stored = meta.window, let link = meta.deltaLink, !link.isEmpty, stored.covers(window) {
                do {
                    found = try changes(since: link, window: stored, requests: &requests)
                    round = .changes
                } catch is DeltaResyncRequired {
                    found = try wholeDelta(stored, requests: &requests)
                    round = .resync
                }
            } else {
                found = try wholeDelta(widened, requests: &requests)
                round = meta.window == nil ? .first : .reanchored
            }
        case .other(let id):
            let covering = meta.window.flatMap { $0.covers(window) ? $0 : nil }
            found = try calendarView(id, window: covering ?? widened, requests: &requests)
            round = meta.window == nil ? .first : covering == nil ? .reanchored : .changes
        }
        try store.database.transaction {
            try record(found, in: store, meta: meta, now: seconds)
            try store.register(consumer, window: window, now: seconds)
            try beforeCommit?()
        }
        return try answer(store, window: window, cursor: cursor, round: round, requests: requests)
    }

    /// The event `id` as the mirror last stored it, without asking Graph (nil when the mirror does not hold
    /// it): the baseline a write compares a new version with (the one `EventChange`).
    public func storedEvent(id: String) throws -> MirrorEvent? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try openStore().event(id: id)
    }

    /// Every event the mirror holds over `window`, as it last stored them, without asking Graph (none when it
    /// holds nothing yet); only those whose JSON contains `text` when it is given (found by SQLite, with no
    /// event decoded: a look-up of a few events among thousands).
    public func storedEvents(in window: SyncWindow, containing text: String? = nil) throws -> [MirrorEvent] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        return try openStore().events(in: window, containing: text)
    }

    // MARK: Graph rounds

    /// What one round read: every event of `window` (`whole`), or the changes since the stored link.
    private struct Found {
        var window: SyncWindow
        var events: [MirrorEvent]
        var removedIDs: [String]
        var whole: Bool
        var deltaLink: String?
    }

    private func changes(since link: String, window: SyncWindow, requests: inout Int) throws -> Found {
        var found = Found(window: window, events: [], removedIDs: [], whole: false)
        found.deltaLink = try client.calendarViewDelta(resumingFrom: link, pageSize: pageSize) { page in
            requests += 1
            found.events += page.events.map { MirrorEvent(id: $0.id, changeKey: $0.changeKey, raw: $0.raw) }
            found.removedIDs += page.removedIDs
        }
        return found
    }

    /// A first delta round over `window`; a 410 in its pages starts it again once.
    private func wholeDelta(_ window: SyncWindow, requests: inout Int) throws -> Found {
        func read(_ requests: inout Int) throws -> Found {
            var found = Found(window: window, events: [], removedIDs: [], whole: true)
            found.deltaLink = try client.calendarViewDelta(
                start: window.startDate, end: window.endDate, pageSize: pageSize
            ) { page in
                requests += 1
                found.events += page.events.map { MirrorEvent(id: $0.id, changeKey: $0.changeKey, raw: $0.raw) }
            }
            return found
        }
        do {
            return try read(&requests)
        } catch is DeltaResyncRequired {
            return try read(&requests)
        }
    }

    /// Every event of calendar `id` in `window`, read with `calendars/{id}/calendarView` in one range.
    private func calendarView(_ id: String, window: SyncWindow, requests: inout Int) throws -> Found {
        var found = Found(window: window, events: [], removedIDs: [], whole: true)
        try client.calendarView(
            calendarID: id, start: window.startDate, end: window.endDate, window: GraphClient.longestRange,
            pageSize: pageSize
        ) { page in
            requests += 1
            guard let entries = GraphPage.entries(in: page, fields: ["id", "changeKey"]) else {
                throw GraphError(
                    .other, operation: "reading calendarView",
                    message: "Graph's answer could not be read: a page has no \"value\" array")
            }
            for entry in entries where !entry.isRemoved {
                guard let id = entry.fields["id"] else { continue }
                found.events.append(MirrorEvent(id: id, changeKey: entry.fields["changeKey"], raw: entry.raw))
            }
        }
        return found
    }

    // MARK: The store

    /// Compares what a round found with the store and writes the differences as a new round of the log
    /// (the sequence number moves only when something changed).
    private func record(_ found: Found, in store: MirrorStore, meta: MirrorStore.Meta, now: Int64) throws {
        // A round of changes looks up only the events it names; a whole round compares everything held.
        let versions = found.whole ? try store.versions() : try store.versions(of: found.events.map(\.id))
        var upserts: [MirrorStore.Row] = []
        var seen = Set<String>()
        var positions: [String: Int64]? = found.whole ? [:] : nil
        for (index, event) in found.events.enumerated() {
            seen.insert(event.id)
            positions?[event.id] = Int64(index)
            let version = Self.version(of: event)
            guard versions[event.id] != version else { continue }
            let (starts, ends) = Self.span(of: event.raw)
            upserts.append(MirrorStore.Row(event: event, version: version, starts: starts, ends: ends))
        }
        var removals: [String]
        if found.whole {
            removals = versions.keys.filter { !seen.contains($0) }.sorted()
        } else {
            // Every id Graph reports removed is logged, held or not: an event a consumer holds outside the
            // mirror's window (its file kept by sync) is reported so when it is deleted or changed.
            removals = found.removedIDs.filter { !seen.contains($0) }
        }
        removals = Array(NSOrderedSet(array: removals)) as? [String] ?? removals
        let changed = !upserts.isEmpty || !removals.isEmpty
        try store.write(
            sequence: changed ? meta.sequence + 1 : meta.sequence, upserts: upserts, removals: removals,
            positions: positions, checkpoint: found.window, deltaLink: found.deltaLink, now: now)
    }

    /// What tells one version of an event from another: Graph's change key, else a hash of its bytes.
    public static func version(of event: MirrorEvent) -> String {
        event.changeKey.map { "ck:" + $0 } ?? "sha256:" + SHA256.hexDigest(event.raw)
    }

    /// The instants an event's `start` and `end` stand for (graph-ics asks for times in UTC); an all-day
    /// event's are widened by 14 hours each way, since its days are the viewer's. Nil when it has none.
    public static func span(of raw: Data) -> (Int64?, Int64?) {
        guard let object = (try? JSONSerialization.jsonObject(with: raw)) as? [String: Any],
            let times = instants(of: object), let ends = times.end
        else { return (nil, nil) }
        let slack: Int64 = times.isAllDay ? 14 * 3600 : 0
        return (times.start - slack, max(times.start, ends) + slack)
    }

    /// The instants of an event's `start` and `end` as Graph gives them to graph-ics (in UTC), in seconds
    /// since 1970; an all-day event's are its dates at 00:00 UTC (a date has no zone). Nil without a usable
    /// start; `end` is nil without a usable end.
    public static func instants(of object: [String: Any]) -> (start: Int64, end: Int64?, isAllDay: Bool)? {
        let allDay = object["isAllDay"] as? Bool == true
        func instant(_ key: String) -> Int64? {
            guard let time = object[key] as? [String: Any], let text = time["dateTime"] as? String,
                let stamp = GraphTimestamp.parse(text)
            else { return nil }
            if allDay { return stamp.civil.secondsSinceEpoch }
            let zone = time["timeZone"] as? String
            guard zone == nil || zone == "UTC" || stamp.utcOffsetSeconds != nil else { return nil }
            return stamp.instant ?? stamp.civil.secondsSinceEpoch
        }
        guard let start = instant("start") else { return nil }
        return (start, instant("end"), allDay)
    }

    /// The consumer's read after the round.
    private func answer(
        _ store: MirrorStore, window: SyncWindow, cursor: MirrorCursor?, round: MirrorRound, requests: Int
    ) throws -> MirrorRead {
        let meta = try store.meta()
        let next = MirrorCursor(generation: meta.generation, sequence: meta.sequence, window: window)
        // After a whole Graph round (first, re-anchored, 410) the consumer compares the whole window too, as a
        // check of everything it holds.
        if let cursor, round == .changes, cursor.generation == meta.generation, cursor.window == window,
            cursor.sequence >= meta.floor, cursor.sequence <= meta.sequence
        {
            let changes = try store.changes(since: cursor.sequence, in: window)
            return MirrorRead(
                kind: .changes, events: changes.events, removedIDs: changes.removed + changes.left, cursor: next,
                round: round, requests: requests)
        }
        return MirrorRead(
            kind: .whole, events: try store.events(in: window), removedIDs: [], cursor: next, round: round,
            requests: requests)
    }

    private func openStore() throws -> MirrorStore {
        if let store { return store }
        let opened = try MirrorStore(path: path)
        store = opened
        return opened
    }

    /// Takes `<store>.lock` (creating `mirrors/` 0700), waiting up to ``lockTimeout``.
    private func takeLock() throws -> Int32 {
        try StateDirectory.prepare((path as NSString).deletingLastPathComponent)
        let lockPath = path + ".lock"
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw MirrorError(.io, "graph-ics cannot open the lock file: \(POSIXFile.describe(errno))", path: lockPath)
        }
        switch FileLocking.lockExclusively(descriptor, timeout: lockTimeout, interval: .milliseconds(50)) {
        case .locked:
            return descriptor
        case .failed(let number):
            close(descriptor)
            throw MirrorError(.io, "graph-ics cannot lock: \(POSIXFile.describe(number))", path: lockPath)
        case .timedOut:
            close(descriptor)
            throw MirrorError(
                .locked, "another graph-ics process kept reading this calendar from Graph; try again", path: lockPath)
        }
    }
}
