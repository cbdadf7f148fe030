import Foundation
import GraphStandIn
import Testing

/// The `@odata.etag` of an event as `GET` returns it.
private func etag(_ fixture: StandInFixture, _ id: String) throws -> String {
    let event = try fixture.call("GET", "/me/events/\(id)")
    return try #require(event.json["@odata.etag"] as? String, "event \(id): \(event.status)")
}

/// A weekly series of four created through Graph: its master's id and its occurrences' ids.
private func weeklySeries(_ fixture: StandInFixture) throws -> (master: String, occurrences: [String]) {
    var series = StandInFixture.event("Weekly", "2026-11-30T09:00:00", "2026-11-30T09:30:00")
    series["recurrence"] = [
        "pattern": ["type": "weekly", "interval": 1, "daysOfWeek": ["monday"]],
        "range": ["type": "numbered", "startDate": "2026-11-30", "numberOfOccurrences": 4],
    ]
    let master = try #require(try fixture.call("POST", "/me/events", json: series).json["id"] as? String)
    let window = "startDateTime=2026-11-01T00:00:00Z&endDateTime=2027-01-01T00:00:00Z"
    let instances = try fixture.call("GET", "/me/events/\(master)/instances?\(window)")
    let ids = (instances.json["value"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    return (master, ids)
}

@Suite struct EventVersionsStandInTests {
    @Test func everyWriteGivesTheEventANewEtag() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        let created = try fixture.call(
            "POST", "/me/events", json: StandInFixture.event("Single", "2026-12-01T08:00:00", "2026-12-01T09:00:00"))
        let id = try #require(created.json["id"] as? String)
        let first = try #require(created.json["@odata.etag"] as? String)
        #expect(try etag(fixture, id) == first, "a read changes nothing")
        let patched = try fixture.call("PATCH", "/me/events/\(id)", json: ["subject": "Renamed"])
        let second = try #require(patched.json["@odata.etag"] as? String)
        #expect(second != first)
        #expect(try etag(fixture, id) == second)
        let changeKey = try #require(patched.json["changeKey"] as? String)
        #expect(second == "W/\"\(changeKey)\"")
        try fixture.standIn.changeEvent(id: id, ["subject": "Renamed in Outlook"])
        #expect(try etag(fixture, id) != second, "a change in Outlook is a new version too")
    }

    @Test func seriesWritesGiveNewEtagsToTheInstancesAndTheMasterTheyTouch() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        let series = try weeklySeries(fixture)
        try #require(series.occurrences.count == 4)
        let masterBefore = try etag(fixture, series.master)
        let occurrenceBefore = try series.occurrences.map { try etag(fixture, $0) }

        let exception = try fixture.call("PATCH", "/me/events/\(series.occurrences[0])", json: ["subject": "Moved"])
        #expect(exception.json["type"] as? String == "exception")
        #expect(exception.json["@odata.etag"] as? String != occurrenceBefore[0], "an occurrence becoming an exception")
        let masterAfterException = try etag(fixture, series.master)
        #expect(masterAfterException != masterBefore, "the master holds its exceptions")

        _ = try fixture.call("PATCH", "/me/events/\(series.master)", json: ["location": ["displayName": "Room 9"]])
        #expect(try etag(fixture, series.occurrences[1]) != occurrenceBefore[1], "a master change reaches occurrences")
        let masterAfterPatch = try etag(fixture, series.master)

        #expect(try fixture.call("POST", "/me/events/\(series.occurrences[2])/cancel", json: [:]).status == 202)
        #expect(try etag(fixture, series.master) != masterAfterPatch, "a cancelled occurrence changes its master")
        let masterAfterCancel = try etag(fixture, series.master)
        try fixture.standIn.removeEvent(id: series.occurrences[3])
        #expect(try etag(fixture, series.master) != masterAfterCancel, "so does one deleted in Outlook")
    }

    @Test func ifMatchWithAStaleEtagIsRefused412AndChangesNothing() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        let created = try fixture.call(
            "POST", "/me/events", json: StandInFixture.event("Single", "2026-12-01T08:00:00", "2026-12-01T09:00:00"))
        let id = try #require(created.json["id"] as? String)
        let stale = try #require(created.json["@odata.etag"] as? String)
        try fixture.standIn.changeEvent(id: id, ["subject": "Changed in Outlook"])
        let current = try etag(fixture, id)

        let refused = try fixture.call(
            "PATCH", "/me/events/\(id)", json: ["subject": "Mine"], headers: [("If-Match", stale)])
        #expect(refused.status == 412)
        #expect(refused.errorCode == "ErrorIrresolvableConflict")
        #expect(try fixture.call("GET", "/me/events/\(id)").json["subject"] as? String == "Changed in Outlook")
        let deleteRefused = try fixture.call("DELETE", "/me/events/\(id)", headers: [("If-Match", stale)])
        #expect(deleteRefused.status == 412)
        #expect(deleteRefused.errorCode == "ErrorIrresolvableConflict")
        #expect(try fixture.call("GET", "/me/events/\(id)").status == 200, "the event is still there")

        let accepted = try fixture.call(
            "PATCH", "/me/events/\(id)", json: ["subject": "Mine"], headers: [("If-Match", current)])
        #expect(accepted.status == 200)
        let newer = try #require(accepted.json["@odata.etag"] as? String)
        let strongForm = String(newer.dropFirst(2))
        #expect(
            try fixture.call("PATCH", "/me/events/\(id)", json: ["subject": "Any"], headers: [("If-Match", "*")]).status
                == 200)
        #expect(try fixture.call("PATCH", "/me/events/\(id)", json: ["subject": "None"]).status == 200, "no If-Match")
        #expect(try fixture.call("DELETE", "/me/events/\(id)", headers: [("If-Match", strongForm)]).status == 412)
        #expect(
            try fixture.call("DELETE", "/me/events/\(id)", headers: [("If-Match", try etag(fixture, id))]).status == 204
        )
    }

    @Test func ifMatchIsCheckedInsideABatchToo() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        let created = try fixture.call(
            "POST", "/me/events", json: StandInFixture.event("Single", "2026-12-01T08:00:00", "2026-12-01T09:00:00"))
        let id = try #require(created.json["id"] as? String)
        let stale = try #require(created.json["@odata.etag"] as? String)
        try fixture.standIn.changeEvent(id: id, ["subject": "Changed in Outlook"])
        let batch = try fixture.call(
            "POST", "/$batch",
            json: [
                "requests": [
                    [
                        "id": "1", "method": "PATCH", "url": "/me/events/\(id)", "body": ["subject": "Mine"],
                        "headers": ["Content-Type": "application/json", "If-Match": stale],
                    ]
                ]
            ])
        let answers = batch.json["responses"] as? [[String: Any]] ?? []
        #expect(answers.first?["status"] as? Int == 412)
        let code = ((answers.first?["body"] as? [String: Any])?["error"] as? [String: Any])?["code"] as? String
        #expect(code == "ErrorIrresolvableConflict")
        #expect(fixture.standIn.event(id: id)?["subject"] as? String == "Changed in Outlook")
    }
}
