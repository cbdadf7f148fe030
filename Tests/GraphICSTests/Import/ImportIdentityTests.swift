import Foundation
import GraphStandIn
import ICalBridge
import Testing

@testable import GraphICS

/// How an import recognises what an earlier one created: transactionIds reused with another body, lookups
/// outside the default calendar, dry runs, and the note for a newer version that is skipped.
@Suite struct ImportIdentityTests {
    /// The train ticket as downloaded again: the same event, a later DTSTAMP.
    private static func redownloadedTrainTicket(stamp: String) throws -> [ImportItem] {
        let text = try TicketFiles.text("train-ticket.ics")
        let stamped = text.replacingOccurrences(
            of: #"DTSTAMP:\d{8}T\d{6}Z"#, with: "DTSTAMP:\(stamp)", options: .regularExpression)
        #expect(stamped != text)
        return try TicketFiles.items(text: stamped, name: "train-ticket.ics")
    }

    /// The lookups the stand-in answered (GETs with a `$filter`).
    private static func lookups(_ standIn: GraphStandIn) -> [GraphStandIn.RecordedRequest] {
        standIn.operations.filter { $0.method == "GET" && $0.query["$filter"] != nil }
    }

    // MARK: A transactionId reused with another body (item 2)

    @Test func aTicketDeletedByTheUserIsCreatedAgainFromARedownloadedFile() throws {
        let setup = try ImportSetup()
        let first = setup.run(try TicketFiles.items("train-ticket.ics"))
        #expect(first.results.map(\.action) == [.created])
        try setup.client.deleteEvent(id: try #require(first.results.first?.eventID))
        #expect(setup.standIn.eventCount == 0)

        let again = setup.run(try Self.redownloadedTrainTicket(stamp: "20261230T120000Z"))
        #expect(again.stoppedBy == nil)
        #expect(again.results.map(\.action) == [.created], "\(again.results)")
        #expect(setup.standIn.eventCount == 1)
        // The planned transactionId was refused (another body), then the versioned one created it.
        let creates = setup.standIn.operations.filter { $0.method == "POST" && $0.path.hasSuffix("/events") }
        #expect(creates.map(\.status) == [201, 400, 201])
        let ids = creates.compactMap { ($0.jsonBody as? [String: Any])?["transactionId"] as? String }
        #expect(ids.count == 3 && ids[0] == ids[1] && ids[1] != ids[2])

        // Run once more: found, nothing written.
        let writes = setup.writes.count
        let third = setup.run(try Self.redownloadedTrainTicket(stamp: "20261230T120000Z"))
        #expect(third.results.map(\.action) == [.skipped])
        #expect(setup.writes.count == writes)
        #expect(setup.standIn.eventCount == 1)
    }

    @Test func aRefusedCreateWhoseEventIsFoundOnTheSecondLookIsNotDuplicated() throws {
        let setup = try ImportSetup()
        let first = setup.run(try TicketFiles.items("train-ticket.ics"))
        let id = try #require(first.results.first?.eventID)
        // The first lookup misses the event (as when Graph's search lags behind); the create is refused.
        let hiding = LookupHidingTransport()
        let client = GraphClient(
            baseURL: try #require(URL(string: setup.standIn.baseURL)), transport: hiding,
            tokens: StaticTokenSource(token: setup.standIn.issueAccessToken()))
        let again = EventImporter(client: client).run(try Self.redownloadedTrainTicket(stamp: "20261230T120000Z"))
        #expect(hiding.hidden == 1)
        #expect(again.results.map(\.action) == [.skipped], "\(again.results)")
        #expect(again.results.first?.eventID == id)
        #expect(setup.standIn.eventCount == 1)
    }

    @Test func theStandInRefusesATransactionIdReusedWithAnotherBody() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        var payload = StandInFixture.event("Train", "2026-12-05T07:00:00", "2026-12-05T09:00:00")
        payload["transactionId"] = "graph-ics-0123456789abcdef0123456789abcdef"
        let first = try fixture.call("POST", "/me/events", json: payload)
        #expect(first.status == 201)
        #expect(
            try fixture.call("POST", "/me/events", json: payload).json["id"] as? String == first.json["id"] as? String)

        var other = payload
        other["subject"] = "Train (re-issued)"
        let refused = try fixture.call("POST", "/me/events", json: other)
        #expect(refused.status == 400)
        #expect((refused.json["error"] as? [String: Any])?["code"] as? String == "ErrorDuplicateTransactionId")
        // Deleting the first event does not free the transactionId for another body; the same body makes a
        // new event.
        let id = try #require(first.json["id"] as? String)
        #expect(try fixture.call("DELETE", "/me/events/\(id)").status == 204)
        #expect(try fixture.call("POST", "/me/events", json: other).status == 400)
        let remade = try fixture.call("POST", "/me/events", json: payload)
        #expect(remade.status == 201)
        #expect(remade.json["id"] as? String != id)
        #expect(fixture.standIn.eventCount == 1)
    }

    // MARK: Lookups outside the default calendar (item 5)

    @Test func anEventImportedIntoAnotherCalendarIsCreatedInTheDefaultOneAndFoundInItsOwn() throws {
        let setup = try ImportSetup()
        let travel = setup.standIn.addCalendar(name: "Travel")
        let intoTravel = try TicketFiles.items("train-ticket.ics", ImportSettings(calendarID: travel))
        let intoDefault = try TicketFiles.items("train-ticket.ics")

        #expect(setup.run(intoTravel).results.map(\.action) == [.created])
        #expect(setup.run(intoDefault).results.map(\.action) == [.created])
        let travelAgain = setup.run(intoTravel).results
        #expect(travelAgain.map(\.action) == [.skipped])
        #expect(travelAgain.map(\.note) == ["already imported"])
        #expect(setup.run(intoDefault).results.map(\.action) == [.skipped])
        #expect(setup.standIn.eventCount == 2)
        let calendars = setup.topLevelEvents.compactMap { property($0, ImportIdentity.calendarPropertyID) }
        #expect(calendars.sorted() == ["default", travel].sorted())
        // Every lookup searched the mailbox, where Graph documents the filter.
        let lookups = Self.lookups(setup.standIn)
        #expect(lookups.count == 4)
        #expect(lookups.allSatisfy { $0.path.hasSuffix("/me/events") && $0.status == 200 })
    }

    @Test func anEventImportedBeforeCalendarsWereRecordedIsFoundInEveryCalendar() throws {
        let setup = try ImportSetup()
        let travel = setup.standIn.addCalendar(name: "Travel")
        var items = try TicketFiles.items("train-ticket.ics", ImportSettings(calendarID: travel))
        // As an earlier graph-ics wrote it: identity and version, no calendar.
        items[0].event.payload.singleValueExtendedProperties?.removeAll { $0.id == ImportIdentity.calendarPropertyID }
        #expect(setup.run(items).results.map(\.action) == [.created])
        #expect(setup.run(try TicketFiles.items("train-ticket.ics")).results.map(\.action) == [.skipped])
        #expect(setup.standIn.eventCount == 1)
    }

    @Test func theStandInFiltersByExtendedPropertyOnlyMailboxWide() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        let travel = fixture.standIn.addCalendar(user: "user-1", name: "Travel")
        let propertyID = "String {66f5a359-4659-4830-9070-00047ec6ac6e} Name GraphIcsUid"
        let versionID = "String {66f5a359-4659-4830-9070-00047ec6ac6e} Name GraphIcsVersion"
        var payload = StandInFixture.event("Train", "2026-12-05T07:00:00", "2026-12-05T09:00:00")
        payload["singleValueExtendedProperties"] = [
            ["id": propertyID, "value": "ticket-7@rail.example"], ["id": versionID, "value": "0;20261201T090000Z"],
        ]
        #expect(try fixture.call("POST", "/me/calendars/\(travel)/events", json: payload).status == 201)
        let filter =
            "singleValueExtendedProperties/Any(ep: ep/id eq '\(propertyID)' and ep/value eq 'ticket-7@rail.example')"
        let expand = "singleValueExtendedProperties($filter=id eq '\(propertyID)' or id eq '\(versionID)')"
        let query = "?$filter=\(fixture.encode(filter))&$expand=\(fixture.encode(expand))"

        let mailbox = try fixture.call("GET", "/me/events" + query)
        #expect(mailbox.status == 200)
        let found = try #require((mailbox.json["value"] as? [[String: Any]])?.first)
        #expect(found["subject"] as? String == "Train")
        let expanded = (found["singleValueExtendedProperties"] as? [[String: Any]] ?? []).compactMap {
            $0["id"] as? String
        }
        #expect(expanded == [propertyID, versionID])

        let scoped = try fixture.call("GET", "/me/calendars/\(travel)/events" + query)
        #expect(scoped.status == 400)
        #expect((scoped.json["error"] as? [String: Any])?["code"] as? String == "ErrorInvalidUrlQueryFilter")
    }

    // MARK: Dry run (item 12) and a newer version skipped (item 13)

    @Test func aPreviewSaysWhatTheRunWouldDoAndWritesNothing() throws {
        let setup = try ImportSetup()
        #expect(setup.run(try TicketFiles.items("concert.ics")).results.map(\.action) == [.created])
        let operations = setup.standIn.operations.count
        let items = try TicketFiles.items("concert.ics") + TicketFiles.items("cinema-ticket.ics")
        let preview = try EventImporter(client: setup.client).preview(items)
        #expect(preview.map(\.action) == [.skipped, .created])
        #expect(preview.allSatisfy { $0.isPreview })
        #expect(preview[0].line.hasSuffix(": would skip (already imported)"), "\(preview[0].line)")
        #expect(preview[1].line.hasSuffix(": would create"), "\(preview[1].line)")
        let moved = try TicketFiles.items("concert-moved.ics", ImportSettings(onDuplicate: .update))
        let update = try EventImporter(client: setup.client).preview(moved)
        #expect(update.map(\.line).map { $0.hasSuffix(": would update") } == [true], "\(update)")
        let added = setup.standIn.operations.dropFirst(operations)
        #expect(!added.isEmpty && added.allSatisfy { $0.method == "GET" })
        #expect(setup.standIn.eventCount == 1)
    }

    @Test func aPreviewOfACancellationSaysWouldCancel() throws {
        let setup = try ImportSetup()
        let cancel = try TicketFiles.items("meetup-cancel.ics")
        let nothing = try EventImporter(client: setup.client).preview(cancel)
        #expect(nothing.first?.line.hasSuffix(": would skip (nothing to cancel: not in the calendar)") == true)
        #expect(setup.run(try TicketFiles.items("meetup-series.ics")).stoppedBy == nil)
        let writes = setup.writes.count
        let preview = try EventImporter(client: setup.client).preview(cancel)
        #expect(preview.map(\.action) == [.cancelled], "\(preview)")
        #expect(preview.first?.line.hasSuffix(": would cancel") == true)
        #expect(setup.writes.count == writes)
        #expect(setup.topLevelEvents.count == 1)
    }

    @Test func aNewerVersionSkippedSaysThatUpdateWouldApplyIt() throws {
        let setup = try ImportSetup()
        #expect(setup.run(try TicketFiles.items("concert.ics")).results.map(\.action) == [.created])
        let newer = setup.run(try TicketFiles.items("concert-moved.ics")).results
        #expect(newer.map(\.action) == [.skipped])
        #expect(newer.first?.note == "a newer version than the imported one; --on-duplicate update applies it")
        #expect(
            newer.first?.line.hasSuffix(
                "skipped (a newer version than the imported one; --on-duplicate update applies it)") == true)
        // The same version again is simply already imported.
        #expect(setup.run(try TicketFiles.items("concert.ics")).results.map(\.note) == ["already imported"])
    }
}

private func property(_ event: [String: Any], _ id: String) -> String? {
    let properties = event["singleValueExtendedProperties"] as? [[String: Any]] ?? []
    return properties.first { ($0["id"] as? String) == id }?["value"] as? String
}

/// The real transport, except that the first `$batch` of lookups is answered as if nothing was found.
private final class LookupHidingTransport: HTTPTransport, @unchecked Sendable {
    private let inner = CurlTransport(defaultTimeout: .seconds(20))
    private let lock = NSLock()
    private var hiddenCount = 0

    var hidden: Int { lock.withLock { hiddenCount } }

    func send(_ request: HTTPRequest) throws -> HTTPResponse {
        var response = try inner.send(request)
        let body = String(decoding: request.body ?? Data(), as: UTF8.self)
        let isLookup =
            request.url.path.hasSuffix("/$batch") && body.contains("graph-ics.source-uid") && !body.contains(#""POST""#)
        let hide: Bool = lock.withLock {
            guard isLookup, hiddenCount == 0 else { return false }
            hiddenCount += 1
            return true
        }
        guard hide, var object = try JSONSerialization.jsonObject(with: response.body) as? [String: Any],
            let parts = object["responses"] as? [[String: Any]]
        else { return response }
        object["responses"] = parts.map { part in
            var empty = part
            empty["body"] = ["value": [Any]()]
            return empty
        }
        response.body = try JSONSerialization.data(withJSONObject: object)
        return response
    }
}
