import Dispatch
import Foundation

/// Ctrl-C (SIGINT), SIGTERM and SIGHUP end graph-ics cleanly: temporary output files are removed, so an
/// interrupted export leaves neither a partial file nor a changed existing one, and the exit status is
/// 128 + the signal's number, as shells expect.
///
/// The signals are taken from the process and handled on a dispatch queue, not in a signal handler, so
/// the clean-up may take locks and allocate. An interrupted import needs nothing undone: every event it
/// created carries its source identity and `transactionId`, and running it again skips or completes them.
public enum Interruption {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var temporaryFiles: Set<String> = []
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    /// Starts listening; call once, early in `main`.
    public static func install(_ terminal: Terminal) {
        for number in [SIGINT, SIGTERM, SIGHUP] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                let files = lock.withLock { temporaryFiles }
                for path in files { unlink(path) }
                terminal.err("")
                terminal.error("interrupted; nothing half-written was left behind")
                // _exit: an interrupted run skips atexit work (and leak reports of sanitizer builds).
                _exit(128 + number)
            }
            source.resume()
            lock.withLock { sources.append(source) }
        }
    }

    /// A temporary file to remove if graph-ics is interrupted before it is renamed into place.
    static func register(_ path: String) {
        _ = lock.withLock { temporaryFiles.insert(path) }
    }

    static func unregister(_ path: String) {
        _ = lock.withLock { temporaryFiles.remove(path) }
    }
}
