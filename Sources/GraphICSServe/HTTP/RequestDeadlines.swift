import Foundation
import ICalBridge
import Synchronization

/// When one connection's next request must have arrived whole.
final class RequestDeadline: Sendable {
    /// The connection's socket.
    let socket: Int32
    /// Milliseconds on `RequestDeadlines.now()`; `Int64.max` while a request is being answered.
    let deadline: Atomic<Int64>

    init(socket: Int32, deadline: Int64) {
        self.socket = socket
        self.deadline = Atomic(deadline)
    }
}

/// Disconnects clients that take longer than the request timeout to send a request (header and body),
/// counted from the connection's opening or the end of the previous response.
///
/// libmicrohttpd's own connection timeout only counts idle time, so a client sending one byte a second
/// (slowloris) would hold its connection for hours. A watchdog thread looks at the open connections four
/// times a second and shuts down (`shutdown(2)`) the socket of every one past its deadline; libmicrohttpd
/// then closes it as a client that hung up. Connections are registered when they open and removed, under
/// the same lock, before libmicrohttpd closes their socket, so a socket number reused by a later
/// connection is never shut down by mistake. Requests themselves only store to an atomic.
final class RequestDeadlines: Sendable {
    /// The timeout in milliseconds; 0: no deadline.
    let timeout: Int64
    private let open = Mutex<[ObjectIdentifier: RequestDeadline]>([:])
    private let stopped = Atomic<Bool>(false)
    private let watchdog = Mutex<JoinableThread?>(nil)

    init(seconds: Int) {
        timeout = Int64(seconds) * 1000
    }

    /// Milliseconds on the monotonic clock.
    static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }

    /// Starts the watchdog thread (none without a timeout).
    func start() {
        guard timeout > 0 else { return }
        let interval = useconds_t(min(250, max(10, timeout / 4)) * 1000)
        let started = JoinableThread.start(name: "graph-ics request deadlines") { [self] in
            while !stopped.load(ordering: .relaxed) {
                usleep(interval)
                sweep()
            }
        }
        watchdog.withLock { $0 = started }
    }

    /// Stops the watchdog and joins its thread.
    func stop() {
        stopped.store(true, ordering: .relaxed)
        watchdog.withLock { $0 }?.join()
    }

    /// Registers a connection that just opened; its first request is due within the timeout.
    func opened(socket: Int32) -> RequestDeadline {
        let entry = RequestDeadline(socket: socket, deadline: due())
        open.withLock { $0[ObjectIdentifier(entry)] = entry }
        return entry
    }

    /// Forgets a connection libmicrohttpd is closing.
    func closed(_ entry: RequestDeadline) {
        _ = open.withLock { $0.removeValue(forKey: ObjectIdentifier(entry)) }
    }

    /// The deadline for a request starting now.
    func due() -> Int64 {
        timeout > 0 ? Self.now() + timeout : .max
    }

    /// Shuts down every connection past its deadline.
    private func sweep() {
        let now = Self.now()
        open.withLock { entries in
            for entry in entries.values where entry.deadline.load(ordering: .relaxed) < now {
                entry.deadline.store(.max, ordering: .relaxed)
                shutdown(entry.socket, Int32(SHUT_RDWR))
            }
        }
    }
}
