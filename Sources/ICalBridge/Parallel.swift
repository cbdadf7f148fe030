import Dispatch
import Foundation

/// graph-ics's one way to spread independent work over the cores.
public enum Parallel {
    /// `body(0..<count)` on all cores (at most 8 workers), results in index order; fewer than `minimum`
    /// items run on the calling thread, where threads would cost more than they save.
    public static func map<T>(count: Int, minimum: Int = 32, _ body: (Int) -> T) -> [T] {
        let workers = min(ProcessInfo.processInfo.activeProcessorCount, 8)
        guard workers > 1, count >= minimum else { return (0..<count).map(body) }
        // Each worker initialises only its own slots (index ≡ worker mod workers) of the result's storage:
        // no result is copied afterwards (copying 10,000 planned events retained and released every
        // field on one thread).
        return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            nonisolated(unsafe) let slots = base
            withoutActuallyEscaping(body) { body in
                nonisolated(unsafe) let work = body
                DispatchQueue.concurrentPerform(iterations: workers) { worker in
                    var index = worker
                    while index < count {
                        (slots + index).initialize(to: work(index))
                        index += workers
                    }
                }
            }
            initialized = count
        }
    }
}
