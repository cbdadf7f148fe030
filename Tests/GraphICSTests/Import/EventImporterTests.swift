import Foundation
import GraphStandIn
import ICalBridge
import Testing

@testable import GraphICS

/// The ticket files of `fixtures/import`, planned the way `graph-ics import` plans them.
enum TicketFiles {
    static let folder: URL = {
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("fixtures/import")
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: "fixtures/import")
    }()

    static func text(_ name: String) throws -> String {
        try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
    }

    static func items(_ name: String, _ settings: ImportSettings = ImportSettings()) throws -> [ImportItem] {
        try items(text: text(name), name: name, settings)
    }

    static func items(text: String, name: String, _ settings: ImportSettings = ImportSettings()) throws -> [ImportItem]
    {
        let plan = try ICSToGraph.plan(
            Data(text.utf8), options: ImportOptions(userZone: .utc, file: name), settings: settings)
        #expect(plan.diagnostics.filter { $0.severity == .error }.isEmpty, "\(plan.diagnostics)")
        return plan.events.map { ImportItem(file: name, event: $0) }
    }

    /// `count` one-hour events with UIDs `PREFIX-0@tests.example`, … spread over March 2027.
    static func generated(_ count: Int, prefix: String = "gen") throws -> [ImportItem] {
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//graph-ics tests//EN", "METHOD:PUBLISH"]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        for index in 0..<count {
            let day = two(1 + (index / 10) % 28)
            let hour = two(8 + index % 10)
            lines += [
                "BEGIN:VEVENT", "UID:\(prefix)-\(index)@tests.example", "DTSTAMP:20261201T100000Z",
                "DTSTART:202703\(day)T\(hour)0000Z", "DURATION:PT1H", "SUMMARY:Generated \(index)", "END:VEVENT",
            ]
        }
        lines.append("END:VCALENDAR")
        return try items(text: lines.joined(separator: "\r\n") + "\r\n", name: "generated.ics")
    }
}

/// The real libcurl transport, except that the answers of the first `drops` `$batch` requests that create
/// events are thrown away after the stand-in has handled them: a connection that broke on the way back.
final class AnswerDroppingTransport: HTTPTransport, @unchecked Sendable {
    private let inner = CurlTransport(defaultTimeout: .seconds(20))
    private let lock = NSLock()
    private var drops = 0
    private var dropped = 0

    func dropCreateAnswers(_ count: Int) {
        lock.withLock { drops = count }
    }

    var droppedCount: Int { lock.withLock { dropped } }

    func send(_ request: HTTPRequest) throws -> HTTPResponse {
        let response = try inner.send(request)
        let creates =
            request.url.path.hasSuffix("/$batch")
            && String(decoding: request.body ?? Data(), as: UTF8.self).contains(#""method":"POST""#)
        let drop: Bool = lock.withLock {
            guard creates, dropped < drops else { return false }
            dropped += 1
            return true
        }
        if drop {
            throw CurlError(code: .connectionDropped, host: "127.0.0.1", message: "connection reset (test)")
        }
        return response
    }
}

/// A stand-in with one user and a Graph client for it.
struct ImportSetup {
    let standIn: GraphStandIn
    let transport = AnswerDroppingTransport()
    let client: GraphClient

    init() throws {
        standIn = try GraphStandIn()
        standIn.addUser(displayName: "Alex Example", mail: "alex@contoso.example", mailboxTimeZone: "Europe/Berlin")
        client = GraphClient(
            baseURL: try #require(URL(string: standIn.baseURL)), transport: transport,
            tokens: StaticTokenSource(token: standIn.issueAccessToken()),
            retry: RetryPolicy(maxAttempts: 8, baseDelay: .milliseconds(10), maxDelay: .milliseconds(100)))
    }

    func run(_ items: [ImportItem]) -> ImportReport {
        EventImporter(client: client).run(items)
    }

    /// The Graph operations that change something (plain or inside `$batch`).
    var writes: [GraphStandIn.RecordedRequest] {
        standIn.operations.filter { ["POST", "PATCH", "DELETE"].contains($0.method) }
    }

    var batchEnvelopes: Int { standIn.requests.filter { $0.path == "/v1.0/$batch" }.count }

    /// The stored events that are not occurrences of a series.
    var topLevelEvents: [[String: Any]] {
        standIn.events().filter {
            ($0["type"] as? String) == "singleInstance" || ($0["type"] as? String) == "seriesMaster"
        }
    }

    /// The occurrences and exceptions of a series, in start order.
    func occurrences(of seriesID: String) -> [[String: Any]] {
        standIn.events().filter { ($0["seriesMasterId"] as? String) == seriesID }
    }
}

/// `2027-01-19T18:00:00` from a stored event's `start.dateTime` (UTC).
private func startUTC(_ event: [String: Any]) -> String {
    String(((event["start"] as? [String: Any])?["dateTime"] as? String ?? "").prefix(19))
}

private func property(_ event: [String: Any], _ id: String) -> String? {
    let properties = event["singleValueExtendedProperties"] as? [[String: Any]] ?? []
    return properties.first { ($0["id"] as? String) == id }?["value"] as? String
}

@Suite struct EventImporterTests {
    @Test func ticketsAreCreatedWithoutAttendeesAndSkippedWhenImportedAgain() throws {
        let setup = try ImportSetup()
        let items =
            try TicketFiles.items("train-ticket.ics") + TicketFiles.items("cinema-ticket.ics")
            + TicketFiles.items("concert.ics")
        let first = setup.run(items)
        #expect(first.stoppedBy == nil)
        #expect(first.results.map(\.action) == [.created, .created, .created], "\(first.results)")
        #expect(setup.standIn.sentInvitations.isEmpty)
        let stored = setup.topLevelEvents
        #expect(stored.count == 3)
        for event in stored {
            #expect((event["attendees"] as? [Any])?.isEmpty == true)
            #expect(property(event, ImportIdentity.propertyID) != nil)
            #expect(property(event, ImportIdentity.versionPropertyID)?.hasPrefix("0;2026") == true)
        }
        let cinema = try #require(stored.first { ($0["subject"] as? String)?.hasPrefix("Kino") == true })
        #expect(property(cinema, ImportIdentity.propertyID) == "order-7731902-screening-55810@kino-babylon.example")
        #expect(startUTC(cinema) == "2027-01-22T19:15:00")

        let writesBefore = setup.writes.count
        let second = setup.run(items)
        #expect(second.results.map(\.action) == [.skipped, .skipped, .skipped])
        #expect(second.results.map(\.note) == Array(repeating: "already imported", count: 3))
        #expect(Set(second.results.compactMap(\.eventID)) == Set(first.results.compactMap(\.eventID)))
        #expect(setup.writes.count == writesBefore)
        #expect(setup.standIn.eventCount == 3)
    }

    @Test func lookupsAndCreatesGoTwentyToABatch() throws {
        let setup = try ImportSetup()
        let items = try TicketFiles.generated(45)
        let report = setup.run(items)
        #expect(report.count(.created) == 45)
        // ⌈45/20⌉ batches of lookups, then as many of creates, and nothing else.
        #expect(setup.batchEnvelopes == 6)
        #expect(setup.standIn.requests.count == 6)
        let creates = setup.standIn.operations.filter { $0.method == "POST" && $0.viaBatch }
        #expect(creates.count == 45)
        #expect(creates.allSatisfy { ($0.jsonBody as? [String: Any])?["transactionId"] is String })
    }

    @Test func throttledAndSlowGraphStillGetsEveryEventOnceWithinFourRequests() throws {
        let setup = try ImportSetup()
        setup.standIn.latency = .milliseconds(5)
        setup.standIn.throttleEvery = 20
        setup.standIn.retryAfter = .milliseconds(200)
        setup.client.throttle.startJournal()
        let report = setup.run(try TicketFiles.generated(60))
        #expect(report.stoppedBy == nil)
        #expect(report.count(.created) == 60, "\(report.results.filter { $0.action != .created })")
        #expect(setup.standIn.eventCount == 60)
        #expect(setup.standIn.throttledCount > 0)
        #expect(setup.standIn.retryAfterViolations == 0)
        // Four batches run at once, and a 429 inside another thread's batch is known only when that batch's
        // answer arrives; from then on the gate lets nothing go before the Retry-After ran out.
        #expect(setup.client.throttle.journal.contains { if case .held = $0 { true } else { false } })
        #expect(admittedWhileHeld(setup.client.throttle.journal) == 0)
        #expect(setup.standIn.maxInFlightPerMailbox <= 4)
    }

    @Test func aCreateWhoseAnswerWasLostIsRetriedWithoutADuplicate() throws {
        let setup = try ImportSetup()
        setup.transport.dropCreateAnswers(1)
        let report = setup.run(try TicketFiles.generated(25))
        #expect(setup.transport.droppedCount == 1)
        #expect(report.count(.created) == 25)
        // The dropped batch reached Graph and was sent again: its creates arrived twice, the events exist once.
        #expect(setup.standIn.operations.filter { $0.method == "POST" }.count > 25)
        #expect(setup.standIn.eventCount == 25)
        #expect(Set(report.results.compactMap(\.eventID)).count == 25)
    }

    @Test func anEventTheLookupMissesIsFoundByItsTransactionID() throws {
        let setup = try ImportSetup()
        let items = try TicketFiles.items("concert.ics")
        let transactionID = try #require(items[0].event.payload.transactionId)
        // Graph made the event, but its extended property is not searchable (yet): only the transactionId knows.
        let seeded = try setup.standIn.addEvent([
            "subject": "Concert (created by an earlier, interrupted run)",
            "start": ["dateTime": "2027-02-11T19:00:00", "timeZone": "UTC"],
            "end": ["dateTime": "2027-02-11T21:00:00", "timeZone": "UTC"],
            "transactionId": transactionID,
        ])
        let report = setup.run(items)
        #expect(report.results.first?.action == .created)
        #expect(report.results.first?.eventID == seeded)
        #expect(setup.standIn.eventCount == 1)
    }

    @Test func aSeriesLosesItsExdateAndGetsItsOverride() throws {
        let setup = try ImportSetup()
        let report = setup.run(try TicketFiles.items("meetup-series.ics"))
        let result = try #require(report.results.first)
        #expect(result.action == .created, "\(result)")
        let seriesID = try #require(result.eventID)
        let occurrences = setup.occurrences(of: seriesID)
        // Tuesdays 19:00 Amsterdam (18:00 UTC) from 5 January, six of them; 19 January deleted; 26 January
        // moved to Wednesday 27 January 19:30 (18:30 UTC).
        #expect(
            occurrences.map(startUTC) == [
                "2027-01-05T18:00:00", "2027-01-12T18:00:00", "2027-01-27T18:30:00", "2027-02-02T18:00:00",
                "2027-02-09T18:00:00",
            ])
        let moved = try #require(occurrences.first { startUTC($0) == "2027-01-27T18:30:00" })
        #expect(moved["type"] as? String == "exception")
        #expect(moved["subject"] as? String == "Swift Amsterdam weekly meetup (moved to Wednesday)")
        #expect(
            (moved["location"] as? [String: Any])?["displayName"] as? String
                == "Booking.com HQ, Oosterdokskade 65, Amsterdam")
        #expect(setup.standIn.sentInvitations.isEmpty)
        #expect(setup.standIn.sentCancellations.isEmpty)
    }

    @Test func aSeriesWhoseExdatesAreSixYearsApartReadsItsOccurrencesInWindowsGraphAccepts() throws {
        let setup = try ImportSetup()
        let ics =
            [
                "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//graph-ics tests//EN", "BEGIN:VEVENT",
                "UID:yearly-dinner@tests.example", "DTSTAMP:20261201T100000Z", "DTSTART:20200110T180000Z",
                "DURATION:PT2H", "RRULE:FREQ=YEARLY;COUNT=8", "EXDATE:20210110T180000Z", "EXDATE:20270110T180000Z",
                "SUMMARY:Yearly dinner", "END:VEVENT", "END:VCALENDAR",
            ].joined(separator: "\r\n") + "\r\n"
        let report = setup.run(try TicketFiles.items(text: ics, name: "yearly.ics"))
        let result = try #require(report.results.first)
        #expect(result.action == .created, "\(result)")
        let seriesID = try #require(result.eventID)
        #expect(
            setup.occurrences(of: seriesID).map(startUTC) == [
                "2020-01-10T18:00:00", "2022-01-10T18:00:00", "2023-01-10T18:00:00", "2024-01-10T18:00:00",
                "2025-01-10T18:00:00", "2026-01-10T18:00:00",
            ])
        // 2021-01-08 to 2027-01-12 is more than Graph's 1825 days: two windows, both answered.
        let lookups = setup.standIn.operations.filter { $0.path.lowercased().hasSuffix("/instances") }
        #expect(lookups.count == 2)
        #expect(lookups.allSatisfy { $0.status == 200 })
    }

    @Test func anInterruptedSeriesIsFinishedWhenImportedAgain() throws {
        let setup = try ImportSetup()
        var interrupted = try TicketFiles.items("meetup-series.ics")
        interrupted[0].event.followUps = []  // as if the run stopped right after creating the series
        let first = setup.run(interrupted)
        let seriesID = try #require(first.results.first?.eventID)
        #expect(setup.occurrences(of: seriesID).count == 6)

        let second = setup.run(try TicketFiles.items("meetup-series.ics"))
        let resumed = try #require(second.results.first)
        #expect(resumed.action == .skipped)
        #expect(resumed.eventID == seriesID)
        #expect(resumed.note == "already imported; finished its series: 1 occurrence(s) deleted, 1 changed")
        #expect(setup.occurrences(of: seriesID).map(startUTC).contains("2027-01-27T18:30:00"))
        #expect(!setup.occurrences(of: seriesID).map(startUTC).contains("2027-01-19T18:00:00"))
        #expect(setup.occurrences(of: seriesID).count == 5)

        let writes = setup.writes.count
        let third = setup.run(try TicketFiles.items("meetup-series.ics"))
        #expect(third.results.first?.note == "already imported")
        #expect(setup.writes.count == writes)
        #expect(setup.standIn.eventCount == 6)
    }

    @Test func updateChangesTheEventOnlyWhenTheFileIsNewer() throws {
        let setup = try ImportSetup()
        let update = ImportSettings(onDuplicate: .update)
        let created = setup.run(try TicketFiles.items("concert.ics", update))
        #expect(created.results.first?.action == .created)
        let id = try #require(created.results.first?.eventID)

        let moved = setup.run(try TicketFiles.items("concert-moved.ics", update))
        #expect(moved.results.first?.action == .updated, "\(moved.results)")
        #expect(moved.results.first?.eventID == id)
        let event = try #require(setup.standIn.event(id: id))
        #expect(startUTC(event) == "2027-02-12T18:30:00")
        #expect((event["subject"] as? String)?.hasSuffix("(new date)") == true)
        #expect(property(event, ImportIdentity.versionPropertyID) == "1;20261125T133000Z")

        let writes = setup.writes.count
        let older = setup.run(try TicketFiles.items("concert.ics", update))
        #expect(older.results.first?.action == .skipped)
        #expect(older.results.first?.note?.contains("not newer") == true)
        let same = setup.run(try TicketFiles.items("concert-moved.ics", update))
        #expect(same.results.first?.action == .skipped)
        #expect(setup.writes.count == writes)
        #expect(setup.standIn.eventCount == 1)
        #expect(startUTC(try #require(setup.standIn.event(id: id))) == "2027-02-12T18:30:00")
    }

    @Test func newCreatesAnotherCopyEveryTime() throws {
        let setup = try ImportSetup()
        let settings = ImportSettings(onDuplicate: .new)
        let first = setup.run(try TicketFiles.items("concert.ics", settings))
        let second = setup.run(try TicketFiles.items("concert.ics", settings))
        #expect(first.results.first?.action == .created)
        #expect(second.results.first?.action == .created)
        #expect(first.results.first?.eventID != second.results.first?.eventID)
        #expect(setup.standIn.eventCount == 2)
        // No lookups are needed to create copies.
        #expect(setup.standIn.operations.allSatisfy { $0.method == "POST" })
    }

    @Test func aCancellationDeletesTheImportedSeriesAndNeverCreatesOne() throws {
        let setup = try ImportSetup()
        let early = setup.run(try TicketFiles.items("meetup-cancel.ics"))
        #expect(early.results.first?.action == .skipped)
        #expect(early.results.first?.note == "nothing to cancel: not in the calendar")
        #expect(setup.writes.isEmpty)

        _ = setup.run(try TicketFiles.items("meetup-series.ics"))
        #expect(setup.standIn.eventCount == 6)
        let cancelled = setup.run(try TicketFiles.items("meetup-cancel.ics"))
        #expect(cancelled.results.first?.action == .cancelled, "\(cancelled.results)")
        #expect(setup.standIn.eventCount == 0)
        #expect(setup.standIn.sentCancellations.isEmpty)
    }

    @Test func aSeriesAndItsCancellationInOneRunEndCancelled() throws {
        let setup = try ImportSetup()
        let report = setup.run(try TicketFiles.items("meetup-series.ics") + TicketFiles.items("meetup-cancel.ics"))
        #expect(report.results.map(\.action) == [.created, .cancelled], "\(report.results)")
        #expect(setup.standIn.eventCount == 0)
    }

    @Test func oneOccurrenceOfAnImportedSeriesIsCancelled() throws {
        let setup = try ImportSetup()
        let created = setup.run(try TicketFiles.items("meetup-series.ics"))
        let seriesID = try #require(created.results.first?.eventID)
        let cancellation = try TicketFiles.text("meetup-cancel.ics")
            .replacing("SEQUENCE:1\r\n", with: "SEQUENCE:1\r\nRECURRENCE-ID;TZID=Europe/Amsterdam:20270112T190000\r\n")
            .replacing(
                "DTSTART;TZID=Europe/Amsterdam:20270105T190000", with: "DTSTART;TZID=Europe/Amsterdam:20270112T190000"
            )
            .replacing(
                "DTEND;TZID=Europe/Amsterdam:20270105T210000", with: "DTEND;TZID=Europe/Amsterdam:20270112T210000")
        let report = setup.run(try TicketFiles.items(text: cancellation, name: "cancel-one.ics"))
        #expect(report.results.first?.action == .cancelled, "\(report.results)")
        #expect(report.results.first?.eventID == seriesID)
        let starts = setup.occurrences(of: seriesID).map(startUTC)
        #expect(!starts.contains("2027-01-12T18:00:00"))
        #expect(starts.count == 4)
    }

    @Test func aMeetingIsNeitherCancelledNorChangedWithoutConsent() throws {
        let setup = try ImportSetup()
        let meeting = ImportSettings(notifiesAttendees: true)
        let invited = setup.run(try TicketFiles.items("invitation-request.ics", meeting))
        #expect(invited.results.first?.action == .created)
        #expect(
            Set(setup.standIn.sentInvitations)
                == ["alex@contoso.example", "lee@contoso.example", "room-412@contoso.example"])
        let cancellation = try TicketFiles.text("invitation-request.ics")
            .replacing("METHOD:REQUEST", with: "METHOD:CANCEL").replacing("SEQUENCE:0", with: "SEQUENCE:1")
            .replacing("STATUS:CONFIRMED", with: "STATUS:CANCELLED")

        let refused = setup.run(try TicketFiles.items(text: cancellation, name: "cancel.ics"))
        #expect(refused.results.first?.action == .failed)
        #expect(refused.results.first?.error?.contains("--as-meeting --yes") == true)
        let updateRefused = setup.run(
            try TicketFiles.items(
                text: cancellation.replacing("METHOD:CANCEL", with: "METHOD:REQUEST")
                    .replacing("STATUS:CANCELLED", with: "STATUS:CONFIRMED"), name: "update.ics",
                ImportSettings(onDuplicate: .update)))
        #expect(updateRefused.results.first?.action == .failed)
        #expect(setup.standIn.eventCount == 1)
        #expect(setup.standIn.sentCancellations.isEmpty)
        #expect(setup.standIn.sentInvitations.count == 3)

        let cancelled = setup.run(try TicketFiles.items(text: cancellation, name: "cancel.ics", meeting))
        #expect(cancelled.results.first?.action == .cancelled, "\(cancelled.results)")
        #expect(setup.standIn.eventCount == 0)
        #expect(setup.standIn.sentCancellations.count == 3)
    }

    @Test func aRefusedTokenStopsTheRunAndEveryEventIsReportedFailed() throws {
        let setup = try ImportSetup()
        setup.standIn.revokeAllTokens()
        let report = setup.run(try TicketFiles.items("concert.ics") + TicketFiles.items("train-ticket.ics"))
        let error = try #require(report.stoppedBy as? AuthError)
        #expect(error.code == .tokenRejected)
        #expect(report.results.map(\.action) == [.failed, .failed])
        #expect(report.results.allSatisfy { $0.error?.hasPrefix("not imported: ") == true })
        #expect(setup.standIn.eventCount == 0)
    }

    @Test func theVersionOfASourceOrdersBySequenceThenTimestamp() {
        let stored = ImportIdentity.version(sequence: 2, timestamp: "20261201T090000Z")
        #expect(stored == "2;20261201T090000Z")
        #expect(ImportIdentity.isNewer(sequence: 3, timestamp: "20200101T000000Z", than: stored))
        #expect(!ImportIdentity.isNewer(sequence: 1, timestamp: "20301201T090000Z", than: stored))
        #expect(ImportIdentity.isNewer(sequence: 2, timestamp: "20261201T090001Z", than: stored))
        #expect(!ImportIdentity.isNewer(sequence: 2, timestamp: "20261201T090000Z", than: stored))
        #expect(ImportIdentity.isNewer(sequence: nil, timestamp: nil, than: nil))
        #expect(ImportIdentity.version(sequence: nil, timestamp: nil) == "0;")
        // DTSTAMP as some files write it: lower case, padded.
        #expect(ImportIdentity.version(sequence: 1, timestamp: " 20261201t090000z ") == "1;20261201T090000Z")
        #expect(!ImportIdentity.isNewer(sequence: 2, timestamp: "20261201t090000z", than: stored))
    }

    @Test func eventsPlannedForOtherSettingsThanTheRunsAreNotImported() throws {
        let setup = try ImportSetup()
        let travel = ImportSettings(calendarID: "AAMkTravel=")
        let items =
            try TicketFiles.items("concert.ics") + TicketFiles.items("train-ticket.ics", travel)
            + TicketFiles.items("invitation-request.ics", ImportSettings(notifiesAttendees: true))
        let report = setup.run(items)
        #expect(report.results.map(\.action) == [.created, .failed, .failed], "\(report.results)")
        #expect(
            report.results[1].error
                == "planned for calendar AAMkTravel=, --on-duplicate skip, attendees not invited, but the run"
                + " imports for the default calendar, --on-duplicate skip, attendees not invited (the settings of"
                + " its first event); plan every file of one import with the same settings")
        #expect(report.results[2].error?.contains("attendees invited, but the run imports for") == true)
        #expect(setup.standIn.eventCount == 1)
        #expect(setup.standIn.sentInvitations.isEmpty)
    }
}
