import Foundation
import ICalBridge
import Testing

@testable import GraphICSCommands

/// The week grid, the month page and the agenda of the fixtures' week against their recorded forms, at 80
/// and 160 columns (`RECORD_SNAPSHOTS=1` rewrites them).
@Suite struct ViewSnapshotTests {
    static let folder = SnapshotTests.snapshots.appendingPathComponent("views")

    @Test("the week grid of the fixtures' week is the recorded one", arguments: [80, 160])
    func weekGrid(width: Int) throws {
        let text = WeekGrid.render(
            try ViewFixture.entries(), days: try ViewFixture.week, today: ViewFixture.today, width: width)
        #expect(text.split(separator: "\n").allSatisfy { ViewText.width(String($0)) <= width })
        Snapshot.expect(text, matches: Self.folder.appendingPathComponent("week-\(width).txt"))
    }

    @Test("the month page of the fixtures' month is the recorded one", arguments: [80, 160])
    func monthGrid(width: Int) throws {
        let days = MonthGrid.days(year: 2026, month: 12, zone: try ViewFixture.berlin)
        let text = MonthGrid.render(try ViewFixture.entries(), month: days, today: ViewFixture.today, width: width)
        #expect(text.split(separator: "\n").allSatisfy { ViewText.width(String($0)) <= width })
        Snapshot.expect(text, matches: Self.folder.appendingPathComponent("month-\(width).txt"))
    }

    @Test("the agenda of the fixtures' week fitted to 80 columns is the recorded one")
    func agendaText() throws {
        let style = AgendaText.Style(width: 80, today: ViewFixture.today)
        let text = AgendaText.render(try ViewFixture.entries(), days: try ViewFixture.week, style: style)
        Snapshot.expect(text, matches: Self.folder.appendingPathComponent("agenda-80.txt"))
    }

    @Test("the HTML page of the fixtures' week is the recorded one")
    func htmlPage() throws {
        let page = WeekPage.render(try ViewFixture.entries(), days: try ViewFixture.week, today: ViewFixture.today)
        Snapshot.expect(page, matches: packageRoot.appendingPathComponent("docs/week.html"))
    }
}
