import Foundation

/// A counting semaphore that keeps graph-ics at `limit` requests in flight (four per mailbox, as Graph
/// asks).
///
/// `withPermit` blocks the calling thread until fewer than `limit` bodies are running, then runs its
/// body. Waiters are woken in no particular order. Safe to share between threads: all state is guarded
/// by one condition lock. A body must not ask the same limiter for a second permit (with every permit
/// held that would wait forever).
///
/// Sendable by hand: waiting for a permit needs a condition variable, which `Mutex` has not; `running` and
/// `observed` are read and written only while `condition` is locked.
public final class RequestLimiter: @unchecked Sendable {
    /// The most bodies that run at once.
    public let limit: Int

    private let condition = NSCondition()
    private var running = 0
    private var observed = 0

    /// Creates a limiter; a `limit` below 1 is taken as 1.
    public init(limit: Int = 4) {
        self.limit = max(1, limit)
    }

    /// Runs `body` once a permit is free and releases the permit when it returns or throws.
    public func withPermit<T>(_ body: () throws -> T) rethrows -> T {
        acquire()
        defer { release() }
        return try body()
    }

    /// The largest number of bodies seen running at the same time (for tests and diagnostics).
    public var maxObserved: Int {
        condition.lock()
        defer { condition.unlock() }
        return observed
    }

    /// The number of bodies running now.
    public var inFlight: Int {
        condition.lock()
        defer { condition.unlock() }
        return running
    }

    private func acquire() {
        condition.lock()
        defer { condition.unlock() }
        while running >= limit {
            condition.wait()
        }
        running += 1
        observed = max(observed, running)
    }

    private func release() {
        condition.lock()
        defer { condition.unlock() }
        running -= 1
        condition.signal()
    }
}
