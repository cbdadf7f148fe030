import Dispatch
import Foundation
import ICalBridge
import Synchronization

/// The refresh thread of one mailbox: its feeds refreshed one after another, then a pause of the refresh
/// interval (cut short by ``wake()`` when feeds are added). A mailbox whose Graph is slow or failing
/// delays only its own feeds; every mailbox has its own thread, client and throttling.
///
/// ``stop()`` asks the thread to end after the refresh under way (which the caller may cut short by
/// cancelling its requests); ``join()`` waits until it has.
final class MailboxWorker: Sendable {
    private let slots = Mutex<[FeedSlot]>([])
    private let stopped = Atomic<Bool>(false)
    private let ended = Atomic<Bool>(false)
    private let wakeUp = DispatchSemaphore(value: 0)
    private let interval: Int
    private let refresh: @Sendable (FeedSlot) -> Void
    private let thread = Mutex<JoinableThread?>(nil)

    /// Starts the thread; `refresh` refreshes one feed (and logs what happened).
    init(interval: Int, refresh: @escaping @Sendable (FeedSlot) -> Void) {
        self.interval = interval
        self.refresh = refresh
        let started = JoinableThread.start(name: "graph-ics feed refresh") { [self] in
            run()
            ended.store(true, ordering: .sequentiallyConsistent)
        }
        if started == nil { ended.store(true, ordering: .sequentiallyConsistent) }
        thread.withLock { $0 = started }
    }

    /// The feeds this thread refreshes from its next one on; `wake` starts a round at once (new feeds).
    func assign(_ feeds: [FeedSlot], wake: Bool) {
        slots.withLock { $0 = feeds }
        if wake { wakeUp.signal() }
    }

    /// Asks the thread to end: at once when it waits, after the refresh under way otherwise.
    func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        wakeUp.signal()
    }

    /// Whether the thread has ended (or never started): ``join()`` returns at once.
    var hasEnded: Bool { ended.load(ordering: .sequentiallyConsistent) }

    /// Waits until the thread has ended; call ``stop()`` first. Never from the thread's own refresh.
    func join() {
        thread.withLock { $0 }?.join()
    }

    private var isStopped: Bool { stopped.load(ordering: .sequentiallyConsistent) }

    private func run() {
        while !isStopped {
            let started = DispatchTime.now()
            for slot in slots.withLock({ $0 }) {
                if isStopped { return }
                refresh(slot)
            }
            _ = wakeUp.wait(timeout: started + .seconds(interval))
        }
    }
}
