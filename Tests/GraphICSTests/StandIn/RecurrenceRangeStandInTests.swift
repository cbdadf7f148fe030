import Foundation
import Testing

/// Graph's rule for a series' `range.startDate` (resources/recurrencerange.md): the date of the start in the
/// range's `recurrenceTimeZone`, or in the start's own zone when the range names none.
@Suite struct RecurrenceRangeStandInTests {
    static func series(start: String, zone: String, startDate: String, recurrenceTimeZone: String?) -> [String: Any] {
        var event = StandInFixture.event("Late", start, start, zone: zone)
        var range: [String: Any] = ["type": "numbered", "startDate": startDate, "numberOfOccurrences": 3]
        if let recurrenceTimeZone { range["recurrenceTimeZone"] = recurrenceTimeZone }
        event["recurrence"] = [
            "pattern": ["type": "weekly", "interval": 1, "daysOfWeek": ["wednesday"], "firstDayOfWeek": "monday"],
            "range": range,
        ]
        return event
    }

    @Test("a start sent in UTC with a local pattern is refused: Tuesday 21:30 UTC is not 2026-12-02")
    func utcStartWithLocalPatternIsRefused() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        // What graph-ics sent before issue 13 for a Wednesday 00:30 at +03:00 in a zone with no Windows name.
        let payload = Self.series(
            start: "2026-12-01T21:30:00", zone: "UTC", startDate: "2026-12-02", recurrenceTimeZone: "UTC")
        let refused = try fixture.call("POST", "/me/events", json: payload)
        #expect(refused.status == 400)
        #expect(refused.errorCode == "ErrorPropertyValidationFailure")
        let message = (refused.json["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(message.contains("2026-12-01"))
        #expect(fixture.standIn.eventCount == 0)
    }

    @Test("without recurrenceTimeZone the start's own zone decides")
    func startZoneDecidesWithoutRecurrenceTimeZone() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        let refused = Self.series(
            start: "2026-12-01T21:30:00", zone: "UTC", startDate: "2026-12-02", recurrenceTimeZone: nil)
        #expect(try fixture.call("POST", "/me/events", json: refused).status == 400)
        let accepted = Self.series(
            start: "2026-12-02T00:30:00", zone: "W. Europe Standard Time", startDate: "2026-12-02",
            recurrenceTimeZone: nil)
        #expect(try fixture.call("POST", "/me/events", json: accepted).status == 201)
    }

    @Test("a start whose date in recurrenceTimeZone is startDate is taken, and repeats in that zone's clocks")
    func matchingStartDateIsTaken() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        // 23:30 UTC on Tuesday is 00:30 on Wednesday in Berlin.
        let payload = Self.series(
            start: "2026-12-01T23:30:00", zone: "UTC", startDate: "2026-12-02",
            recurrenceTimeZone: "W. Europe Standard Time")
        let created = try fixture.call("POST", "/me/events", json: payload)
        #expect(created.status == 201)
        let id = try #require(created.json["id"] as? String)
        let instances = try fixture.call(
            "GET", "/me/events/\(id)/instances?startDateTime=2026-11-01T00:00:00Z&endDateTime=2027-01-01T00:00:00Z")
        let starts = (instances.json["value"] as? [[String: Any]] ?? []).compactMap {
            ($0["start"] as? [String: Any])?["dateTime"] as? String
        }
        #expect(
            starts == ["2026-12-01T23:30:00.0000000", "2026-12-08T23:30:00.0000000", "2026-12-15T23:30:00.0000000"])
    }

    @Test("an unknown recurrenceTimeZone is refused")
    func unknownRecurrenceTimeZoneIsRefused() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        let payload = Self.series(
            start: "2026-12-02T09:00:00", zone: "UTC", startDate: "2026-12-02", recurrenceTimeZone: "Mars/Olympus")
        #expect(try fixture.call("POST", "/me/events", json: payload).status == 400)
    }
}
