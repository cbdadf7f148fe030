import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One thread of graph-ics's own that its owner waits for: ``join()`` returns once the thread has ended and
/// released what its work captured (`pthread_create`, `pthread_join`).
///
/// With Foundation's `Thread`, which cannot be joined, a caller that waited on a semaphore went on while
/// the thread was still ending with its closure alive, and a process that exited then had LeakSanitizer
/// report what the closure held. Used by ``Parallel/blockingMap(count:workers:_:)`` and by the
/// long-running threads of `serve`, which its graceful stop joins. Thread-safe: any thread but its own
/// may join it, more than once (later calls return at once).
public final class JoinableThread: Sendable {
    /// The thread until it has been joined.
    private let thread: Mutex<pthread_t?>

    private init(_ thread: pthread_t) {
        self.thread = Mutex(thread)
    }

    private final class Work {
        let name: String?
        let body: @Sendable () -> Void
        init(name: String?, _ body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Starts `body` on a new thread named `name` (as Foundation's `Thread` names it, for debuggers)
    /// with a stack of `stackSize` bytes (the system's default when nil); nil when the system cannot create
    /// a thread now (at its thread limit).
    public static func start(
        name: String? = nil, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void
    ) -> JoinableThread? {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        if let stackSize { pthread_attr_setstacksize(&attributes, stackSize) }
        let context = Unmanaged.passRetained(Work(name: name, body)).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(
            &thread, &attributes,
            { context in
                guard let context else { return nil }
                let work = Unmanaged<Work>.fromOpaque(context).takeRetainedValue()
                if let name = work.name { Thread.current.name = name }
                work.body()
                return nil
            }, context)
        guard started == 0 else {
            Unmanaged<Work>.fromOpaque(context).release()
            return nil
        }
        return JoinableThread(thread)
    }

    /// Waits until the thread has ended; at once when it was joined before.
    public func join() {
        thread.withLock { thread in
            guard let running = thread else { return }
            pthread_join(running, nil)
            thread = nil
        }
    }
}
