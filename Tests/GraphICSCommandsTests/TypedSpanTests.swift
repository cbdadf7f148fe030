import Foundation
import GraphICS
import ICalBridge
import Testing

@testable import GraphICSCommands

/// `--start`, `--end`, `--duration` and `--all-day` as `add` and `edit` read them, against a fixed now.
@Suite struct TypedSpanTests {
    static let berlin = ResolvedZone.iana("Europe/Berlin") ?? .utc
    /// Tuesday 1 December 2026, 10:15 in Berlin (09:15 UTC).
    static let typed = TypedTime(now: Date(timeIntervalSince1970: 1_796_116_500), zone: berlin)

    static func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int = 0) -> Int64 {
        CivilDateTime(year: year, month: month, day: day, hour: hour, minute: minute).secondsSinceEpoch
    }

    static func when(_ start: String, end: String? = nil, duration: String? = nil, allDay: Bool = false) throws
        -> EventDraft.When
    {
        try TypedSpan(start: start, end: end, duration: duration, allDay: allDay).when(typed, terminal: nil)
    }

    @Test("--start 'tomorrow 10:00' --duration 30m is half an hour tomorrow morning")
    func tomorrowWithDuration() throws {
        #expect(
            try Self.when("tomorrow 10:00", duration: "30m")
                == .timed(start: Self.utc(2026, 12, 2, 9), end: Self.utc(2026, 12, 2, 9, 30)))
    }

    @Test("an --end time alone is on the start's day; a relative --end day counts from the start")
    func endOnStartDay() throws {
        #expect(
            try Self.when("mon 9:30", end: "9:45")
                == .timed(start: Self.utc(2026, 12, 7, 8, 30), end: Self.utc(2026, 12, 7, 8, 45)))
        #expect(
            try Self.when("fri 22:00", end: "+1d 01:00")
                == .timed(start: Self.utc(2026, 12, 4, 21), end: Self.utc(2026, 12, 5, 0)))
    }

    @Test("ISO 8601 with an offset is that instant, whatever the zone")
    func isoWithOffset() throws {
        #expect(
            try Self.when("2026-12-01T09:00+01:00", end: "2026-12-01T12:00-05:00")
                == .timed(start: Self.utc(2026, 12, 1, 8), end: Self.utc(2026, 12, 1, 17)))
        // The end's time alone is on the start's day in the command's zone.
        #expect(
            try Self.when("2026-12-01T23:30Z", end: "02:00")
                == .timed(start: Self.utc(2026, 12, 1, 23, 30), end: Self.utc(2026, 12, 2, 1)))
    }

    @Test("all-day events take days: --end exclusive, relative to the start, or --duration in days")
    func allDay() throws {
        let first = CivilDateTime(year: 2026, month: 12, day: 24)
        let end = CivilDateTime(year: 2026, month: 12, day: 27)
        #expect(try Self.when("2026-12-24", end: "2026-12-27", allDay: true) == .allDay(first: first, end: end))
        #expect(try Self.when("2026-12-24", end: "+3d", allDay: true) == .allDay(first: first, end: end))
        #expect(try Self.when("2026-12-24", duration: "3d", allDay: true) == .allDay(first: first, end: end))
        #expect(
            try Self.when("tomorrow", duration: "1d", allDay: true)
                == .allDay(
                    first: CivilDateTime(year: 2026, month: 12, day: 2),
                    end: CivilDateTime(year: 2026, month: 12, day: 3)))
    }

    @Test("a start in the spring gap moves forward and keeps the length asked for")
    func gapKeepsLength() throws {
        #expect(
            try Self.when("2027-03-28 02:30", end: "03:30")
                == .timed(start: Self.utc(2027, 3, 28, 1, 30), end: Self.utc(2027, 3, 28, 2, 30)))
        #expect(
            try Self.when("2027-03-28 02:30", duration: "1h")
                == .timed(start: Self.utc(2027, 3, 28, 1, 30), end: Self.utc(2027, 3, 28, 2, 30)))
    }

    @Test(
        "mistakes are usage errors",
        arguments: [
            (
                "tomorrow", "11:00", nil, false,
                "--start 'tomorrow' is a day without a time: add one ('tomorrow 10:00'), or give --all-day"
            ),
            ("10:00", "09:00", nil, false, "--end 09:00 is before --start 10:00"),
            ("10:00", nil, "1h", true, "--start '10:00' is not a day: give \(TypedTime.dayForms)"),
            ("2026-12-24", nil, "36h", true, "--duration with --all-day is whole days (--duration 1d for one day)"),
            ("10:00", "11:00", "1h", false, "give --end or --duration, not both"),
            ("10:00", nil, nil, false, "--end or --duration is required (--end 11:00, --duration 30m)"),
        ] as [(String, String?, String?, Bool, String)])
    func mistakes(start: String, end: String?, duration: String?, allDay: Bool, message: String) {
        #expect(throws: UsageError(message)) {
            try Self.when(start, end: end, duration: duration, allDay: allDay)
        }
    }
}
