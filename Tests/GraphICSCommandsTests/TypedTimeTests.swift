import Foundation
import ICalBridge
import Testing

@testable import GraphICSCommands

/// Days, times, weeks and lengths as people type them, read against a fixed now and zone.
@Suite struct TypedTimeTests {
    static let berlin = ResolvedZone.iana("Europe/Berlin") ?? .utc
    /// Tuesday 1 December 2026, 10:15 in Berlin.
    static let now = Date(
        timeIntervalSince1970: TimeInterval(
            CivilDateTime(year: 2026, month: 12, day: 1, hour: 9, minute: 15).secondsSinceEpoch))
    static let typed = TypedTime(now: now, zone: berlin)

    static func day(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0) -> CivilDateTime {
        CivilDateTime(year: year, month: month, day: day, hour: hour, minute: minute)
    }

    static func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int = 0) -> Int64 {
        CivilDateTime(year: year, month: month, day: day, hour: hour, minute: minute).secondsSinceEpoch
    }

    @Test(
        "named and relative days count from today in the command's zone",
        arguments: [
            ("today", day(2026, 12, 1)), ("Tomorrow", day(2026, 12, 2)), ("yesterday", day(2026, 11, 30)),
            ("tue", day(2026, 12, 1)), ("wed", day(2026, 12, 2)), ("mon", day(2026, 12, 7)),
            ("Sunday", day(2026, 12, 6)), ("thurs", day(2026, 12, 3)), ("+3d", day(2026, 12, 4)),
            ("3d", day(2026, 12, 4)), ("-1w", day(2026, 11, 24)), ("+2w", day(2026, 12, 15)),
            ("-30d", day(2026, 11, 1)), ("2027-02-28", day(2027, 2, 28)), (" 2026-12-24 ", day(2026, 12, 24)),
        ])
    func days(text: String, expected: CivilDateTime) throws {
        #expect(try Self.typed.day(text, option: "--from") == expected)
    }

    @Test("today is the zone's today, not UTC's")
    func todayFollowsTheZone() throws {
        // 23:30 UTC on 1 December is already 2 December in Berlin and still 1 December in UTC.
        let late = Date(timeIntervalSince1970: TimeInterval(Self.utc(2026, 12, 1, 23, 30)))
        #expect(try TypedTime(now: late, zone: Self.berlin).day("today", option: "--from") == Self.day(2026, 12, 2))
        #expect(try TypedTime(now: late, zone: .utc).day("today", option: "--from") == Self.day(2026, 12, 1))
        let honolulu = try #require(ResolvedZone.iana("Pacific/Honolulu"))
        let early = Date(timeIntervalSince1970: TimeInterval(Self.utc(2026, 12, 1, 5)))
        #expect(try TypedTime(now: early, zone: honolulu).day("mon", option: "--from") == Self.day(2026, 11, 30))
    }

    @Test("a relative day counts from the day it is read against")
    func relativeToABase() throws {
        let base = Self.day(2027, 1, 10)
        #expect(try Self.typed.day("+7d", option: "--to", relativeTo: base) == Self.day(2027, 1, 17))
        #expect(try Self.typed.day("1w", option: "--to", relativeTo: base) == Self.day(2027, 1, 17))
        // Named days stay named days.
        #expect(try Self.typed.day("tomorrow", option: "--to", relativeTo: base) == Self.day(2026, 12, 2))
        #expect(try Self.typed.day("2027-01-12", option: "--to", relativeTo: base) == Self.day(2027, 1, 12))
    }

    @Test(
        "what is not a day is refused with the forms that are",
        arguments: ["", "2026-02-30", "2026-1-5", "someday", "mo", "+3", "+3x", "d", "+1234567d", "2026-12-01T10:00"])
    func notADay(text: String) {
        #expect(throws: UsageError("--from '\(text)' is not a day: give \(TypedTime.dayForms)")) {
            try Self.typed.day(text, option: "--from")
        }
        #expect(TypedTime.dayForms.contains("today") && TypedTime.dayForms.contains("YYYY-MM-DD"))
    }

    @Test(
        "times are a day and a clock time, a clock time alone, or ISO 8601",
        arguments: [
            ("tomorrow 10:00", TypedMoment.local(day(2026, 12, 2, 10))),
            ("mon 9:30", .local(day(2026, 12, 7, 9, 30))), ("10:45", .local(day(2026, 12, 1, 10, 45))),
            ("+2d 14:00", .local(day(2026, 12, 3, 14))), ("2026-12-24 18:00", .local(day(2026, 12, 24, 18))),
            ("2026-12-24T18:00", .local(day(2026, 12, 24, 18))),
            (
                "2026-12-24t18:00:30",
                .local(CivilDateTime(year: 2026, month: 12, day: 24, hour: 18, minute: 0, second: 30))
            ),
            ("fri 2:30pm", .local(day(2026, 12, 4, 14, 30))), ("9am", .local(day(2026, 12, 1, 9))),
            ("12am", .local(day(2026, 12, 1, 0))), ("12:15pm", .local(day(2026, 12, 1, 12, 15))),
            ("2026-12-01T09:00+01:00", .instant(utc(2026, 12, 1, 8))),
            ("2026-12-01T09:00-0530", .instant(utc(2026, 12, 1, 14, 30))),
            ("2026-12-01T08:00Z", .instant(utc(2026, 12, 1, 8))), ("2026-12-01 08:00z", .instant(utc(2026, 12, 1, 8))),
            ("tomorrow 10:00+02", .instant(utc(2026, 12, 2, 8))), ("now", .instant(utc(2026, 12, 1, 9, 15))),
        ] as [(String, TypedMoment)])
    func moments(text: String, expected: TypedMoment) throws {
        #expect(try Self.typed.moment(text, option: "--start") == expected)
    }

    @Test("an end's clock time alone is on its start's day, and +1d counts from it")
    func endAfterStart() throws {
        let start = Self.day(2026, 12, 24, 22)
        #expect(
            try Self.typed.moment("23:30", option: "--end", relativeTo: start) == .local(Self.day(2026, 12, 24, 23, 30))
        )
        #expect(
            try Self.typed.moment("+1d 01:00", option: "--end", relativeTo: start) == .local(Self.day(2026, 12, 25, 1)))
    }

    @Test(
        "what is not a time is refused with the forms that are",
        arguments: [
            "", "10", "25:00", "10:60", "10:5", "13pm", "0am", "tomorrow 10", "soon 10:00", "10:00+25:00", "10:00+1",
            "2026-13-01 10:00",
        ])
    func notATime(text: String) {
        #expect(throws: UsageError("--start '\(text)' is not a time: give \(TypedTime.momentForms)")) {
            try Self.typed.moment(text, option: "--start")
        }
    }

    @Test("a day without a time says how to add one")
    func dayWithoutTime() {
        #expect(throws: UsageError("--start 'Tomorrow' is a day without a time: add one ('tomorrow 10:00')")) {
            try Self.typed.moment("Tomorrow", option: "--start")
        }
    }

    @Test("a time in the spring gap is moved forward and one in the autumn fold is the first, as add places them")
    func daylightSavingChanges() throws {
        // Saturday 27 March 2027, noon in Berlin: the clocks go forward at 02:00 the next night.
        let saturday = Date(timeIntervalSince1970: TimeInterval(Self.utc(2027, 3, 27, 11)))
        let spring = TypedTime(now: saturday, zone: Self.berlin)
        let gap = try spring.moment("tomorrow 02:30", option: "--start")
        #expect(gap == .local(Self.day(2027, 3, 28, 2, 30)))
        #expect(spring.place(gap) == .skipped(instant: Self.utc(2027, 3, 28, 1, 30)))
        // A relative day is a calendar day: 10:00 stays 10:00 across the change (23 hours later, not 24).
        let before = try spring.moment("10:00", option: "--start")
        let after = try spring.moment("+1d 10:00", option: "--start")
        #expect(spring.place(after).instant - spring.place(before).instant == 23 * 3600)
        // Sunday 25 October 2026: 02:30 happens twice in Berlin.
        let fold = try Self.typed.moment("2026-10-25 02:30", option: "--start")
        #expect(
            Self.typed.place(fold)
                == .repeated(first: Self.utc(2026, 10, 25, 0, 30), second: Self.utc(2026, 10, 25, 1, 30)))
        // A time with its own offset is exact, gap or not.
        #expect(
            spring.place(try spring.moment("2027-03-28T02:30+01:00", option: "--start"))
                == .exact(Self.utc(2027, 3, 28, 1, 30)))
    }

    @Test(
        "weeks are named, counted from this one, or ISO",
        arguments: [
            ("this", day(2026, 11, 30)), ("Next", day(2026, 12, 7)), ("last", day(2026, 11, 23)),
            ("+2", day(2026, 12, 14)), ("-1", day(2026, 11, 23)), ("+0", day(2026, 11, 30)),
            ("2026-W53", day(2026, 12, 28)), ("2027-w01", day(2027, 1, 4)),
        ])
    func weeks(text: String, expected: CivilDateTime) throws {
        #expect(try Self.typed.week(text, option: "--week") == expected)
    }

    @Test(
        "what is not a week is refused with the forms that are", arguments: ["2", "2027-W53", "soon", "2026-W00", "+"])
    func notAWeek(text: String) {
        #expect(throws: UsageError("--week '\(text)' is not a week: give \(TypedTime.weekForms)")) {
            try Self.typed.week(text, option: "--week")
        }
    }

    @Test(
        "lengths in days, hours and minutes, or minutes alone",
        arguments: [
            ("30m", 1800), ("1h", 3600), ("1h30m", 5400), ("1h 30m", 5400), ("90", 5400), ("2d", 172_800),
            ("45min", 2700), ("1d2h", 93600), ("0", 0),
        ] as [(String, Int64)])
    func durations(text: String, expected: Int64) throws {
        #expect(try TypedTime.duration(text, option: "--duration") == expected)
    }

    @Test(
        "what is not a length is refused with the forms that are",
        arguments: ["", "h", "1x", "1h1h", "-30m", "1.5h", "30 mins", "9999999"])
    func notADuration(text: String) {
        #expect(throws: UsageError("--duration '\(text)' is not a length: give \(TypedTime.durationForms)")) {
            try TypedTime.duration(text, option: "--duration")
        }
    }
}
