import Dispatch
import Foundation
import ICalBridge
import Synchronization

/// Notices changes to feeds.json (`feed add`, `remove`, `rotate` in another process): its stamp (inode,
/// size, modification time) is read every second, and `onChange` runs when it moved, or at once after
/// ``reloadNow()`` (SIGHUP). Runs on its own thread until ``stop()``, which waits for it.
public final class FeedWatcher: Sendable {
    private let stopped = Atomic<Bool>(false)
    private let forced = Atomic<Bool>(false)
    private let wakeUp = DispatchSemaphore(value: 0)
    private let thread = Mutex<JoinableThread?>(nil)

    /// Starts watching; `stamp` is the stamp of the file as last loaded.
    public init(
        store: FeedStore, stamp: FeedFileStamp?, interval: Duration = .seconds(1),
        onChange: @escaping @Sendable () -> Void
    ) {
        let milliseconds = Int(
            interval.components.seconds * 1000 + interval.components.attoseconds / 1_000_000_000_000_000)
        let started = JoinableThread.start(name: "graph-ics feeds.json watcher") { [self] in
            var last = stamp
            while !stopped.load(ordering: .sequentiallyConsistent) {
                _ = wakeUp.wait(timeout: .now() + .milliseconds(milliseconds))
                if stopped.load(ordering: .sequentiallyConsistent) { return }
                let now = store.stamp()
                let force = forced.exchange(false, ordering: .sequentiallyConsistent)
                guard force || now != last else { continue }
                last = now
                onChange()
            }
        }
        thread.withLock { $0 = started }
    }

    /// Reloads at once (SIGHUP), whether or not the file's stamp moved.
    public func reloadNow() {
        forced.store(true, ordering: .sequentiallyConsistent)
        wakeUp.signal()
    }

    /// Ends the watching and waits for its thread (and a reload under way) to end. Never from `onChange`.
    public func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        wakeUp.signal()
        thread.withLock { $0 }?.join()
    }
}
