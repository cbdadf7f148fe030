import Foundation
import Testing

@testable import GraphICSCommands

/// The config file of defaults, read and changed in-process: its format, its errors, `set` keeping comments.
@Suite struct UserConfigTests {
    static let sample = """
        # graph-ics defaults
        [defaults]
        account = work
        zone = Europe/Berlin

        ; how agenda looks
        [agenda]
        format = {start:%H:%M} {subject} # not a comment
        [colors]
        Team = cyan

        """

    static func parse(_ text: String) throws(CommandFailure) -> UserConfig {
        try UserConfig(parsing: text, file: "/home/me/.config/graph-ics/config")
    }

    static func failure(_ text: String) -> String? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error.message
        }
    }

    @Test("sections, keys and values are read; a value is the rest of its line, '#' included")
    func reads() throws {
        let config = try Self.parse(Self.sample)
        #expect(config.account == "work")
        #expect(config.zone?.name == "Europe/Berlin")
        #expect(config.calendar == nil)
        #expect(config["agenda.format"] == "{start:%H:%M} {subject} # not a comment")
        #expect(config["colors.team"] == "cyan")
        #expect(config.entries.map(\.name) == ["defaults.account", "defaults.zone", "agenda.format", "colors.team"])
        #expect(config.text == Self.sample, "read and written back unchanged")
    }

    @Test("an unknown key or section, a bad value, a key set twice or before any section is an error naming the line")
    func errorsNameTheLine() {
        let file = "/home/me/.config/graph-ics/config"
        #expect(
            Self.failure("[defaults]\nzone = Mars/Olympus\n")
                == "\(file):2: defaults.zone: 'Mars/Olympus' is not a time zone (use an IANA name such as Europe/Berlin)"
        )
        #expect(
            Self.failure("[defaults]\n\naccont = work\n")
                == "\(file):3: unknown key 'defaults.accont' (did you mean 'defaults.account'?)")
        #expect(
            Self.failure("[display]\ntime = 13h\n") == "\(file):2: display.time: '13h' is not one of locale, 24h, 12h")
        #expect(Self.failure("[display]\ncolor = rainbow\n")?.hasPrefix("\(file):2: display.color: 'rainbow'") == true)
        #expect(
            Self.failure("[colors]\nTeam = #12345\n")?.hasPrefix("\(file):2: colors.team: '#12345' is not a colour")
                == true)
        #expect(Self.failure("[agenda]\nformat = html\n")?.contains("or a template such as") == true)
        #expect(
            Self.failure("[defaults]\naccount = a\naccount = b\n")
                == "\(file):3: 'defaults.account' is already set on line 2")
        #expect(Self.failure("zone = UTC\n") == "\(file):1: 'zone' comes before any [section]")
        #expect(Self.failure("[calendar]\n")?.hasPrefix("\(file):1: unknown section [calendar]") == true)
        #expect(Self.failure("[defaults\n") == "\(file):1: a section line is '[name]', not '[defaults'")
        #expect(Self.failure("[defaults]\njust words\n")?.hasPrefix("\(file):2: expected 'key = value'") == true)
        #expect(Self.failure("[defaults]\ncalendar =\n") == "\(file):2: 'defaults.calendar' needs a value (NAME|ID)")
    }

    @Test("set replaces its own line, adds a key to the end of its section or a new section, and keeps comments")
    func setKeepsTheRest() throws {
        var config = try Self.parse(Self.sample)
        try config.set("defaults.zone", to: "America/New_York")
        try config.set("defaults.calendar", to: "Team")
        try config.set("display.time", to: "12h")
        #expect(
            config.text == """
                # graph-ics defaults
                [defaults]
                account = work
                zone = America/New_York
                calendar = Team

                ; how agenda looks
                [agenda]
                format = {start:%H:%M} {subject} # not a comment
                [colors]
                Team = cyan

                [display]
                time = 12h

                """)
        #expect(try Self.parse(config.text) == config)
        #expect(throws: UsageError("display.time: 'noon' is not one of locale, 24h, 12h")) {
            try config.set("display.time", to: "noon")
        }
        #expect(try config.unset("defaults.zone"))
        #expect(try !config.unset("defaults.zone"))
        #expect(config.zone == nil)
    }

    @Test("display.time: 12h and 24h as set, else from LC_ALL, LC_TIME or LANG")
    func clock() throws {
        let unset = UserConfig()
        #expect(unset.usesTwelveHourClock(environment: ["LANG": "en_US.UTF-8"]))
        #expect(!unset.usesTwelveHourClock(environment: ["LANG": "de_DE.UTF-8"]))
        #expect(!unset.usesTwelveHourClock(environment: ["LC_TIME": "en_GB.UTF-8", "LANG": "en_US.UTF-8"]))
        #expect(!unset.usesTwelveHourClock(environment: [:]))
        var config = UserConfig()
        try config.set("display.time", to: "24h")
        #expect(!config.usesTwelveHourClock(environment: ["LANG": "en_US.UTF-8"]))
        try config.set("display.time", to: "12h")
        #expect(config.usesTwelveHourClock(environment: ["LANG": "de_DE.UTF-8"]))
    }

    @Test("save writes atomically into a private folder; load of a missing file is an empty config")
    func saveAndLoad() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("graph-ics-config-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try UserConfig.load(directory: folder) == UserConfig())
        var config = try Self.parse(Self.sample)
        try config.set("defaults.calendar", to: "Work")
        try config.save(directory: folder)
        #expect(try UserConfig.load(directory: folder) == config)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(leftovers == ["config"], "no temporary file stays: \(leftovers)")
        let mode =
            try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("config").path)[
                .posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("config get, set, unset, list and path read their operands; anything else is a usage error")
    func commandLine() throws {
        #expect(try ConfigCommand.parse(["get", "defaults.zone"]).action == .get("defaults.zone"))
        #expect(try ConfigCommand.parse(["set", "defaults.zone", "UTC"]).action == .set("defaults.zone", "UTC"))
        #expect(try ConfigCommand.parse(["unset", "defaults.zone"]).action == .unset("defaults.zone"))
        #expect(try ConfigCommand.parse([]).action == .list)
        #expect(try ConfigCommand.parse(["list", "--keys"]).keys)
        #expect(try ConfigCommand.parse(["path"]).action == .path)
        #expect(throws: UsageError("config set takes KEY VALUE")) { try ConfigCommand.parse(["set", "defaults.zone"]) }
        #expect(throws: UsageError("--keys goes with 'config list'")) { try ConfigCommand.parse(["path", "--keys"]) }
        #expect(throws: UsageError.self) { try ConfigCommand.parse(["edit"]) }
    }
}
