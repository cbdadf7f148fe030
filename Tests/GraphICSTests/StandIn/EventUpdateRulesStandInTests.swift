import Foundation
import GraphStandIn
import TestSupport
import Testing

/// What Graph does to a PATCH that api/event-update.md warns about (a body of an online meeting sent
/// without the meeting blob disables the meeting; an occurrence moved onto or past a neighbour's day is
/// refused), and the stand-in's refusal of a local time in a fold or a gap (on no page, docs/STAND-IN.md).
@Suite struct EventUpdateRulesStandInTests {
    static let joinURL = "https://teams.microsoft.com/l/meetup-join/19%3ameeting_rules%40thread.v2/0"

    /// An online meeting (Teams) of one's own, seeded as Graph returns it.
    static func onlineMeeting(_ standIn: GraphStandIn) throws -> String {
        var event = StandInFixture.event("Planning", "2026-12-01T09:00:00", "2026-12-01T10:00:00")
        event["isOnlineMeeting"] = true
        event["onlineMeetingProvider"] = "teamsForBusiness"
        event["onlineMeeting"] = ["joinUrl": joinURL]
        event["body"] = ["contentType": "html", "content": "<html><body>Join: \(joinURL)</body></html>"]
        return try standIn.addEvent(event)
    }

    @Test("a PATCH of an online meeting's body disables the meeting, and the stand-in records it")
    func bodyPatchDisablesOnlineMeeting() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        let id = try Self.onlineMeeting(fixture.standIn)
        let patched = try fixture.call(
            "PATCH", "/me/events/\(id)", json: ["body": ["contentType": "text", "content": "New agenda"]])
        #expect(patched.status == 200, "Graph accepts the PATCH")
        #expect(patched.json["isOnlineMeeting"] as? Bool == false)
        #expect(patched.json["onlineMeeting"] is NSNull)
        let stored = try #require(fixture.standIn.event(id: id))
        #expect(stored["isOnlineMeeting"] as? Bool == false)
        #expect(fixture.standIn.disabledOnlineMeetings == [id])
    }

    @Test("a PATCH of an online meeting that leaves its body alone keeps the meeting")
    func otherPatchKeepsOnlineMeeting() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        let id = try Self.onlineMeeting(fixture.standIn)
        let single = try fixture.standIn.addEvent(
            StandInFixture.event("Dentist", "2026-12-02T09:00:00", "2026-12-02T10:00:00"))
        #expect(try fixture.call("PATCH", "/me/events/\(id)", json: ["subject": "Planning 2"]).status == 200)
        #expect(try fixture.call("PATCH", "/me/events/\(single)", json: ["body": ["content": "x"]]).status == 200)
        let stored = try #require(fixture.standIn.event(id: id))
        #expect(stored["isOnlineMeeting"] as? Bool == true)
        #expect((stored["onlineMeeting"] as? [String: Any])?["joinUrl"] as? String == Self.joinURL)
        #expect(fixture.standIn.disabledOnlineMeetings.isEmpty)
    }

    @Test(
        "onlineMeeting is read-only (resources/event.md): ignored in a POST's payload")
    func onlineMeetingReadOnly() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        var event = StandInFixture.event("Planning", "2026-12-01T09:00:00", "2026-12-01T10:00:00")
        event["onlineMeeting"] = ["joinUrl": Self.joinURL]
        let created = try fixture.call("POST", "/me/events", json: event)
        #expect(created.status == 201)
        let id = try #require(created.json["id"] as? String)
        #expect((try #require(fixture.standIn.event(id: id)))["onlineMeeting"] as? [String: Any] == nil)
    }

    @Test("a local time in the repeated hour or in the spring-forward gap is refused 400 on POST and PATCH")
    func localTimeInFoldOrGapIsRefused() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        let zone = "W. Europe Standard Time"
        for (start, end) in [
            ("2026-10-25T02:30:00", "2026-10-25T04:00:00"), ("2026-03-29T02:30:00", "2026-03-29T04:00:00"),
            ("2026-10-25T01:30:00", "2026-10-25T02:15:00"),
        ] {
            let refused = try fixture.call(
                "POST", "/me/events", json: StandInFixture.event("X", start, end, zone: zone))
            #expect(refused.status == 400, "\(start)–\(end)")
            #expect(refused.errorCode == "ErrorPropertyValidationFailure")
        }
        #expect(fixture.standIn.eventCount == 0)
        // The same instants in UTC, and the hours around them in local time, are taken.
        let utc = try fixture.call(
            "POST", "/me/events", json: StandInFixture.event("UTC", "2026-10-25T00:30:00", "2026-10-25T03:00:00"))
        #expect(utc.status == 201)
        let local = try fixture.call(
            "POST", "/me/events",
            json: StandInFixture.event("Local", "2026-10-25T01:30:00", "2026-10-25T03:30:00", zone: zone))
        #expect(local.status == 201)
        let id = try #require(local.json["id"] as? String)
        let moved = try fixture.call(
            "PATCH", "/me/events/\(id)", json: ["start": ["dateTime": "2026-10-25T02:00:00", "timeZone": zone]])
        #expect(moved.status == 400)
        #expect(fixture.standIn.eventCount == 2)
    }

    @Test("an occurrence moved onto or past the day of a neighbour is refused 400 ErrorOccurrenceCrossingBoundary")
    func occurrenceCrossingBoundaryIsRefused() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        let zone = "W. Europe Standard Time"
        // Monday, Wednesday and Friday at 09:00 Berlin, from Monday 30 November 2026, six occurrences.
        var series = StandInFixture.event("Standup", "2026-11-30T09:00:00", "2026-11-30T09:30:00", zone: zone)
        series["recurrence"] = [
            "pattern": ["type": "weekly", "interval": 1, "daysOfWeek": ["monday", "wednesday", "friday"]],
            "range": ["type": "numbered", "startDate": "2026-11-30", "numberOfOccurrences": 6],
        ]
        let master = try #require(try fixture.call("POST", "/me/events", json: series).json["id"] as? String)
        let window = "startDateTime=2026-11-01T00:00:00Z&endDateTime=2027-01-01T00:00:00Z"
        let instances = try fixture.call("GET", "/me/events/\(master)/instances?\(window)")
        let ids = (instances.json["value"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        try #require(ids.count == 6)
        func move(_ id: String, to start: String, _ end: String) throws -> RawHTTPConnection.Response {
            try fixture.call(
                "PATCH", "/me/events/\(id)",
                json: ["start": ["dateTime": start, "timeZone": zone], "end": ["dateTime": end, "timeZone": zone]])
        }
        // Wednesday's occurrence: onto Friday (the following one's day), onto Monday (the previous one's), past
        // Friday to Saturday, all refused; late on Thursday is fine, and then Friday is still refused.
        for (start, end) in [
            ("2026-12-04T08:00:00", "2026-12-04T08:30:00"), ("2026-11-30T18:00:00", "2026-11-30T18:30:00"),
            ("2026-12-05T09:00:00", "2026-12-05T09:30:00"), ("2026-11-29T09:00:00", "2026-11-29T09:30:00"),
        ] {
            let refused = try move(ids[1], to: start, end)
            #expect(refused.status == 400, "\(start)")
            #expect(refused.errorCode == "ErrorOccurrenceCrossingBoundary", "\(start)")
            let message = (refused.json["error"] as? [String: Any])?["message"] as? String
            #expect(message == "Modified occurrence is crossing or overlapping adjacent occurrence.")
        }
        #expect(try fixture.call("GET", "/me/events/\(ids[1])").json["type"] as? String == "occurrence")
        #expect(try move(ids[1], to: "2026-12-03T23:00:00", "2026-12-03T23:30:00").status == 200)
        #expect(try move(ids[1], to: "2026-12-04T07:00:00", "2026-12-04T07:30:00").status == 400)
        // Friday's neighbour is now on Thursday: Friday's occurrence cannot go there either.
        #expect(try move(ids[2], to: "2026-12-03T12:00:00", "2026-12-03T12:30:00").status == 400)
        #expect(try move(ids[2], to: "2026-12-04T12:00:00", "2026-12-04T12:30:00").status == 200)
    }
}
