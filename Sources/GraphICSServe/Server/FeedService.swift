import Foundation
import GraphICS
import Synchronization

/// The running feeds of `graph-ics serve`: one ``FeedSlot`` per definition of feeds.json, one refresh
/// thread per mailbox (``MailboxWorker``), and the snapshot the HTTP threads answer from (a
/// ``FeedRouter``, rebuilt whenever a body or a status changes, so that a request takes one lock).
///
/// ``load(_:)`` applies feeds.json as it is now: new feeds get a slot (refreshed at once), removed ones
/// are dropped, a rotated secret takes effect for the next request, and a changed definition starts over.
///
/// ``stop()`` cancels the Graph requests under way (its ``RequestCancellation``, the one the mailboxes'
/// transports were given) and joins every refresh thread.
public final class FeedService: Sendable {
    private struct State {
        var slots: [FeedSlot] = []
        var workers: [String: MailboxWorker] = [:]
        /// Threads of mailboxes no feed uses any more, told to stop and joined once they have ended.
        var retired: [MailboxWorker] = []
        var stopped = false
    }

    private let state = Mutex(State())
    private let router: Mutex<FeedRouter>
    private let refreshInterval: Int
    private let stateDirectory: URL
    private let resolve: FeedResolver
    private let log: @Sendable (String) -> Void
    private let verbose: Bool
    private let cancellation: RequestCancellation

    /// - Parameters:
    ///   - refreshInterval: `--refresh`, seconds between two refreshes of a feed.
    ///   - stateDirectory: where each feed's disk cache lives (``FeedSource``).
    ///   - resolve: finds a feed's calendar, zone and client, on the feed's mailbox thread.
    ///   - log: writes one line to standard error.
    ///   - verbose: logs every refresh (`feed NAME: unchanged (1 requests, 3 ms CPU)`).
    ///   - cancellation: what the transports of the clients `resolve` gives were made with; ``stop()``
    ///     cancels it.
    public init(
        refreshInterval: Int, stateDirectory: URL, resolve: @escaping FeedResolver,
        log: @escaping @Sendable (String) -> Void, verbose: Bool = false,
        cancellation: RequestCancellation = RequestCancellation()
    ) {
        self.cancellation = cancellation
        self.refreshInterval = refreshInterval
        self.stateDirectory = stateDirectory
        self.resolve = resolve
        self.log = log
        self.verbose = verbose
        router = Mutex(FeedRouter(feeds: [], refreshInterval: refreshInterval))
    }

    /// Answers one request from the current snapshot.
    public func respond(to request: HTTPServerRequest) -> HTTPServerResponse {
        router.withLock { $0 }.respond(to: request)
    }

    /// The feeds as served now, in the file's order.
    public var feeds: [ServedFeed] { router.withLock { $0.feeds } }

    /// Applies the definitions of feeds.json.
    public func load(_ configuration: FeedConfiguration) {
        state.withLock { state in
            guard !state.stopped else { return }
            let old = state.slots
            state.slots = configuration.feeds.map { definition in
                guard let kept = old.first(where: { $0.isSameFeed(as: definition) }) else {
                    return FeedSlot(definition)
                }
                kept.rotate(to: definition.secret)
                return kept
            }
            let added = Set(state.slots.map(ObjectIdentifier.init)).subtracting(old.map(ObjectIdentifier.init))
            let byMailbox = Dictionary(grouping: state.slots, by: \.mailbox)
            for (mailbox, worker) in state.workers where byMailbox[mailbox] == nil {
                worker.stop()
                state.workers[mailbox] = nil
                state.retired.append(worker)
            }
            // A thread that has ended is joined at once; one still finishing its refresh, at a later load.
            state.retired.removeAll { worker in
                guard worker.hasEnded else { return false }
                worker.join()
                return true
            }
            for (mailbox, slots) in byMailbox {
                let worker =
                    state.workers[mailbox]
                    ?? MailboxWorker(interval: refreshInterval) { [weak self] in self?.refresh($0) }
                state.workers[mailbox] = worker
                worker.assign(slots, wake: slots.contains { added.contains(ObjectIdentifier($0)) })
            }
        }
        publish()
    }

    /// Stops every refresh thread and waits until they have ended. A refresh under way is cut short: its
    /// Graph request is cancelled and throws ``RequestCancelled``, before anything of it is written.
    public func stop() {
        let workers = state.withLock { state in
            state.stopped = true
            let workers = Array(state.workers.values) + state.retired
            state.workers = [:]
            state.retired = []
            return workers
        }
        for worker in workers { worker.stop() }
        cancellation.cancel()
        // Outside the lock: a refresh that is ending publishes its result, which takes it.
        for worker in workers { worker.join() }
    }

    /// Whether `error` ended a refresh because serve is stopping: not a failure to log or to show.
    private func isStopping(_ error: any Error) -> Bool {
        error is RequestCancelled || cancellation.isCancelled
    }

    /// Rebuilds the snapshot the HTTP threads answer from, under the snapshot's lock, so that two threads
    /// publishing at once cannot leave the older view (a rotated secret still answering) in place.
    private func publish() {
        router.withLock { router in
            let slots = state.withLock { $0.slots }
            router.feeds = slots.map(\.served)
        }
    }

    /// Refreshes one feed on its mailbox's thread, logs what the log needs, and publishes the result.
    private func refresh(_ slot: FeedSlot) {
        let name = slot.definition.name
        defer { publish() }
        let source: FeedSource
        do {
            source = try slot.source(resolve: resolve, stateDirectory: stateDirectory)
            publish()
        } catch {
            if isStopping(error) { return }
            if slot.noteOutcome("\(error)") { log("feed \(name): cannot be read: \(error)") }
            return
        }
        let cpuBefore = Self.threadCPU()
        do {
            let outcome = try source.refresh()
            slot.takeBody()
            if slot.noteOutcome(nil) { log("feed \(name): refreshed again") }
            if verbose {
                let requests = source.lastRefresh?.requests ?? 0
                let milliseconds = Int(((Self.threadCPU() - cpuBefore) * 1000).rounded())
                let word = outcome == .changed ? "changed" : "unchanged"
                log("feed \(name): \(word) (\(requests) requests, \(milliseconds) ms CPU)")
            }
        } catch {
            if isStopping(error) { return }
            slot.takeBody()
            let message = source.status.lastError ?? "\(error)"
            if slot.noteOutcome(message) {
                log("feed \(name): refresh failed, the last body is still served: \(message)")
            }
        }
    }

    /// CPU seconds the calling thread has used.
    static func threadCPU() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
