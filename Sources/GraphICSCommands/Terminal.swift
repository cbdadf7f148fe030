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

    /// Writes one line to stderr. Control characters other than line feeds and tabs are shown as U+FFFD:
    /// text from a file or a server (an event's subject, an error message) cannot move the cursor, recolour
    /// or retitle the terminal.
    public func err(_ line: String) {
        write(Self.printable(line, lineBreaks: "\n") + "\n")
    }

    /// `error: MESSAGE` on stderr, on one line (line breaks in the message become spaces).
    public func error(_ message: String) {
        write((colour ? "\u{1B}[1;31merror:\u{1B}[0m " : "error: ") + Self.printable(message, lineBreaks: " ") + "\n")
    }

    /// `warning: MESSAGE` on stderr, on one line.
    public func warning(_ message: String) {
        write(
            (colour ? "\u{1B}[1;33mwarning:\u{1B}[0m " : "warning: ") + Self.printable(message, lineBreaks: " ") + "\n")
    }

    /// `note: MESSAGE` on stderr, on one line.
    public func note(_ message: String) {
        write((colour ? "\u{1B}[1mnote:\u{1B}[0m " : "note: ") + Self.printable(message, lineBreaks: " ") + "\n")
    }

    private func write(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// `text` with each line break (CR, LF, CRLF, NEL, U+2028/9) replaced by `lineBreaks` and every other
    /// control character (C0 but tab, DEL, C1) by U+FFFD.
    static func printable(_ text: String, lineBreaks: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.value >= 0x2028 })
        else { return text }
        var result = String.UnicodeScalarView()
        var previous: Unicode.Scalar?
        for scalar in text.unicodeScalars {
            defer { previous = scalar }
            switch scalar {
            case "\t":
                result.append(scalar)
            case "\n" where previous == "\r":
                continue
            case "\r", "\n", "\u{85}", "\u{2028}", "\u{2029}":
                result.append(contentsOf: lineBreaks.unicodeScalars)
            default:
                if scalar.properties.generalCategory == .control {
                    result.append("\u{FFFD}")
                } else {
                    result.append(scalar)
                }
            }
        }
        return String(result)
    }
}
