import Foundation
import GraphICS
import Synchronization

/// What `serve` needs to read one feed from Graph, found when the feed is loaded: its target (calendar id,
/// zone, whether it is the default calendar) and the client of its mailbox.
public struct ResolvedFeed: Sendable {
    public var target: FeedTarget
    public var client: GraphClient

    public init(target: FeedTarget, client: GraphClient) {
        self.target = target
        self.client = client
    }
}

/// Finds a definition's target and client; throws when the calendar or the mailbox cannot be read.
public typealias FeedResolver = @Sendable (FeedDefinition) throws -> ResolvedFeed

/// One feed inside `serve`: its definition, its source once resolved, the body being served and how the
/// last refresh went. Shared by the mailbox's refresh thread (the only writer of the source) and the
/// HTTP threads (through ``FeedService``'s snapshot). Thread-safe.
final class FeedSlot: Sendable {
    private struct State {
        var definition: FeedDefinition
        var source: FeedSource?
        var body: PreparedFeedBody?
        /// The status while no source exists (the calendar or mailbox could not be resolved).
        var resolutionStatus = FeedStatus()
        /// The last error logged, so that a failure repeated every refresh is logged once.
        var loggedError: String?
    }

    private let state: Mutex<State>

    init(_ definition: FeedDefinition) {
        state = Mutex(State(definition: definition))
    }

    var definition: FeedDefinition { state.withLock { $0.definition } }

    /// The mailbox whose thread refreshes this feed: its `--user`, or "" for the signed-in user.
    var mailbox: String { definition.user?.lowercased() ?? "" }

    /// Whether `other` is this feed with at most a new secret (`feed rotate`): the slot is kept, its
    /// body and delta too.
    func isSameFeed(as other: FeedDefinition) -> Bool {
        var mine = definition
        mine.secret = other.secret
        return mine == other
    }

    func rotate(to secret: String) {
        state.withLock { $0.definition.secret = secret }
    }

    /// The feed as the router answers for it.
    var served: ServedFeed {
        state.withLock { state in
            ServedFeed(
                name: state.definition.name, secret: state.definition.secret, body: state.body,
                status: state.source?.status ?? state.resolutionStatus)
        }
    }

    /// The source, resolved on first use with `resolve`; the body of its disk cache is served at once.
    func source(resolve: FeedResolver, stateDirectory: URL) throws -> FeedSource {
        if let existing = state.withLock({ $0.source }) { return existing }
        let definition = self.definition
        do {
            let resolved = try resolve(definition)
            let source = FeedSource(target: resolved.target, client: resolved.client, stateDirectory: stateDirectory)
            state.withLock { $0.source = source }
            takeBody()
            return source
        } catch {
            state.withLock { state in
                state.resolutionStatus.lastError = "\(error)"
                state.resolutionStatus.lastErrorAt = Date()
            }
            throw error
        }
    }

    /// Takes the source's current body, compressing it again only when it changed (outside the lock:
    /// only the feed's refresh thread calls this).
    func takeBody() {
        let (rendered, body) = state.withLock { ($0.source?.current, $0.body) }
        guard let rendered else { return }
        let prepared = body?.reused(for: rendered) ?? PreparedFeedBody(rendered)
        state.withLock { $0.body = prepared }
    }

    /// Records `error` (nil: success) and says whether it is news: a new error, or the first success
    /// after one. The log line is written by the caller.
    func noteOutcome(_ error: String?) -> Bool {
        state.withLock { state in
            defer { state.loggedError = error }
            return state.loggedError != error
        }
    }
}
