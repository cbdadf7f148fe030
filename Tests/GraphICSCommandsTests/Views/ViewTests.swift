import Foundation
import ICalBridge
import Testing

@testable import GraphICSCommands

/// What the views do, one behaviour at a time: widths and "…", lanes of overlapping events, days crossed at
/// midnight, today, the owner's name, colours, the script forms, the HTML page.
@Suite struct ViewTests {
    @Test("wide characters take two columns and text is cut to the width with …")
    func fitting() {
        #expect(ViewText.width("東京") == 4)
        #expect(ViewText.width("Café") == 4)
        #expect(ViewText.fit("Quarterly review", 10) == "Quarterly…")
        #expect(ViewText.fit("東京チーム", 5) == "東京…")
        #expect(ViewText.width(ViewText.cell("東京チーム", 6)) == 6)
        #expect(ViewText.fit("short", 10) == "short")
    }

    @Test("overlapping events stand side by side in lanes; a later event gets the whole column again")
    func lanes() throws {
        let zone = try ViewFixture.berlin
        let day = CivilDateTime(year: 2026, month: 12, day: 1)
        let range = DayRange(first: day, end: day.adding(days: 1), zone: zone)
        let entries = [
            try ViewFixture.timed("A", "2026-12-01T09:00:00", "2026-12-01T10:30:00"),
            try ViewFixture.timed("B", "2026-12-01T09:30:00", "2026-12-01T10:00:00"),
            try ViewFixture.timed("C", "2026-12-01T13:00:00", "2026-12-01T14:00:00"),
        ]
        let items = AgendaEntry.byDay(entries, days: range)[0].items
        let layout = WeekGrid.DayLayout(items, zone: zone, width: 20)
        #expect(layout.blocks.map(\.lane) == [0, 1, 0])
        #expect(layout.blocks.map(\.lanes) == [2, 2, 1])
        // 10:00 in Berlin is slot 20: A alone in its half; at 10:30 (slot 21) B stands beside A's times.
        #expect(layout.row(20) == "▌" + ViewText.cell("A", 9) + String(repeating: " ", count: 10))
        #expect(layout.row(21) == "▌" + ViewText.cell("10:00–11:30", 9) + "▌" + ViewText.cell("B", 9))
        #expect(layout.row(28) == "▌" + ViewText.cell("C", 19))
    }

    @Test("an event crossing midnight is a block on both days, the grid widened to its hours")
    func acrossMidnight() throws {
        let zone = try ViewFixture.berlin
        let first = CivilDateTime(year: 2026, month: 12, day: 3)
        let range = DayRange(first: first, end: first.adding(days: 2), zone: zone)
        let train = try ViewFixture.timed("Night train", "2026-12-03T21:00:00", "2026-12-04T05:30:00")
        let grid = WeekGrid.render([train], days: range, today: nil, width: 60).split(separator: "\n")
        #expect(grid.first { $0.hasPrefix("22:00") }?.contains("▌Night train") == true)
        #expect(grid.first { $0.hasPrefix("00:00") }?.contains("▌Night train") == true)
        #expect(grid.first { $0.hasPrefix("22:00") }?.contains("22:00–24:00") == false)
        #expect(grid.contains { $0.contains("00:00–06:30") })
    }

    @Test("wide characters keep the week grid and the month page within the width")
    func wideCharacters() throws {
        let demo = try ViewFixture.timed("東京チームのスプリントデモ", "2026-12-01T09:00:00", "2026-12-01T10:00:00")
        let grid = WeekGrid.render([demo], days: try ViewFixture.week, today: nil, width: 80)
        #expect(grid.split(separator: "\n").allSatisfy { ViewText.width(String($0)) <= 80 })
        #expect(grid.contains("│▌東京チ… │"), "a wide character that does not fit leaves a space")
        let days = MonthGrid.days(year: 2026, month: 12, zone: try ViewFixture.berlin)
        let month = MonthGrid.render([demo], month: days, today: nil, width: 80)
        #expect(month.split(separator: "\n").dropFirst().allSatisfy { ViewText.width(String($0)) == 78 })
        #expect(month.contains("│10:00 東… │"))
    }

    @Test("the agenda marks today, names the zone, leaves out empty days and the owner's own name")
    func agendaStyle() throws {
        let style = AgendaText.Style(today: ViewFixture.today, hideEmpty: true, namesZone: true)
        let text = AgendaText.render(try ViewFixture.entries(), days: try ViewFixture.week, style: style)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first == "Times in Europe/Berlin")
        #expect(lines.contains("Tuesday 1 December 2026 (today)"))
        #expect(!text.contains("Sunday 6 December 2026"))
        #expect(!text.contains("(nothing)"))
        #expect(!text.contains("Ana Example"))
        #expect(lines.contains("  09:00–09:15  Standup (Ann Lee) @ Room 4"))
        #expect(lines.contains("  09:00–10:00  Weekly planning @ Room 1"))
    }

    @Test("the agenda's lines are cut to the width; without a width they are whole")
    func agendaWidth() throws {
        let entries = try ViewFixture.entries()
        let cut = AgendaText.render(entries, days: try ViewFixture.week, style: .init(width: 40))
        #expect(cut.split(separator: "\n").allSatisfy { ViewText.width(String($0)) <= 40 })
        #expect(cut.contains("  09:30–11:00  Quarterly business revie…"))
        let whole = AgendaText.render(entries, days: try ViewFixture.week, style: .init())
        #expect(whole.contains("Quarterly business review with the extended leadership team (Carla Mendes)"))
    }

    @Test("colour: each calendar or category in its own colour, cancelled dim; NO_COLOR turns it off")
    func colour() throws {
        let entries = try ViewFixture.entries()
        let text = AgendaText.render(entries, days: try ViewFixture.week, style: .init(colour: true))
        let blue = ViewText.colourCode(for: "Blue category")
        #expect(text.contains("\u{1B}[\(blue)m  09:00–10:00  Weekly planning @ Room 1\u{1B}[0m"))
        #expect(text.contains("\u{1B}[2m  14:00–15:00  [cancelled] Retro (Ann Lee)\u{1B}[0m"))
        #expect(text.contains("\u{1B}[1mMonday 30 November 2026\u{1B}[0m"))
        var team = entries[0]
        team.calendar = "Team"
        let byCalendar = AgendaText.render([team], days: try ViewFixture.week, style: .init(colour: true))
        #expect(byCalendar.contains("\u{1B}[\(ViewText.colourCode(for: "Team"))m  09:00–10:00  Team  Weekly"))
        #expect(!ViewWidth.colour(environment: ["NO_COLOR": "1"]))
    }

    @Test("the width is --width, else COLUMNS")
    func width() {
        #expect(ViewWidth.columns(option: 120, environment: ["COLUMNS": "90"]) == 120)
        #expect(ViewWidth.columns(option: nil, environment: ["COLUMNS": "90"]) == 90)
        let message = usageMessage { () throws(UsageError) in _ = try AgendaCommand.parse(["--width", "10"]) }
        #expect(message == "--width '10' is not a number of columns from 40 to 1000")
    }

    @Test("a calendar column appears when events carry their calendar's name")
    func calendarColumn() throws {
        var entries = try ViewFixture.entries()
        entries[0].calendar = "Work"
        entries[1].calendar = "Family"
        let text = AgendaText.render(Array(entries.prefix(2)), days: try ViewFixture.week, style: .init())
        #expect(text.contains("  09:00–10:00  Work    Weekly planning @ Room 1"))
        #expect(text.contains("  12:00–13:00  Family  Lunch with Ben (Ben Walters) @ Canteen"))
    }

    @Test("--tsv: a header and a tab-separated line per event in start order")
    func tsv() throws {
        let lines = AgendaScript.tsv(try ViewFixture.entries(), zone: try ViewFixture.berlin).split(separator: "\n")
        let header = "start_date\tstart_time\tend_date\tend_time\tsubject\tlocation\torganizer\tcalendar\tshow_as"
        #expect(String(lines[0]) == header + "\tresponse\tid")
        #expect(lines.count == 1 + (try ViewFixture.entries().count))
        #expect(lines.contains("2026-12-01\t\t2026-12-02\t\tCompany holiday\t\t\t\tfree\torganizer\tAAMkAGI2-week-03"))
        #expect(
            lines.contains(
                "2026-12-01\t09:00\t2026-12-01\t09:15\tStandup\tRoom 4\tAnn Lee\t\tbusy\taccepted"
                    + "\tAAMkAGI2-week-04"))
    }

    @Test("--format fills {field} and {start:%H:%M} per event; a bad field lists the fields")
    func format() throws {
        let template = try AgendaScript.Template("{start:%a %H:%M} {subject}{{{response}}} {joinUrl}")
        let text = AgendaScript.format(try ViewFixture.entries(), template: template, zone: try ViewFixture.berlin)
        #expect(text.contains("Tue 09:00 Standup{accepted} https://teams.example/l/meetup-join/standup\n"))
        #expect(text.hasPrefix("Mon 09:00 Weekly planning{organizer} \n"))
        let bad = usageMessage { () throws(UsageError) in _ = try AgendaScript.Template("{title}") }
        #expect(bad?.hasPrefix("--format: '{title}' is not a field; the fields are {start}, {end}, {subject}") == true)
        let open = usageMessage { () throws(UsageError) in _ = try AgendaScript.Template("{start") }
        #expect(open?.contains("without its '}'") == true)
        #expect(AgendaScript.strftime("%Y-%m-%d %e %B %%", ViewFixture.today) == "2026-12-01  1 December %")
    }

    @Test("agenda takes one output form at a time")
    func oneForm() {
        let message = usageMessage { () throws(UsageError) in _ = try AgendaCommand.parse(["--json", "--tsv"]) }
        #expect(message == "--json and --tsv cannot be combined; give one of them")
    }

    @Test("--json carries showAs, responseStatus, categories, calendar and joinUrl")
    func json() throws {
        let text = try AgendaJSON.text(try ViewFixture.entries(), zone: try ViewFixture.berlin)
        let array = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        let standup = try #require(array.first { $0["subject"] as? String == "Standup" })
        #expect(standup["showAs"] as? String == "busy")
        #expect(standup["responseStatus"] as? String == "accepted")
        #expect(standup["joinUrl"] as? String == "https://teams.example/l/meetup-join/standup")
        #expect(standup["calendar"] is NSNull)
        #expect(standup["start"] as? String == "2026-12-01T09:00:00+01:00")
        let planning = try #require(array.first { $0["subject"] as? String == "Weekly planning" })
        #expect(planning["categories"] as? [String] == ["Blue category"])
        #expect(planning["organizer"] is NSNull, "the owner's own name is left out")
        #expect(text.contains("\"joinUrl\": \"https://teams.example/l/meetup-join/standup\""))
        #expect(text.contains("Sprint demo — Zürich team"), "non-ASCII text as it is")
    }

    @Test("week draws at most seven days; month reads this, next, last and YYYY-MM")
    func ranges() throws {
        let long = usageMessage { () throws(UsageError) in
            _ = try WeekCommand.parse(["--from", "2026-12-01", "--to", "2026-12-10"])
        }
        #expect(long?.hasPrefix("week draws at most seven days") == true)
        #expect(try RangeOption.month("next", today: ViewFixture.today) == (2027, 1))
        #expect(try RangeOption.month("last", today: ViewFixture.today) == (2026, 11))
        #expect(try RangeOption.month("2026-02", today: ViewFixture.today) == (2026, 2))
        let bad = usageMessage { () throws(UsageError) in _ = try MonthCommand.parse(["--month", "2026-13"]) }
        #expect(bad == "--month '2026-13' is not this, next, last or a month such as 2026-12")
    }

    @Test("the month page says +N more past five events a day")
    func monthOverflow() throws {
        let entries = try (0..<7).map { index in
            try ViewFixture.timed("E\(index)", "2026-12-01T0\(index):00:00", "2026-12-01T0\(index):30:00")
        }
        let days = MonthGrid.days(year: 2026, month: 12, zone: .utc)
        let text = MonthGrid.render(entries, month: days, today: nil, width: 80)
        #expect(text.contains("03:00 E3"))
        #expect(!text.contains("04:00 E4"))
        #expect(text.contains("+3 more"))
    }

    @Test("the HTML page is self-contained, has every event of the week and escapes text")
    func html() throws {
        var entries = try ViewFixture.entries()
        entries.append(
            try ViewFixture.timed("<script>alert(1)</script> & co", "2026-12-02T15:00:00", "2026-12-02T16:00:00"))
        let page = WeekPage.render(entries, days: try ViewFixture.week, today: ViewFixture.today)
        for subject in try ViewFixture.subjects() { #expect(page.contains(WeekPage.escape(subject)), "\(subject)") }
        #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; co"))
        #expect(!page.lowercased().contains("<script"))
        #expect(!page.contains("src="), "no external assets")
        #expect(!page.contains("href="), "no external assets")
        #expect(!page.contains("url("), "no external assets")
        #expect(page.contains("@media print"))
        #expect(page.contains("<div class=\"head today\">Tuesday 1 December 2026 (today)</div>"))
    }
}
