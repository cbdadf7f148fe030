// Stands in for Microsoft Graph v1.0 (users, mailbox settings, calendars, events, $batch) and the Microsoft
// identity platform's v2.0 token endpoints, on loopback, so graph-ics's tests can prove its networked
// behaviour offline. This file holds the type, its lifetime and its lock; Graph/ holds the request pipeline
// and Graph's URL handling, Events/ the calendar store, OAuth/ the identity platform, HTTP/ the server, and
// Formats/ how Graph writes values (JSON, date-times, time zones, identifiers). docs/STAND-IN.md says which
// Microsoft Graph page each behaviour follows.
import Foundation
import Synchronization

/// A loopback Microsoft Graph that graph-ics's tests start themselves.
///
/// It serves `baseURL` (`http://127.0.0.1:PORT/v1.0`) like Graph and `authority` (`http://127.0.0.1:PORT`)
/// like `login.microsoftonline.com`: paged calendar views with absolute `@odata.nextLink`s, Graph's error
/// bodies, `Prefer: outlook.timezone`, JSON batching, throttling with `Retry-After`, a four-request
/// concurrency limit per mailbox, device-code, refresh-token and client-credentials grants. Tests seed
/// users, calendars and events, configure faults, and afterwards read what was asked of it (`requests`,
/// `sentInvitations`, `retryAfterViolations`, …).
///
/// Thread-safety: every member may be used from any thread; all state sits in one `Mutex` and handlers run
/// on the server's connection threads. Call `stop()` when done (deinit does it too).
public final class GraphStandIn: Sendable {
    /// A seeding mistake in a test (an event without a usable start or end, an unknown user or calendar).
    public struct SeedError: Error, CustomStringConvertible {
        /// What was wrong with the seed.
        public var description: String
    }

    /// The HTTP server underneath (its counters count every HTTP request, token endpoints included).
    public let server: LoopbackHTTPServer

    /// `http://127.0.0.1:PORT/v1.0`: what graph-ics takes as its Graph URL.
    public var baseURL: String { server.baseURL + "/v1.0" }

    /// `http://127.0.0.1:PORT`: what graph-ics takes as its authority (`/{tenant}/oauth2/v2.0/...` below it).
    public var authority: String { server.baseURL }

    /// Everything the stand-in knows; `locked` is the only way in.
    let state = Mutex(State())

    /// Starts the stand-in on an ephemeral loopback port, with no users, no events and no faults.
    public init() throws {
        let router = Router()
        server = try LoopbackHTTPServer { request in
            guard let standIn = router.standIn else { return .closeConnection }
            return standIn.handle(request)
        }
        router.standIn = self
    }

    deinit {
        server.stop()
    }

    /// Stops serving; open connections are closed.
    public func stop() {
        server.stop()
    }

    /// The server's handler reaches the stand-in through this weak reference, which breaks the cycle
    /// server → handler → stand-in → server. It is set once the stand-in is initialised; a request that
    /// comes before (none can: the port is not known yet) or after deinit closes its connection.
    private final class Router: Sendable {
        private struct Target {
            weak var standIn: GraphStandIn?
        }
        private let target = Mutex(Target())

        var standIn: GraphStandIn? {
            get { target.withLock { $0.standIn } }
            set { target.withLock { $0.standIn = newValue } }
        }
    }

    /// Runs `body` with the state locked. Keep bodies short and free of waits: every connection thread
    /// and every test call passes through here.
    func locked<T, E: Error>(_ body: (inout State) throws(E) -> sending T) throws(E) -> sending T {
        try state.withLock { (state: inout sending State) throws(E) -> sending T in try body(&state) }
    }
}
