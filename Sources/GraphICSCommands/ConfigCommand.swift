import Foundation
import GraphICS
import ICalBridge

/// `graph-ics config`: reads and changes the config file of defaults.
struct ConfigCommand: Command {
    static let name = "config"
    static let abstract = "Show or change the defaults in graph-ics's config file."
    static let synopsis = ["get KEY", "set KEY VALUE", "unset KEY", "list [--keys]", "path"]
    static let discussion = """
        The config file ($GRAPH_ICS_CONFIG_DIR/config, beside the saved sign-ins) gives the defaults
        of options left out: command-line options win over it, it wins over graph-ics's own defaults.
        Its format is git's: [section] lines, 'key = value' lines, '#' or ';' comment lines. Keys are
        named section.key here:

          defaults.account    the saved sign-in used without --account
          defaults.calendar   the calendar used without --calendar
          defaults.zone       the time zone used without --tz
          agenda.format       text, tsv, json, or a --format template
          display.time        locale (the default), 24h or 12h
          display.color       auto (the default), always or never
          colors.NAME         a colour for the calendar or category NAME

        'set' checks the value, changes only its own line (comments and order stay) and replaces
        the file atomically. An unknown key or a bad value in the file is an error naming its line.
        """
    static let epilogue = """
        Exit status: 0 ok, 1 'get' of a key the file does not set, 64 usage or a bad config file,
        74 the file cannot be written.
        """
    static let operands: ValueCompletion? = .choices(["get", "set", "unset", "list", "path"])

    struct Options: OptionGroup {
        let keys = Flag("--keys", help: "With list: every key graph-ics knows, with the values it takes.")
    }

    enum Action: Equatable {
        case get(String), set(String, String), unset(String), list, path
    }

    var action: Action
    var keys: Bool

    init(_ parsed: Parsed<Options>) throws(UsageError) {
        keys = parsed[\.keys]
        let words = parsed.positionals
        let arguments = Array(words.dropFirst())
        switch (words.first ?? "list", arguments.count) {
        case ("get", 1): action = .get(arguments[0])
        case ("set", 2): action = .set(arguments[0], arguments[1])
        case ("unset", 1): action = .unset(arguments[0])
        case ("list", 0): action = .list
        case ("path", 0): action = .path
        case ("set", _): throw UsageError("config set takes KEY VALUE")
        case ("get", _), ("unset", _): throw UsageError("config \(words[0]) takes one KEY")
        default:
            throw UsageError(
                "config takes get KEY, set KEY VALUE, unset KEY, list or path, not '\(words.joined(separator: " "))'")
        }
        if keys && action != .list { throw UsageError("--keys goes with 'config list'") }
    }

    func run(_ terminal: Terminal) throws -> ExitStatus {
        let directory = try UserConfig.directory(environment: ProcessInfo.processInfo.environment)
        switch action {
        case .path:
            terminal.out(UserConfig.file(in: directory).path + "\n")
        case .list where keys:
            for key in UserConfigKey.all { terminal.out("\(key.name) = \(key.values)\n    \(key.help)\n") }
        case .list:
            for (name, value) in try UserConfig.load(directory: directory).entries {
                terminal.out("\(name) = \(value)\n")
            }
        case .get(let name):
            guard UserConfigKey.named(name) != nil else { throw UsageError(UserConfigKey.unknown(name)) }
            guard let value = try UserConfig.load(directory: directory)[name.lowercased()] else {
                return .partlyFailed
            }
            terminal.out(value + "\n")
        case .set(let name, let value):
            var config = try UserConfig.load(directory: directory)
            try config.set(name, to: value)
            try config.save(directory: directory)
        case .unset(let name):
            var config = try UserConfig.load(directory: directory)
            if try config.unset(name) { try config.save(directory: directory) }
        }
        return .ok
    }
}
