import Foundation
import Testing

@testable import ICalBridge

@Suite struct GraphTimestampTests {
    @Test("Graph's seven-digit date-times parse exactly, with and without an offset")
    func parsesGraphForms() throws {
        let local = try #require(GraphTimestamp.parse("2026-12-01T08:00:00.1234567"))
        #expect(local.civil == CivilDateTime(year: 2026, month: 12, day: 1, hour: 8))
        #expect(local.ticks == 1_234_567)
        #expect(local.utcOffsetSeconds == nil)
        let utc = try #require(GraphTimestamp.parse("2026-11-01T10:00:00.12Z"))
        #expect(utc.ticks == 1_200_000)
        #expect(utc.instant == 1_793_527_200)
        let created = try #require(GraphTimestamp.parse("2026-11-01T10:00:00.1234567Z"))
        #expect(created.instant == utc.instant)
        #expect(created.ticks == 1_234_567)
        let offset = try #require(GraphTimestamp.parse("2026-11-01T11:00:00+01:00"))
        #expect(offset.instant == utc.instant)
        #expect(GraphTimestamp.parse("2026-12-01")?.civil == CivilDateTime(year: 2026, month: 12, day: 1))
    }

    @Test(
        "impossible dates and malformed strings are refused",
        arguments: [
            "2026-13-45T99:00:00", "2026-02-29T00:00:00", "2026-12-01T24:00:00", "2026-12-01T08:00:00.", "tomorrow", "",
            "2026-12-01T08:00:00Zjunk", "2026-02-30T10:00:00.0000000", "2026-12-01T08:00:00.00000x0",
            "2026-12-01T08:00:00.0000000X",
        ])
    func refusesInvalid(text: String) {
        #expect(GraphTimestamp.parse(text) == nil)
    }

    @Test("civil arithmetic round-trips over four centuries and knows weekdays")
    func civilRoundTrip() {
        var seconds: Int64 = -2_208_988_800  // 1900-01-01
        while seconds < 10_413_792_000 {  // 2300-01-01
            #expect(CivilDateTime(secondsSinceEpoch: seconds).secondsSinceEpoch == seconds)
            seconds += 86_400 * 37 + 3_671
        }
        #expect(CivilDateTime(year: 2026, month: 11, day: 30).isoWeekday == 1)
        #expect(CivilDateTime(year: 2024, month: 2, day: 29).isValid)
    }
}
