import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Waiting for an exclusive `flock`, the one way graph-ics processes take turns: the token store's
/// account lock (refreshes) and `sync`'s folder lock.
public enum FileLocking {
    /// How a wait for the lock ended.
    public enum Outcome: Equatable, Sendable {
        /// The lock is held on the descriptor; closing it (or the process ending, however) lets it go.
        case locked
        /// Another holder kept it for the whole timeout.
        case timedOut
        /// `flock` failed otherwise; the errno.
        case failed(Int32)
    }

    /// Tries `flock(LOCK_EX | LOCK_NB)` on `descriptor` every `interval` until it succeeds or `timeout` has
    /// passed (an interrupted call is tried again at once).
    public static func lockExclusively(_ descriptor: Int32, timeout: Duration, interval: Duration) -> Outcome {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        let pause = useconds_t(max(1, (interval / .microseconds(1)).rounded()))
        while true {
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return .locked }
            let number = errno
            guard number == EWOULDBLOCK || number == EINTR else { return .failed(number) }
            guard clock.now < deadline else { return .timedOut }
            if number == EWOULDBLOCK { usleep(pause) }
        }
    }
}
