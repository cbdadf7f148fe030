import Foundation
import ICalBridge
import Synchronization

/// Standard output and standard error of the process, with graph-ics's conventions: data on stdout only,
/// `warning:`/`error:` on stderr, colour only when stderr is a terminal and `NO_COLOR` is not set.
public final class Terminal: Sendable {
    /// Held while writing, so that lines of different threads do not interleave.
    private let lock = Mutex(())
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
        lock.withLock { _ in Self.write(text, to: 1) }
    }

    /// Writes one line to stderr. Control characters other than line feeds and tabs are shown as U+FFFD:
    /// text from a file or a server (an event's subject, an error message) cannot move the cursor, recolour
    /// or retitle the terminal.
    public func err(_ line: String) {
        write(PrintableText.printable(line, lineBreaks: "\n") + "\n")
    }

    /// `error: MESSAGE` on stderr, on one line (line breaks in the message become spaces).
    public func error(_ message: String) {
        write(
            (colour ? "\u{1B}[1;31merror:\u{1B}[0m " : "error: ") + PrintableText.printable(message, lineBreaks: " ")
                + "\n")
    }

    /// `warning: MESSAGE` on stderr, on one line.
    public func warning(_ message: String) {
        write(
            (colour ? "\u{1B}[1;33mwarning:\u{1B}[0m " : "warning: ")
                + PrintableText.printable(message, lineBreaks: " ") + "\n")
    }

    /// `note: MESSAGE` on stderr, on one line.
    public func note(_ message: String) {
        write(
            (colour ? "\u{1B}[1mnote:\u{1B}[0m " : "note: ") + PrintableText.printable(message, lineBreaks: " ") + "\n")
    }

    private func write(_ text: String) {
        lock.withLock { _ in Self.write(text, to: 2) }
    }

    /// Writes to standard output or error; a reader that went away ends graph-ics (141), other failures
    /// are left to the exit status (there is nowhere to report them).
    private static func write(_ text: String, to descriptor: Int32) {
        var text = text
        let failure = text.withUTF8 { POSIXFile.writeAll(descriptor, UnsafeRawBufferPointer($0)) }
        if failure == EPIPE { Interruption.endForBrokenPipe() }
    }
}

extension Terminal {
    /// Asks `question` on standard error (no line break after it) and reads one line of standard input,
    /// trimmed and lower-cased; empty at the end of input.
    func answer(to question: String) -> String {
        FileHandle.standardError.write(Data(PrintableText.printable(question, lineBreaks: " ").utf8))
        return readLine()?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
    }

    /// Nil to go ahead: `yes` (the command's `--yes`), or `y` answered to `question` on a terminal. Else the
    /// exit status: 64 after the error `refusal` when standard input is no terminal to ask on, 0 after the
    /// note `declined` when the answer is anything but yes.
    func confirm(_ question: String, yes: Bool, refusal: String, declined: String) -> ExitStatus? {
        if yes { return nil }
        guard stdinIsTerminal else {
            error(refusal)
            return .usage
        }
        let answer = answer(to: question)
        guard answer == "y" || answer == "yes" else {
            note(declined)
            return .ok
        }
        return nil
    }
}
