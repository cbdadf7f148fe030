import Foundation

/// How wide the terminal views are drawn: `--width N`, else `COLUMNS`, else the size of the terminal on
/// standard output.
enum ViewWidth {
    /// `--width N` of agenda, week and month.
    static var option: Option<Int> {
        Option(
            spec: OptionSpec(
                names: ["--width"], valueName: "N",
                help: "Draw in N columns (at least 40) instead of the terminal's width (COLUMNS, else the "
                    + "terminal's size).")
        ) { (text: String) throws(UsageError) -> Int in
            guard let value = Int(text), value >= 40, value <= 1000 else {
                throw UsageError("--width '\(text)' is not a number of columns from 40 to 1000")
            }
            return value
        }
    }

    /// The width to draw in: `option`, else `COLUMNS` (a positive number), else the terminal's size when
    /// standard output is one; nil when none says.
    static func columns(option: Int?, environment: [String: String] = ProcessInfo.processInfo.environment) -> Int? {
        if let option { return option }
        if let text = environment["COLUMNS"], let value = Int(text), value > 0 { return value }
        guard isatty(1) == 1 else { return nil }
        var size = winsize()
        guard ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// The width agenda cuts its lines to: `option`, else ``columns(option:environment:)`` when standard output
    /// is a terminal; nil (never cut) when it is a pipe or a file.
    static func lineWidth(option: Int?, environment: [String: String] = ProcessInfo.processInfo.environment) -> Int? {
        option ?? (isatty(1) == 1 ? columns(option: nil, environment: environment) : nil)
    }

    /// Colour on standard output: a terminal there and `NO_COLOR` not set (to anything).
    static func colour(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        isatty(1) == 1 && environment["NO_COLOR"] == nil
    }
}
