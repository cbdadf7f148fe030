import Foundation
import GraphICS
import GraphICSMirror
import ICalBridge
import Synchronization

/// One feed's live copy of its calendar, and the body rendered from it.
///
/// ``refresh(now:)`` brings the copy up to date with Graph through the calendar's mirror (``CalendarMirror``:
/// one request when nothing changed on the primary calendar) and takes the mirror's changes since the feed's
/// cursor, or the whole window when the window moved to a new day (read from the mirror's store, not Graph).
/// The body is rendered again only when an event's change key changed or an event came or went, and is
/// replaced only when its bytes differ: otherwise the body, ETag and Last-Modified stay byte-identical.
///
/// When a refresh fails (Graph down, the sign-in expired) it throws, ``status`` records the error and
/// ``current`` stays the last good body. The events, the cursor and the body are kept on disk (``FeedCache``)
/// after each change and read back by `init`, so a restarted `serve` serves at once and its first refresh
/// reads only the mirror's changes.
///
/// Thread-safety: ``current``, ``status`` and ``lastRefresh`` may be read from any thread at any time, also
/// while a refresh runs; refreshes of one source run one at a time (a second call waits for the first).
public final class FeedSource: Sendable {
    public let target: FeedTarget
    let client: GraphClient
    let cache: FeedCache
    /// graph-ics's state folder: the feed's cache and the calendar's mirror live in it.
    let stateDirectory: URL
    /// Entries per Graph page (`Prefer: odata.maxpagesize`, `$top`).
    let pageSize: Int

    /// What readers see.
    private struct Published: Sendable {
        var current: RenderedFeed?
        var status = FeedStatus()
        var lastRefresh: FeedRefreshReport?
    }

    /// What refreshes work on; its lock is held for a whole refresh.
    private struct Working: Sendable {
        var events: FeedEvents?
        /// The body does not show `events` yet (a cache written part way, or other settings).
        var needsRender: Bool
        /// The folder does not hold the body or events of this copy.
        var cacheIsBehind: Bool
        var bodyOnDisk: Bool
    }

    private let published: Mutex<Published>
    private let working: Mutex<Working>
    /// The calendar's mirror, its store kept open from one refresh to the next: a store opened for each
    /// refresh creates its write-ahead log and removes it again when it closes, which was most of a no-change
    /// refresh's CPU time. Used only inside a refresh, under `working`'s lock.
    let mirror: Mutex<CalendarMirror>

    /// - Parameters:
    ///   - stateDirectory: graph-ics's state folder (``StateDirectory``); the copy lives in its
    ///     `feeds/` folder.
    ///   - pageSize: entries per Graph page (at most 1000).
    public init(target: FeedTarget, client: GraphClient, stateDirectory: URL, pageSize: Int = 1000) {
        self.target = target
        self.client = client
        self.pageSize = pageSize
        self.stateDirectory = stateDirectory
        cache = FeedCache(stateDirectory: stateDirectory, target: target)
        let mirror = CalendarMirror(
            directory: stateDirectory.path, account: target.account,
            calendar: target.isPrimary ? .primary : .other(id: target.calendarID ?? ""), client: client)
        mirror.pageSize = pageSize
        self.mirror = Mutex(mirror)
        let loaded = cache.load(for: target)
        published = Mutex(Published(current: loaded.body))
        working = Mutex(
            Working(
                events: loaded.events, needsRender: !loaded.isCurrent, cacheIsBehind: false,
                bodyOnDisk: loaded.body != nil))
    }

    /// The body to serve: nil until the first refresh (or the disk cache) gave one.
    public var current: RenderedFeed? { published.withLock { $0.current } }

    /// How the refreshes went.
    public var status: FeedStatus { published.withLock { $0.status } }

    /// What the last successful refresh cost.
    public var lastRefresh: FeedRefreshReport? { published.withLock { $0.lastRefresh } }

    /// Brings the copy up to date with Graph and renders the body when the events changed.
    ///
    /// - Parameter now: decides today, hence the window, and the times recorded in ``status``.
    /// - Returns: whether the body changed.
    /// - Throws: the failure (``GraphError``, `AuthError`, ``ICalBridgeError``, a disk error), after recording
    ///   it in ``status``; ``current`` is then the last good body.
    @discardableResult
    public func refresh(now: Date = Date()) throws -> FeedRefreshOutcome {
        do {
            let (outcome, report) = try working.withLock { state throws in try perform(&state, now: now) }
            published.withLock {
                $0.status.lastSuccess = now
                $0.lastRefresh = report
            }
            return outcome
        } catch {
            published.withLock {
                $0.status.lastError = Self.statusLine(error)
                $0.status.lastErrorAt = now
            }
            throw error
        }
    }

    /// One refresh under the working lock: read, render if needed, publish, write the cache.
    private func perform(_ state: inout Working, now: Date) throws -> (FeedRefreshOutcome, FeedRefreshReport) {
        let window = target.window(at: now)
        var requests = 0
        let (events, round, changed) = try read(state.events, window: window, requests: &requests)
        var outcome = FeedRefreshOutcome.unchanged
        var diagnostics: [Diagnostic] = []
        let rendering = state.needsRender || changed || current == nil
        if rendering {
            let rendered = try FeedRenderer.render(events, for: target)
            diagnostics = rendered.diagnostics
            if current?.body != rendered.body {
                let body = RenderedFeed(
                    body: rendered.body, etag: FeedRenderer.etag(of: rendered.body),
                    lastModified: Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down)),
                    eventCount: rendered.eventCount)
                published.withLock { $0.current = body }
                state.bodyOnDisk = false
                outcome = .changed
            }
        }
        let windowMoved = state.events?.window != events.window
        state.events = events
        state.needsRender = false
        state.cacheIsBehind = state.cacheIsBehind || rendering || windowMoved
        if state.cacheIsBehind, let body = current {
            try cache.save(events: events, body: body, writingBody: !state.bodyOnDisk, target: target)
            state.bodyOnDisk = true
            state.cacheIsBehind = false
        }
        return (
            outcome, FeedRefreshReport(round: round, requests: requests, rendered: rendering, diagnostics: diagnostics)
        )
    }

    /// One line for ``FeedStatus/lastError``: the error's own sentence (graph-ics's errors never hold a token),
    /// control characters and line breaks turned into spaces, at most 300 characters.
    static func statusLine(_ error: any Error) -> String {
        let text = "\(error)".unicodeScalars.map { CharacterSet.controlCharacters.contains($0) ? " " : String($0) }
            .joined()
        return text.count > 300 ? String(text.prefix(299)) + "…" : text
    }
}
