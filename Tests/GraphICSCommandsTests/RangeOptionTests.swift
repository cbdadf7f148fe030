import Foundation
import ICalBridge
import Testing

@testable import GraphICSCommands

/// `--week`, `--from`/`--to` and `--days` as every command that shows a range of days reads them.
@Suite struct RangeOptionTests {
    static let berlin = ResolvedZone.iana("Europe/Berlin") ?? .utc
    /// Tuesday 1 December 2026, 10:15 in Berlin.
    static let now = Date(timeIntervalSince1970: 1_796_116_500)

    static func range(_ arguments: [String]) throws -> DayRange {
        let command = try AgendaCommand.parse(arguments)
        return try command.range.resolve(in: berlin, now: now)
    }

    static func day(_ year: Int, _ month: Int, _ day: Int) -> CivilDateTime {
        CivilDateTime(year: year, month: month, day: day)
    }

    @Test("the fixed now is Tuesday 1 December 2026 in Berlin")
    func fixedNow() {
        #expect(TypedTime(now: Self.now, zone: Self.berlin).today == Self.day(2026, 12, 1))
    }

    @Test("--from today --to +7d is seven days; a relative --to counts from --from")
    func relativeTo() throws {
        let week = try Self.range(["--from", "today", "--to", "+7d"])
        #expect(week.first == Self.day(2026, 12, 1) && week.end == Self.day(2026, 12, 8))
        let later = try Self.range(["--from", "2027-01-10", "--to", "+2w"])
        #expect(later.first == Self.day(2027, 1, 10) && later.end == Self.day(2027, 1, 24))
        let named = try Self.range(["--from", "mon", "--to", "2026-12-10"])
        #expect(named.first == Self.day(2026, 12, 7) && named.end == Self.day(2026, 12, 10))
    }

    @Test("--days N counts from --from, else from today")
    func days() throws {
        let three = try Self.range(["--days", "3"])
        #expect(three.first == Self.day(2026, 12, 1) && three.end == Self.day(2026, 12, 4))
        let fromTomorrow = try Self.range(["--from", "tomorrow", "--days", "1"])
        #expect(fromTomorrow.first == Self.day(2026, 12, 2) && fromTomorrow.end == Self.day(2026, 12, 3))
    }

    @Test("--week takes this, next, last, +N, -N and ISO weeks")
    func weeks() throws {
        #expect(try Self.range([]).first == Self.day(2026, 11, 30))
        #expect(try Self.range(["--week", "+2"]).first == Self.day(2026, 12, 14))
        #expect(try Self.range(["--week", "-1"]).first == Self.day(2026, 11, 23))
        let iso = try Self.range(["--week", "2026-W53"])
        #expect(iso.first == Self.day(2026, 12, 28) && iso.end == Self.day(2027, 1, 4))
    }

    @Test(
        "mistakes are usage errors naming what is accepted",
        arguments: [
            (["--from", "today"], "--from needs --to or --days (--from today --to +7d)"),
            (["--to", "+7d"], "--to needs --from (--from today --to +7d)"),
            (["--from", "today", "--to", "+7d", "--days", "3"], "give --to or --days, not both"),
            (["--week", "next", "--days", "3"], "give either --week or --from, --to and --days, not both"),
            (["--days", "0"], "--days '0' is not a number of days (1 or more, such as --days 7)"),
            (["--days", "x"], "--days 'x' is not a number of days (1 or more, such as --days 7)"),
            (["--from", "soon", "--to", "+7d"], "--from 'soon' is not a day: give \(TypedTime.dayForms)"),
            (["--week", "2"], "--week '2' is not a week: give \(TypedTime.weekForms)"),
            (
                ["--from", "today", "--to", "-1d"],
                "--to -1d (2026-11-30) must come after --from today (2026-12-01); --to is the day after the last one"
            ),
        ])
    func mistakes(arguments: [String], message: String) {
        #expect(throws: UsageError(message)) { try Self.range(arguments) }
    }
}
