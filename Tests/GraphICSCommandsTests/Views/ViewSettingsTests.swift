import Foundation
import ICalBridge
import Testing

@testable import GraphICSCommands

/// The config file's `[display]` and `[colors]` keys as agenda, week and month apply them.
@Suite struct ViewSettingsTests {
    static func config(_ text: String) throws -> UserConfig {
        try UserConfig(parsing: text, file: "config")
    }

    @Test("display.time, display.color and [colors] become the views' clock, colour and palette")
    func settingsFromTheFile() throws {
        let set = ViewSettings(
            try Self.config("[display]\ntime = 12h\ncolor = always\n[colors]\nTeam = #ff8000\nwork = Red\n"),
            environment: [:])
        #expect(set.twelveHour)
        #expect(set.colour(toTerminal: false, environment: ["NO_COLOR": "1"]), "always: even into a file")
        #expect(set.palette == ["team": "38;2;255;128;0", "work": "31"])

        let never = ViewSettings(try Self.config("[display]\ncolor = never\n"), environment: [:])
        #expect(!never.colour(toTerminal: true, environment: [:]))
        let unset = ViewSettings(UserConfig(), environment: ["LANG": "de_DE.UTF-8"])
        #expect(!unset.twelveHour)
        #expect(!unset.colour(toTerminal: false, environment: [:]), "auto: never into a file or pipe")
        #expect(ViewSettings(UserConfig(), environment: ["LANG": "en_US.UTF-8"]).twelveHour, "from the locale")
    }

    @Test("a 12-hour clock: 9:05am, 12:00pm at noon, 12:00am at midnight, 8am as the week grid's label")
    func twelveHourTimes() {
        #expect(
            ViewText.time(CivilDateTime(year: 2026, month: 12, day: 1, hour: 9, minute: 5), twelveHour: true)
                == "9:05am")
        #expect(ViewText.time(CivilDateTime(year: 2026, month: 12, day: 1, hour: 12), twelveHour: true) == "12:00pm")
        #expect(ViewText.time(CivilDateTime(year: 2026, month: 12, day: 1, hour: 0), twelveHour: true) == "12:00am")
        #expect(ViewText.time(CivilDateTime(year: 2026, month: 12, day: 1, hour: 21, minute: 30)) == "21:30")
        #expect(ViewText.hourLabel(8, twelveHour: true) == "8am")
        #expect(ViewText.hourLabel(13, twelveHour: true) == "1pm")
        #expect(ViewText.hourLabel(13, twelveHour: false) == "13:00")
    }

    @Test("agenda, week and month print the fixtures' week on a 12-hour clock when asked, in the palette's colour")
    func viewsFollowTheSettings() throws {
        let entries = try ViewFixture.entries()
        let week = try ViewFixture.week
        let plain = AgendaText.render(entries, days: week, style: AgendaText.Style(today: ViewFixture.today))
        let twelve = AgendaText.render(
            entries, days: week, style: AgendaText.Style(today: ViewFixture.today, twelveHour: true))
        #expect(plain.contains("09:00–") && !plain.contains("am–"))
        #expect(twelve.contains("9:00am–") && !twelve.contains("09:00–"), "\(twelve)")
        #expect(twelve.components(separatedBy: "\n").count == plain.components(separatedBy: "\n").count)

        let grid = WeekGrid.render(entries, days: week, today: ViewFixture.today, width: 120, twelveHour: true)
        #expect(grid.contains("\n8am  │") && grid.contains("\n1pm  │") && !grid.contains("13:00"), "\(grid)")
        let month = try MonthGrid.render(
            entries, month: MonthGrid.days(year: 2026, month: 12, zone: ViewFixture.berlin),
            today: ViewFixture.today, width: 160, twelveHour: true)
        #expect(month.contains("am ") || month.contains("pm "), "\(month)")

        let key = try #require(entries.lazy.compactMap(ViewText.colourKey).first)
        let coloured = AgendaText.render(
            entries, days: week, style: AgendaText.Style(colour: true, palette: [key.lowercased(): "38;2;1;2;3"]))
        #expect(coloured.contains("\u{1B}[38;2;1;2;3m"), "the palette's colour for \(key)")
    }

    @Test("agenda.format gives agenda's form when no option does; a broken template names the key")
    func configuredForm() throws {
        #expect(try AgendaCommand.configuredForm(UserConfig()) == .text)
        #expect(try AgendaCommand.configuredForm(Self.config("[agenda]\nformat = TSV\n")) == .tsv)
        #expect(try AgendaCommand.configuredForm(Self.config("[agenda]\nformat = json\n")) == .json)
        #expect(
            try AgendaCommand.configuredForm(Self.config("[agenda]\nformat = {start:%H:%M} {subject}\n"))
                == .format(try AgendaScript.Template("{start:%H:%M} {subject}")))
        #expect(throws: CommandFailure.self) {
            try AgendaCommand.configuredForm(Self.config("[agenda]\nformat = {nosuchfield}\n"))
        }
    }
}
