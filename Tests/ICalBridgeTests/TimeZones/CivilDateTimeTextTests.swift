import Foundation
import Testing

@testable import ICalBridge

@Suite struct CivilDateTimeTextTests {
    @Test("description writes Graph's dateTime form with zero padding, also outside the years 0–9999")
    func description() {
        #expect(CivilDateTime(year: 2026, month: 12, day: 1, hour: 8).description == "2026-12-01T08:00:00")
        #expect(
            CivilDateTime(year: 1999, month: 10, day: 31, hour: 23, minute: 59, second: 58).description
                == "1999-10-31T23:59:58")
        #expect(
            CivilDateTime(year: 7, month: 1, day: 2, hour: 3, minute: 4, second: 5).description == "0007-01-02T03:04:05"
        )
        #expect(CivilDateTime(year: 12345, month: 6, day: 7).description == "12345-06-07T00:00:00")
        #expect(CivilDateTime(year: -44, month: 3, day: 15, hour: 12).description == "-0044-03-15T12:00:00")
        // Every second of a day and every day of a leap year read back through the parser's arithmetic.
        for seconds in stride(from: Int64(1_767_225_600), to: 1_767_225_600 + 366 * 86_400, by: 3_607) {
            let civil = CivilDateTime(secondsSinceEpoch: seconds)
            let expected = String(
                format: "%04d-%02d-%02dT%02d:%02d:%02d", civil.year, civil.month, civil.day, civil.hour,
                civil.minute, civil.second)
            #expect(civil.description == expected)
        }
    }
}
