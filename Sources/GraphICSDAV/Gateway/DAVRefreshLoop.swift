import Dispatch
import Foundation
import ICalBridge
import Synchronization

/// Serve's background refresh of the logins' calendars: every calendar whose last round is older than
/// `--refresh` gets one, so that an Outlook change is there for a client's next sync without the client
/// waiting for Graph. Runs on its own thread until ``stop()``, which returns once the thread has ended.
public final class DAVRefreshLoop: Sendable {
    private let wake = DispatchSemaphore(value: 0)
    private let stopped = Atomic<Bool>(false)
    private let thread: Mutex<JoinableThread?>

    public init(gateway: DAVGateway, interval: Int) {
        thread = Mutex(nil)
        let wake = wake
        let pause = Double(max(1, min(interval, 60)))
        let started = JoinableThread.start(name: "graph-ics dav refresh") { [self] in
            while !stopped.load(ordering: .acquiring) {
                gateway.refreshAll()
                _ = wake.wait(timeout: .now() + pause)
            }
        }
        thread.withLock { $0 = started }
    }

    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        wake.signal()
        thread.withLock { $0?.join() }
    }
}
