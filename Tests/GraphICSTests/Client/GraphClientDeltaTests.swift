import Foundation
import GraphStandIn
import Testing

@testable import GraphICS

/// The stand-in with one user, a client for it over libcurl, and December 2026 as the window.
private struct DeltaSetup {
    let standIn: GraphStandIn
    let client: GraphClient
    let start = Date(timeIntervalSince1970: 1_796_083_200)  // 2026-12-01T00:00:00Z
    var end: Date { start.addingTimeInterval(31 * 86_400) }

    init() throws {
        standIn = try GraphStandIn()
        standIn.addUser(displayName: "Ada Lovelace", mail: "ada@contoso.example", mailboxTimeZone: "UTC")
        client = GraphClient(
            baseURL: try #require(URL(string: standIn.baseURL)), transport: CurlTransport(defaultTimeout: .seconds(20)),
            tokens: StaticTokenSource(token: standIn.issueAccessToken()),
            retry: RetryPolicy(maxAttempts: 8, baseDelay: .milliseconds(20), maxDelay: .milliseconds(200)))
    }

    /// `count` events spread over the first twenty days of the window.
    func seed(_ count: Int) throws -> [String] {
        try standIn.addEvents(
            count: count, from: start.addingTimeInterval(86_400), to: start.addingTimeInterval(20 * 86_400))
    }

    /// Graph requests the stand-in has served to delta so far.
    var deltaRequests: Int { standIn.operations.filter { $0.path.hasSuffix("/calendarView/delta") }.count }

    func etag(_ id: String) throws -> String {
        let event = try #require(try JSONSerialization.jsonObject(with: client.event(id: id)) as? [String: Any])
        return try #require(event["@odata.etag"] as? String)
    }
}

@Suite struct GraphClientDeltaTests {
    @Test func aFirstRoundFollowsNextLinksAndARoundWithoutChangesIsOneRequest() throws {
        let setup = try DeltaSetup()
        defer { setup.standIn.stop() }
        let ids = try setup.seed(25)
        var pageSizes: [Int] = []
        let link = try setup.client.calendarViewDelta(start: setup.start, end: setup.end, pageSize: 10) {
            pageSizes.append($0.events.count)
        }
        #expect(pageSizes == [10, 10, 5])
        #expect(setup.deltaRequests == 3)
        let prefer = setup.standIn.operations.last?.headers.first { $0.name.lowercased() == "prefer" }?.value ?? ""
        #expect(prefer.contains("odata.maxpagesize=10") && prefer.contains("outlook.timezone=\"UTC\""))
        #expect(link.contains("$deltatoken="))

        let quiet = try setup.client.calendarViewDelta(resumingFrom: link)
        #expect(setup.deltaRequests == 4, "one request when nothing changed")
        #expect(quiet.events.isEmpty && quiet.removedIDs.isEmpty)
        #expect(quiet.deltaLink != link)

        let gathered = try setup.client.calendarViewDelta(start: setup.start, end: setup.end)
        #expect(gathered.events.map(\.id) == ids)
        #expect(gathered.events.allSatisfy { $0.etag == "W/\"\($0.changeKey ?? "")\"" })
    }

    @Test func aLaterRoundReportsAnUpdateADeletionAndAMoveOutOfTheWindow() throws {
        let setup = try DeltaSetup()
        defer { setup.standIn.stop() }
        let ids = try setup.seed(4)
        let first = try setup.client.calendarViewDelta(start: setup.start, end: setup.end)

        try setup.client.updateEvent(id: ids[0], patch: Data(#"{"subject":"Renamed"}"#.utf8))
        try setup.standIn.removeEvent(id: ids[1])
        try setup.standIn.changeEvent(
            id: ids[2],
            [
                "start": ["dateTime": "2027-03-01T08:00:00", "timeZone": "UTC"],
                "end": ["dateTime": "2027-03-01T09:00:00", "timeZone": "UTC"],
            ])
        let later = try setup.client.calendarViewDelta(resumingFrom: first.deltaLink)
        #expect(later.events.map(\.id) == [ids[0]])
        let renamed = try #require(try JSONSerialization.jsonObject(with: later.events[0].raw) as? [String: Any])
        #expect(renamed["subject"] as? String == "Renamed")
        #expect(Set(later.removedIDs) == [ids[1], ids[2]])

        let replayed = try setup.client.calendarViewDelta(resumingFrom: first.deltaLink)
        #expect(replayed.events.map(\.id) == later.events.map(\.id), "a delta link can be used again")
        #expect(Set(replayed.removedIDs) == Set(later.removedIDs))
    }

    @Test func anExpiredDeltaLinkThrowsResyncRequired() throws {
        let setup = try DeltaSetup()
        defer { setup.standIn.stop() }
        _ = try setup.seed(3)
        let first = try setup.client.calendarViewDelta(start: setup.start, end: setup.end)
        setup.standIn.expireDeltaTokens()
        #expect {
            try setup.client.calendarViewDelta(resumingFrom: first.deltaLink)
        } throws: { error in
            guard let reset = error as? DeltaResyncRequired else { return false }
            return reset.error.status == 410 && reset.error.code == "syncStateNotFound"
                && !reset.description.contains("deltatoken")
        }
        #expect(try setup.client.calendarViewDelta(start: setup.start, end: setup.end).events.count == 3)
    }

    @Test func aRoundIsCompletedThroughThrottling() throws {
        let setup = try DeltaSetup()
        defer { setup.standIn.stop() }
        let ids = try setup.seed(30)
        setup.standIn.throttleEvery = 2
        let round = try setup.client.calendarViewDelta(start: setup.start, end: setup.end, pageSize: 10)
        #expect(round.events.map(\.id) == ids)
        #expect(setup.standIn.throttledCount > 0)
    }

    @Test func writesWithAStaleEtagThrowAConflictAndWithTheCurrentOneSucceed() throws {
        let setup = try DeltaSetup()
        defer { setup.standIn.stop() }
        let ids = try setup.seed(2)
        let round = try setup.client.calendarViewDelta(start: setup.start, end: setup.end)
        let seen = try #require(round.events.first?.etag)
        try setup.standIn.changeEvent(id: ids[0], ["subject": "Changed in Outlook"])

        #expect {
            try setup.client.updateEvent(id: ids[0], patch: Data(#"{"subject":"Mine"}"#.utf8), ifMatch: seen)
        } throws: { error in
            guard let conflict = error as? EditConflict else { return false }
            return conflict.eventID == ids[0] && conflict.error.status == 412
                && conflict.error.code == "ErrorIrresolvableConflict"
        }
        #expect(throws: EditConflict.self) { try setup.client.deleteEvent(id: ids[0], ifMatch: seen) }

        let current = try setup.etag(ids[0])
        let updated = try setup.client.updateEvent(
            id: ids[0], patch: Data(#"{"subject":"Mine"}"#.utf8), ifMatch: current)
        let event = try #require(try JSONSerialization.jsonObject(with: updated) as? [String: Any])
        #expect(event["subject"] as? String == "Mine")
        let newer = try #require(event["@odata.etag"] as? String)
        #expect(newer != current)
        try setup.client.deleteEvent(id: ids[0], ifMatch: newer)
        #expect(setup.standIn.event(id: ids[0]) == nil)
        #expect(setup.standIn.event(id: ids[1]) != nil)
    }
}

@Suite struct GraphClientDeltaResetTests {
    @Test func aResetViewThrowsResyncRequiredToo() throws {
        let setup = try DeltaSetup()
        defer { setup.standIn.stop() }
        _ = try setup.seed(2)
        let first = try setup.client.calendarViewDelta(start: setup.start, end: setup.end)
        setup.standIn.resetDeltaSync()
        #expect {
            try setup.client.calendarViewDelta(resumingFrom: first.deltaLink)
        } throws: { error in
            (error as? DeltaResyncRequired)?.error.code == "resyncRequired"
        }
    }
}

@Suite struct GraphClientDeltaScaleTests {
    @Test func threeThousandEventsComeInThreePagesAndOneChangeInOneRequest() throws {
        let setup = try DeltaSetup()
        defer { setup.standIn.stop() }
        let ids = try setup.seed(3000)
        var pages = 0
        let link = try setup.client.calendarViewDelta(start: setup.start, end: setup.end) { page in
            pages += 1
            #expect(page.events.count == 1000)
        }
        #expect(pages == 3, "⌈N/1000⌉ pages")
        #expect(setup.deltaRequests == 3)
        try setup.standIn.changeEvent(id: ids[2345], ["subject": "One change"])
        let later = try setup.client.calendarViewDelta(resumingFrom: link)
        #expect(later.events.map(\.id) == [ids[2345]])
        #expect(setup.deltaRequests == 4)
    }
}
