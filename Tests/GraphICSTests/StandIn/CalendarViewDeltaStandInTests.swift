import Foundation
import GraphStandIn
import TestSupport
import Testing

/// December 2026, the window the delta tests track.
private let december = "startDateTime=2026-12-01T00:00:00Z&endDateTime=2027-01-01T00:00:00Z"

/// The entries of one delta round, read page by page over raw HTTP.
private struct DeltaRound {
    var pages: [RawHTTPConnection.Response] = []
    var entries: [[String: Any]] = []
    var deltaLink: String?

    var eventIDs: [String] { entries.filter { $0["@removed"] == nil }.compactMap { $0["id"] as? String } }
    var removedIDs: Set<String> { Set(entries.filter { $0["@removed"] != nil }.compactMap { $0["id"] as? String }) }

    /// Follows nextLinks from `first` to the deltaLink, sending `headers` with every request.
    init(_ fixture: StandInFixture, from first: String, headers: [(String, String)] = []) throws {
        var next: String? = first
        while let link = next {
            let page = try fixture.call("GET", link, headers: headers)
            try #require(page.status == 200, "\(link): \(page.status) \(page.errorCode ?? "")")
            pages.append(page)
            entries += page.json["value"] as? [[String: Any]] ?? []
            next = page.json["@odata.nextLink"] as? String
            deltaLink = page.json["@odata.deltaLink"] as? String
            try #require(pages.count < 100)
        }
    }
}

/// The query of an absolute link, without the `?`.
private func query(of link: String) -> String {
    link.firstIndex(of: "?").map { String(link[link.index(after: $0)...]) } ?? ""
}

@Suite struct CalendarViewDeltaStandInTests {
    @Test func aFirstRoundPagesByMaxPageSizeWithSkipTokensAndEndsInADeltaLink() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        let singles = try fixture.standIn.addEvents(
            count: 5, from: iso("2026-12-02T08:00:00Z"), to: iso("2026-12-20T08:00:00Z"))
        try fixture.standIn.addEvent(StandInFixture.event("November", "2026-11-20T08:00:00", "2026-11-20T09:00:00"))
        var master = StandInFixture.event("Series", "2026-12-21T08:00:00", "2026-12-21T09:00:00")
        master["type"] = "seriesMaster"
        master["id"] = "master-1"
        try fixture.standIn.addEvent(master)
        var occurrence = StandInFixture.event("Series", "2026-12-21T08:00:00", "2026-12-21T09:00:00")
        occurrence["type"] = "occurrence"
        occurrence["seriesMasterId"] = "master-1"
        let occurrenceID = try fixture.standIn.addEvent(occurrence)

        let round = try DeltaRound(
            fixture, from: "/me/calendarView/delta?\(december)", headers: [("Prefer", "odata.maxpagesize=2")])

        #expect(round.pages.map { ($0.json["value"] as? [Any])?.count ?? -1 } == [2, 2, 2])
        #expect(round.eventIDs == singles + [occurrenceID], "calendarView's events in its order, no master")
        #expect(round.removedIDs.isEmpty)
        for page in round.pages.dropLast() {
            let link = try #require(page.json["@odata.nextLink"] as? String)
            #expect(query(of: link).hasPrefix("$skiptoken="), "the token encodes the window: \(link)")
            #expect(!query(of: link).contains("&"))
            #expect(page.json["@odata.deltaLink"] == nil)
        }
        let deltaLink = try #require(round.deltaLink)
        #expect(deltaLink.hasPrefix(fixture.standIn.baseURL + "/me/calendarView/delta?$deltatoken="))
        #expect(round.pages.allSatisfy { $0.header("Preference-Applied")?.contains("odata.maxpagesize=2") == true })
        for entry in round.entries {
            let changeKey = try #require(entry["changeKey"] as? String)
            #expect(entry["@odata.etag"] as? String == "W/\"\(changeKey)\"")
        }
    }

    @Test func withoutMaxPageSizePagesHoldTenAndNothingIsReportedApplied() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        try fixture.standIn.addEvents(count: 12, from: iso("2026-12-02T08:00:00Z"), to: iso("2026-12-20T08:00:00Z"))
        let round = try DeltaRound(fixture, from: "/me/calendarView/delta?\(december)")
        #expect(round.pages.map { ($0.json["value"] as? [Any])?.count ?? -1 } == [10, 2])
        #expect(round.pages.allSatisfy { $0.header("Preference-Applied")?.contains("maxpagesize") != true })
    }

    @Test func aRoundWithoutChangesIsOneEmptyPageAndADeltaLinkCanBeReplayed() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        let ids = try fixture.standIn.addEvents(
            count: 3, from: iso("2026-12-02T08:00:00Z"), to: iso("2026-12-20T08:00:00Z"))
        let first = try DeltaRound(fixture, from: "/me/calendarView/delta?\(december)")
        let deltaLink = try #require(first.deltaLink)

        let quiet = try DeltaRound(fixture, from: deltaLink)
        #expect(quiet.pages.count == 1)
        #expect(quiet.entries.isEmpty)
        #expect(quiet.deltaLink != nil)

        _ = try fixture.call("PATCH", "/me/events/\(ids[1])", json: ["subject": "Renamed"])
        let replayed = try DeltaRound(fixture, from: deltaLink)
        let again = try DeltaRound(fixture, from: deltaLink)
        #expect(replayed.eventIDs == [ids[1]], "a delta token is a state: using it again still answers")
        #expect(again.eventIDs == replayed.eventIDs)
        let afterQuiet = try DeltaRound(fixture, from: try #require(quiet.deltaLink))
        #expect(afterQuiet.eventIDs == [ids[1]])
    }

    @Test func aLaterRoundReportsChangesAndRemovalsInsideAndOutsideTheWindow() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        let ids = try fixture.standIn.addEvents(
            count: 4, from: iso("2026-12-02T08:00:00Z"), to: iso("2026-12-20T08:00:00Z"))
        let outside = try fixture.standIn.addEvent(
            StandInFixture.event("Next year", "2027-02-01T08:00:00", "2027-02-01T09:00:00"))
        let first = try DeltaRound(fixture, from: "/me/calendarView/delta?\(december)")
        #expect(Set(first.eventIDs) == Set(ids))

        _ = try fixture.call("PATCH", "/me/events/\(ids[0])", json: ["subject": "Changed through Graph"])
        try fixture.standIn.changeEvent(id: ids[1], ["location": ["displayName": "Room 2"]])
        try fixture.standIn.removeEvent(id: ids[2])
        try fixture.standIn.changeEvent(
            id: ids[3],
            [
                "start": ["dateTime": "2027-01-10T08:00:00", "timeZone": "UTC"],
                "end": ["dateTime": "2027-01-10T09:00:00", "timeZone": "UTC"],
            ])
        try fixture.standIn.changeEvent(id: outside, ["subject": "Still next year"])
        let added = try fixture.standIn.addEvent(
            StandInFixture.event("New in Outlook", "2026-12-24T08:00:00", "2026-12-24T09:00:00"))

        let later = try DeltaRound(fixture, from: try #require(first.deltaLink))
        #expect(later.eventIDs == [ids[0], ids[1], added])
        #expect(later.removedIDs == [ids[2], ids[3], outside], "deleted, moved out, and changed outside the window")
        let removal = try #require(later.entries.first { $0["@removed"] != nil })
        #expect(removal["@removed"] as? [String: String] == ["reason": "deleted"])
        #expect(Set(removal.keys) == ["@odata.type", "id", "@removed"])
        let renamed = try #require(later.entries.first { $0["id"] as? String == ids[1] })
        #expect((renamed["location"] as? [String: Any])?["displayName"] as? String == "Room 2")
    }

    @Test func optionsTheFunctionRefusesAndUndocumentedFormsAreRefused() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        let selected = try fixture.call("GET", "/me/calendarView/delta?\(december)&$select=subject")
        #expect(selected.status == 400)
        #expect(selected.errorCode == "ErrorInvalidUrlQuery")
        for option in ["$expand=attachments", "$filter=subject%20eq%20'a'", "$orderby=start/dateTime", "$search=a"] {
            #expect(try fixture.call("GET", "/me/calendarView/delta?\(december)&\(option)").status == 400, "\(option)")
        }
        #expect(try fixture.call("GET", "/me/calendarView/delta").errorCode == "ErrorInvalidParameter")
        let calendarID = try #require(
            (fixture.call("GET", "/me/calendar").json["id"] as? String))
        let scoped = try fixture.call("GET", "/me/calendars/\(calendarID)/calendarView/delta?\(december)")
        #expect(scoped.status == 400)
        let message = (scoped.json["error"] as? [String: Any])?["message"] as? String
        #expect(message == "Resource not found for the segment 'delta'.")
        #expect(try fixture.call("GET", "/me/calendar/calendarView/delta?\(december)").status == 400)
        #expect(try fixture.call("GET", "/users/user-1/calendarView/delta?\(december)").status == 200)
        #expect(try fixture.call("GET", "/me/calendarView/microsoft.graph.delta?\(december)").status == 200)
    }

    @Test func expiredAndUnknownStateTokensAreGone() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        try fixture.standIn.addEvents(count: 3, from: iso("2026-12-02T08:00:00Z"), to: iso("2026-12-20T08:00:00Z"))
        let first = try fixture.call(
            "GET", "/me/calendarView/delta?\(december)", headers: [("Prefer", "odata.maxpagesize=2")])
        let nextLink = try #require(first.json["@odata.nextLink"] as? String)
        let round = try DeltaRound(fixture, from: nextLink, headers: [("Prefer", "odata.maxpagesize=2")])
        let deltaLink = try #require(round.deltaLink)
        #expect(try fixture.call("GET", nextLink).status == 200, "a skip token can be used again")

        fixture.standIn.expireDeltaTokens()
        for link in [deltaLink, nextLink, "/me/calendarView/delta?$deltatoken=never-issued"] {
            let gone = try fixture.call("GET", link)
            #expect(gone.status == 410, "\(link)")
            #expect(gone.errorCode == "syncStateNotFound")
        }
        #expect(try DeltaRound(fixture, from: "/me/calendarView/delta?\(december)").eventIDs.count == 3)
    }
}

/// An ISO 8601 instant.
private func iso(_ text: String) -> Date {
    ISO8601DateFormatter().date(from: text) ?? Date(timeIntervalSince1970: 0)
}

@Suite struct CalendarViewDeltaResetStandInTests {
    @Test func aResetViewIsGoneWithResyncRequiredAndALocationThatStartsItOver() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        let ids = try fixture.standIn.addEvents(
            count: 3, from: iso("2026-12-02T08:00:00Z"), to: iso("2026-12-20T08:00:00Z"))
        let first = try fixture.call(
            "GET", "/me/calendarView/delta?\(december)", headers: [("Prefer", "odata.maxpagesize=2")])
        let nextLink = try #require(first.json["@odata.nextLink"] as? String)
        let deltaLink = try #require(try DeltaRound(fixture, from: nextLink).deltaLink)

        fixture.standIn.resetDeltaSync()
        for link in [deltaLink, nextLink] {
            let gone = try fixture.call("GET", link)
            #expect(gone.status == 410)
            #expect(gone.errorCode == "resyncRequired")
        }
        let location = try #require(try fixture.call("GET", deltaLink).header("Location"))
        #expect(location.hasSuffix("&$deltatoken="))
        let restarted = try DeltaRound(fixture, from: location)
        #expect(restarted.eventIDs == ids, "the Location starts the same view over")
        #expect(try DeltaRound(fixture, from: try #require(restarted.deltaLink)).entries.isEmpty)
    }
}
