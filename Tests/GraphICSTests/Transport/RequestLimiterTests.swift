import Foundation
import GraphICS
import Testing

@Suite struct RequestLimiterTests {
    /// Counts bodies running at once, independently of the limiter's own bookkeeping.
    final class Gauge: @unchecked Sendable {
        private let lock = NSLock()
        private var running = 0
        private(set) var peak = 0
        private(set) var finished = 0

        func enter() {
            lock.lock()
            running += 1
            peak = max(peak, running)
            lock.unlock()
        }

        func leave() {
            lock.lock()
            running -= 1
            finished += 1
            lock.unlock()
        }

        var snapshot: (peak: Int, finished: Int) {
            lock.lock()
            defer { lock.unlock() }
            return (peak, finished)
        }
    }

    struct Failure: Error {}

    @Test("16 concurrent bodies never run more than the limit at once")
    func neverExceedsTheLimit() {
        let limiter = RequestLimiter(limit: 4)
        let gauge = Gauge()
        let group = DispatchGroup()
        for index in 0..<16 {
            group.enter()
            let thread = Thread {
                do {
                    try limiter.withPermit {
                        gauge.enter()
                        defer { gauge.leave() }
                        Thread.sleep(forTimeInterval: 0.02)
                        if index.isMultiple(of: 5) {
                            throw Failure()
                        }
                    }
                } catch {}
                group.leave()
            }
            thread.start()
        }
        #expect(group.wait(timeout: .now() + 10) == .success)
        let (peak, finished) = gauge.snapshot
        #expect(finished == 16)
        #expect(peak <= 4)
        // Sixteen threads each holding a permit for 20 ms fill all four slots.
        #expect(peak == 4)
        #expect(limiter.maxObserved == peak)
        // Bodies that threw gave their permits back.
        #expect(limiter.inFlight == 0)
    }

    @Test("withPermit returns the body's value and rethrows its error")
    func passesResultsThrough() {
        let limiter = RequestLimiter(limit: 1)
        #expect(limiter.withPermit { 42 } == 42)
        #expect(throws: Failure.self) { try limiter.withPermit { throw Failure() } }
        #expect(limiter.withPermit { "again" } == "again")
        #expect(RequestLimiter(limit: 0).limit == 1)
    }
}
