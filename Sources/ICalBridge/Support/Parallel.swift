import Dispatch
import Foundation
import Synchronization

/// graph-ics's one way to spread independent work over threads.
///
/// - CPU work (parsing, planning, encoding) runs on the cores through `DispatchQueue.concurrentPerform`,
///   which never runs more iterations at once than there are cores: ``map(count:minimum:_:)`` for many
///   small items, ``mapEach(count:_:)`` and ``forEach(count:_:)`` for a few larger pieces, ``slices(count:minimum:perCore:)``
///   to cut a list into such pieces, ``concatenated(_:)`` to join their results.
/// - Blocking work (requests to Graph, which wait on the network) runs on threads of its own with
///   ``blockingMap(count:workers:_:)``, since the number that may wait at once is Graph's limit, not the
///   number of cores.
///
/// Every unsafe pointer and `nonisolated(unsafe)` that spreading work needs is in this file: each slot of
/// a result is written by exactly one iteration, and read only after all of them have finished.
public enum Parallel {
    /// The most CPU workers graph-ics uses.
    static var cores: Int { min(ProcessInfo.processInfo.activeProcessorCount, 8) }

    /// `body(0..<count)` on all cores (at most 8 workers), results in index order; fewer than `minimum`
    /// items run on the calling thread, where threads would cost more than they save.
    ///
    /// Worker `w` computes the indices `w, w + workers, …` and initialises only those slots of the result's
    /// storage, so no result is copied afterwards.
    public static func map<T>(count: Int, minimum: Int = 32, _ body: (Int) -> T) -> [T] {
        let workers = cores
        guard workers > 1, count >= minimum else { return (0..<count).map(body) }
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

    /// `body(index)` for every index of `0..<count`, results in index order; each index goes to whichever
    /// core is free next, so that pieces of uneven cost keep every core busy. One piece runs on the
    /// calling thread.
    public static func mapEach<T>(count: Int, _ body: (Int) -> T) -> [T] {
        guard count > 1 else { return (0..<count).map(body) }
        return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            nonisolated(unsafe) let slots = base
            withoutActuallyEscaping(body) { body in
                nonisolated(unsafe) let work = body
                DispatchQueue.concurrentPerform(iterations: count) { index in
                    (slots + index).initialize(to: work(index))
                }
            }
            initialized = count
        }
    }

    /// `body(index)` for every index of `0..<count` on all cores, as ``mapEach(count:_:)`` but for work
    /// that leaves its results elsewhere (or frees something).
    public static func forEach(count: Int, _ body: (Int) -> Void) {
        guard count > 1 else {
            if count == 1 { body(0) }
            return
        }
        withoutActuallyEscaping(body) { body in
            nonisolated(unsafe) let work = body
            DispatchQueue.concurrentPerform(iterations: count) { work($0) }
        }
    }

    /// `0..<count` cut into contiguous slices of equal length (the last one shorter): as many as fit with
    /// at least `minimum` items each, at most `perCore` for every core, so that a core that finishes early
    /// takes the next slice. One slice (or none, for nothing) when `count` is below twice `minimum`.
    public static func slices(count: Int, minimum: Int, perCore: Int = 8) -> [Range<Int>] {
        guard count > 0 else { return [] }
        let sliceCount = max(1, min(count / max(minimum, 1), ProcessInfo.processInfo.activeProcessorCount * perCore))
        let perSlice = (count + sliceCount - 1) / sliceCount
        return stride(from: 0, to: count, by: perSlice).map { $0..<min($0 + perSlice, count) }
    }

    /// The elements of `parts` one after the other, each part moved into place by one core (and freed
    /// there); `parts` is left empty.
    public static func concatenated<T>(_ parts: inout [[T]]) -> [T] {
        var starts = [0]
        for part in parts { starts.append(starts[starts.count - 1] + part.count) }
        let total = starts[starts.count - 1]
        var taken = parts
        parts = []
        return taken.withUnsafeMutableBufferPointer { sources in
            [T](unsafeUninitializedCapacity: total) { buffer, initialized in
                guard let target = buffer.baseAddress, let source = sources.baseAddress else { return }
                nonisolated(unsafe) let (into, from) = (target, source)
                let offsets = starts
                forEach(count: sources.count) { part in
                    let elements = (from + part).move()
                    (from + part).initialize(to: [])
                    elements.withUnsafeBufferPointer { elements in
                        guard let start = elements.baseAddress else { return }
                        (into + offsets[part]).initialize(from: start, count: elements.count)
                    }
                }
                initialized = total
            }
        }
    }

    /// `body(index)` for every index of `0..<count` on `workers` threads of their own (for blocking work:
    /// each thread takes the next index when it is done with one), results in index order. After the
    /// first failure no further index is started; the failure of the lowest index is thrown once the
    /// running ones have finished.
    public static func blockingMap<T: Sendable>(
        count: Int, workers: Int, _ body: @escaping @Sendable (Int) throws -> T
    ) throws -> [T] {
        let run = BlockingRun<T>(count: count)
        JoinedThreads.run(count: min(max(workers, 1), count), stackSize: 1 << 20) {
            while let index = run.next() {
                run.finish(index, Result { try body(index) })
            }
        }
        return try run.results()
    }
}

/// Threads joined before the call returns: when ``run(count:stackSize:_:)`` returns, every thread has
/// ended and released what its work captured (``JoinableThread``; a command exiting at once on an error,
/// as `sync` does when the disk fills, must not have LeakSanitizer report the batch a thread wrote).
private enum JoinedThreads {
    /// `work` on `count` threads of `stackSize` bytes each; where a thread cannot be created, its share
    /// runs on the calling thread instead.
    static func run(count: Int, stackSize: Int, _ work: @escaping @Sendable () -> Void) {
        var threads: [JoinableThread] = []
        for _ in 0..<count {
            if let thread = JoinableThread.start(stackSize: stackSize, work) {
                threads.append(thread)
            } else {
                work()
            }
        }
        for thread in threads {
            thread.join()
        }
    }
}

/// The indices a ``Parallel/blockingMap(count:workers:_:)`` still has to start and what the finished ones
/// gave, shared by its threads.
private final class BlockingRun<T: Sendable>: Sendable {
    private struct State {
        var next = 0
        var failed = false
        var outcomes: [Result<T, any Error>?]
    }

    private let state: Mutex<State>

    init(count: Int) {
        state = Mutex(State(outcomes: Array(repeating: nil, count: count)))
    }

    /// The next index to run; nil when all are taken or one has failed.
    func next() -> Int? {
        state.withLock { state in
            guard !state.failed, state.next < state.outcomes.count else { return nil }
            state.next += 1
            return state.next - 1
        }
    }

    func finish(_ index: Int, _ outcome: Result<T, any Error>) {
        state.withLock { state in
            if case .failure = outcome { state.failed = true }
            state.outcomes[index] = outcome
        }
    }

    /// Every result in index order, or the failure of the lowest index.
    func results() throws -> [T] {
        let outcomes = state.withLock { $0.outcomes }
        var all: [T] = []
        all.reserveCapacity(outcomes.count)
        for outcome in outcomes {
            switch outcome {
            case .success(let value): all.append(value)
            case .failure(let error): throw error
            case nil: continue
            }
        }
        return all
    }
}
