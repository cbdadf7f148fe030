import Foundation
import Synchronization
import Testing

@testable import ICalBridge

@Suite struct ParallelTests {
    /// Something the work captures, to see when it is released.
    private final class Payload: Sendable {
        let bytes = Data(count: 1024)
    }

    @Test("blockingMap returns results in index order from several threads, and the lowest failure")
    func orderAndFailure() throws {
        let threads = Mutex(Set<UInt>())
        let squares = try Parallel.blockingMap(count: 40, workers: 4) { index in
            threads.withLock { _ = $0.insert(UInt(pthread_self())) }
            usleep(1000)
            return index * index
        }
        #expect(squares == (0..<40).map { $0 * $0 })
        #expect(threads.withLock { $0.count } > 1)
        struct Refused: Error, Equatable { let index: Int }
        #expect(throws: Refused(index: 3)) {
            try Parallel.blockingMap(count: 8, workers: 1) { index in
                if index >= 3 { throw Refused(index: index) }
                return index
            }
        }
    }

    @Test("when blockingMap returns, its threads have ended and released what the work captured")
    func threadsJoined() throws {
        for _ in 0..<50 {
            weak var released: Payload?
            try {
                let payload = Payload()
                released = payload
                _ = try Parallel.blockingMap(count: 4, workers: 4) { _ in payload.bytes.count }
            }()
            #expect(released == nil)
        }
    }
}
