import Foundation

/// What the config file's `[display]` and `[colors]` keys decide about agenda, week and month: the clock,
/// whether there is colour, and the colour of a named calendar or category. Options on the command line
/// (the output form, `--width`) are the commands' own; these have no option.
struct ViewSettings: Equatable {
    /// Times on a 12-hour clock: `display.time`, else the locale (``UserConfig/usesTwelveHourClock(environment:)``).
    var twelveHour = false
    /// `display.color`: `auto` (nil, the default), `always` or `never`.
    var colourSetting: String?
    /// The SGR code of each `colors.NAME`, by lower-cased NAME.
    var palette: [String: String] = [:]

    init(twelveHour: Bool = false, colourSetting: String? = nil, palette: [String: String] = [:]) {
        self.twelveHour = twelveHour
        self.colourSetting = colourSetting
        self.palette = palette
    }

    init(_ config: UserConfig, environment: [String: String] = ProcessInfo.processInfo.environment) {
        twelveHour = config.usesTwelveHourClock(environment: environment)
        colourSetting = config["display.color"]?.lowercased()
        for (name, value) in config.entries where name.hasPrefix("colors.") {
            guard let code = Self.sgr(value) else { continue }
            palette[String(name.dropFirst("colors.".count)).lowercased()] = code
        }
    }

    /// Whether to colour output going to a terminal (`toTerminal`) or not: `always` and `never` as set,
    /// else a terminal without `NO_COLOR` (``ViewWidth/colour(environment:)``).
    func colour(toTerminal: Bool, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        switch colourSetting {
        case "always": true
        case "never": false
        default: toTerminal && ViewWidth.colour(environment: environment)
        }
    }

    /// The SGR foreground code of a `[colors]` value: a colour name, or `#RRGGBB` as 24-bit colour.
    static func sgr(_ value: String) -> String? {
        let names = [
            "black": 30, "red": 31, "green": 32, "yellow": 33, "blue": 34, "magenta": 35, "cyan": 36,
            "white": 37, "default": 39,
        ]
        if let code = names[value.lowercased()] { return String(code) }
        guard value.count == 7, value.hasPrefix("#"), let rgb = Int(value.dropFirst(), radix: 16) else { return nil }
        return "38;2;\(rgb >> 16);\((rgb >> 8) & 0xFF);\(rgb & 0xFF)"
    }
}
