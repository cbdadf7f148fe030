import Foundation

/// Standard output and standard error of the process, with graph-ics's conventions: data on stdout only,
/// `warning:`/`error:` on stderr, colour only when stderr is a terminal and `NO_COLOR` is not set.
public final class Terminal: @unchecked Sendable {
    private let lock = NSLock()
    public let stderrIsTerminal: Bool
    public let stdinIsTerminal: Bool
    private let colour: Bool

    public init() {
        stderrIsTerminal = isatty(2) == 1
        stdinIsTerminal = isatty(0) == 1
        colour = stderrIsTerminal && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
    }

    /// Writes `text` to stdout as is.
    public func out(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Writes one line to stderr.
    public func err(_ line: String) {
        lock.lock()
        defer { lock.unlock() }
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    public func error(_ message: String) {
        err((colour ? "\u{1B}[1;31merror:\u{1B}[0m " : "error: ") + message)
    }

    public func warning(_ message: String) {
        err((colour ? "\u{1B}[1;33mwarning:\u{1B}[0m " : "warning: ") + message)
    }

    public func note(_ message: String) {
        err((colour ? "\u{1B}[1mnote:\u{1B}[0m " : "note: ") + message)
    }
}
