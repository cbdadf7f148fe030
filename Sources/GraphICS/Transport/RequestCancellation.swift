import Foundation
import Synchronization

/// A switch that ends the Graph requests of a process that is stopping (`serve` on SIGTERM), given to the
/// ``CurlTransport`` those requests go through.
///
/// Once ``cancel()`` is called, a transfer under way stops at libcurl's next progress callback (at most
/// about a second later: libcurl calls it at least once a second while a transfer waits), every later
/// request stops before it is sent, and ``sleep(for:)`` returns at once. Each of them throws
/// ``RequestCancelled``. Cancellation cannot be undone. Thread-safe.
public final class RequestCancellation: Sendable {
    private let cancelled = Atomic<Bool>(false)
    /// Wakes the threads in ``sleep(for:)``; `NSCondition` is thread-safe.
    private let condition = NSCondition()

    public init() {}

    /// Whether ``cancel()`` has been called.
    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Cancels every request under way or to come, and wakes every thread sleeping in ``sleep(for:)``.
    public func cancel() {
        condition.lock()
        cancelled.store(true, ordering: .releasing)
        condition.broadcast()
        condition.unlock()
    }

    /// Blocks the calling thread for `duration` (a retry's wait), or until ``cancel()``, whichever comes
    /// first.
    public func sleep(for duration: Duration) {
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: duration)
        condition.lock()
        defer { condition.unlock() }
        while !isCancelled {
            let left = clock.now.duration(to: end)
            if left <= .zero { return }
            let (seconds, attoseconds) = left.components
            _ = condition.wait(until: Date().addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18))
        }
    }
}

/// A request ended by ``RequestCancellation/cancel()``: the process is stopping. Not a failure of Graph or
/// of the network: callers leave it out of their logs and statuses, and write nothing for the work it cut
/// short. ``GraphClient`` passes it through unwrapped and never retries it.
public struct RequestCancelled: Error, Equatable, Sendable, CustomStringConvertible {
    /// The host the request went to (no path, no query).
    public var host: String

    public init(host: String) {
        self.host = host
    }

    public var description: String { "The request to \(host) was cancelled: graph-ics is stopping." }
}
