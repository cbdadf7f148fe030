import Dispatch
import Foundation
import Synchronization

/// The refresh thread of one mailbox: its feeds refreshed one after another, then a pause of the refresh
/// interval (cut short by ``wake()`` when feeds are added). A mailbox whose Graph is slow or failing
/// delays only its own feeds; every mailbox has its own thread, client and throttling.
final class MailboxWorker: Sendable {
    private let slots = Mutex<[FeedSlot]>([])
    private let stopped = Atomic<Bool>(false)
    private let wakeUp = DispatchSemaphore(value: 0)
    private let interval: Int
    private let refresh: @Sendable (FeedSlot) -> Void

    /// Starts the thread; `refresh` refreshes one feed (and logs what happened).
    init(interval: Int, refresh: @escaping @Sendable (FeedSlot) -> Void) {
        self.interval = interval
        self.refresh = refresh
        let thread = Thread { [self] in run() }
        thread.name = "graph-ics feed refresh"
        thread.start()
    }

    /// The feeds this thread refreshes from its next one on; `wake` starts a round at once (new feeds).
    func assign(_ feeds: [FeedSlot], wake: Bool) {
        slots.withLock { $0 = feeds }
        if wake { wakeUp.signal() }
    }

    func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        wakeUp.signal()
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
