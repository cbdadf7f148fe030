import Dispatch
import Foundation
import Synchronization

/// Ctrl-C (SIGINT), SIGTERM and SIGHUP end graph-ics cleanly: temporary output files are removed, so an
/// interrupted export leaves neither a partial file nor a changed existing one, and the exit status is
/// 128 + the signal's number, as shells expect.
///
/// The signals are taken from the process and handled on a dispatch queue, not in a signal handler, so
/// the clean-up may take locks and allocate. An interrupted import needs nothing undone: every event it
/// created carries its source identity and `transactionId`, and running it again skips or completes them.
///
/// `graph-ics serve` is a service, not a one-shot command: it takes the signals over (``handOver(_:)``),
/// stops gracefully on SIGTERM and SIGINT (exit 0) and re-reads feeds.json on SIGHUP.
public enum Interruption {
    private static let temporaryFiles = Mutex<Set<String>>([])
    private static let service = Mutex<(@Sendable (Int32) -> Void)?>(nil)
    private static let progress = Mutex<(@Sendable () -> String)?>(nil)

    /// Starts listening; call once, early in `main`, and keep what it returns (the signal sources) alive
    /// until the process ends.
    public static func install(_ terminal: Terminal) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM, SIGHUP].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if let handler = service.withLock({ $0 }) { return handler(number) }
                let files = temporaryFiles.withLock { $0 }
                for path in files { unlink(path) }
                terminal.err("")
                let message = progress.withLock { $0 }?() ?? "interrupted; nothing half-written was left behind"
                terminal.error(message)
                // _exit: an interrupted run skips atexit work (and leak reports of sanitizer builds).
                _exit(128 + number)
            }
            source.resume()
            return source
        }
    }

    /// Ends graph-ics after a write found its reader gone (`graph-ics export -o - | head`, a FIFO whose
    /// reader closed): silently, with 141 (128 + SIGPIPE, what a shell shows for other tools), temporary
    /// files removed. SIGPIPE itself is ignored (``GraphICSMain``), so that this clean-up runs.
    public static func endForBrokenPipe() -> Never {
        let files = temporaryFiles.withLock { $0 }
        for path in files { unlink(path) }
        _exit(128 + SIGPIPE)
    }

    /// From now on, SIGINT, SIGTERM and SIGHUP are `handler`'s (called on a dispatch queue with the
    /// signal's number) instead of ending the process.
    static func handOver(_ handler: @escaping @Sendable (Int32) -> Void) {
        service.withLock { $0 = handler }
    }

    /// What an interruption says from now on, instead of the plain message: what the command had done so far
    /// (`import`: how many events it created, and that running it again finishes the rest).
    static func describeProgress(_ message: @escaping @Sendable () -> String) {
        progress.withLock { $0 = message }
    }

    /// A temporary file to remove if graph-ics is interrupted before it is renamed into place.
    static func register(_ path: String) {
        _ = temporaryFiles.withLock { $0.insert(path) }
    }

    static func unregister(_ path: String) {
        _ = temporaryFiles.withLock { $0.remove(path) }
    }
}
