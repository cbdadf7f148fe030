import Foundation
import GraphICS
import ICalBridge

/// The progress of an export on stderr: one line rewritten in place on a terminal, or (with `--verbose`,
/// whose request log would break that line) a note per page, on a terminal or not. Silent when stderr is
/// not a terminal and `--verbose` is not given, so that scripts and logs get no noise.
final class ProgressLine {
    private let terminal: Terminal
    private let enabled: Bool
    private let lines: Bool
    private var shown = false

    init(terminal: Terminal, lines: Bool) {
        self.terminal = terminal
        self.enabled = terminal.stderrIsTerminal || lines
        self.lines = lines
    }

    func show(_ progress: CalendarExporter.Progress) {
        guard enabled else { return }
        var text = "\(progress.pages) page\(progress.pages == 1 ? "" : "s"), \(progress.events) events"
        if progress.seriesTotal > 0 { text += ", series \(progress.seriesRead)/\(progress.seriesTotal)" }
        if lines {
            terminal.note("exporting: " + text)
        } else {
            FileHandle.standardError.write(Data(("\r\u{1B}[Kexporting: " + text).utf8))
            shown = true
        }
    }

    /// Ends the line, so that what follows starts on a line of its own.
    func end() {
        guard shown else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        shown = false
    }
}
