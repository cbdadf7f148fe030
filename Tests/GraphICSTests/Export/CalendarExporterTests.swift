import Foundation
import GraphICS
import GraphStandIn
import ICalBridge
import TestSupport
import Testing

/// The stand-in with one Berlin mailbox and an exporter reading it over libcurl.
private struct ExportSetup {
    let standIn: GraphStandIn
    let exporter: CalendarExporter

    init() throws {
        let standIn = try GraphStandIn()
        standIn.addUser(
            displayName: "Ada Lovelace", mail: "ada@contoso.example", mailboxTimeZone: "W. Europe Standard Time")
        let url = try #require(URL(string: standIn.baseURL))
        let client = GraphClient(
            baseURL: url, transport: CurlTransport(defaultTimeout: .seconds(20)),
            tokens: StaticTokenSource(token: standIn.issueAccessToken()),
            retry: RetryPolicy(maxAttempts: 8, baseDelay: .milliseconds(20), maxDelay: .milliseconds(200)))
        self.standIn = standIn
        exporter = CalendarExporter(client: client)
    }

    /// The week of Monday 30 November 2026 in Berlin.
    static let weekStart = Date(timeIntervalSince1970: 1_795_993_200)
    static let weekEnd = Date(timeIntervalSince1970: 1_796_598_000)

    func request(_ recurrence: GraphToICS.RecurrenceStyle = .instances) -> CalendarExporter.Request {
        CalendarExporter.Request(
            start: Self.weekStart, end: Self.weekEnd, recurrence: recurrence,
            options: ExportOptions(fallbackZone: .iana("Europe/Berlin"), file: "calendarView"))
    }

    func export(_ request: CalendarExporter.Request) throws -> (text: String, summary: GraphToICS.Summary) {
        var buffer = ByteBuffer()
        let summary = try exporter.export(request, into: &buffer)
        return (String(decoding: buffer.bytes, as: UTF8.self), summary)
    }

    /// calendarView requests the stand-in answered (retries of throttled ones included).
    var calendarViewRequests: [GraphStandIn.RecordedRequest] {
        standIn.requests.filter { $0.path.lowercased().hasSuffix("/calendarview") }
    }
}

/// The VEVENTs of a calendar, each as its unfolded lines.
func vevents(_ text: String) -> [[String]] {
    var result: [[String]] = []
    var current: [String]?
    for line in text.replacing("\r\n ", with: "").split(separator: "\r\n").map(String.init) {
        if line == "BEGIN:VEVENT" {
            current = []
        } else if line == "END:VEVENT", let event = current {
            result.append(event)
            current = nil
        } else {
            current?.append(line)
        }
    }
    return result
}

/// The whole line of property `name` in an event.
func property(_ name: String, in event: [String]) -> String? {
    event.first { $0.hasPrefix(name + ":") || $0.hasPrefix(name + ";") }
}

/// The value of property `name`.
func value(_ name: String, in event: [String]) -> String? {
    property(name, in: event).flatMap { line in line.firstIndex(of: ":").map { String(line[line.index(after: $0)...]) }
    }
}

/// The instant a DTSTART/DTEND line names (UTC with `Z`, or local time with TZID).
func instant(_ line: String?) -> Date? {
    guard let line, let colon = line.firstIndex(of: ":") else { return nil }
    let head = line[..<colon]
    let text = Array(line[line.index(after: colon)...])
    var zone = TimeZone(identifier: "UTC")
    if let range = head.range(of: "TZID=") {
        zone = TimeZone(identifier: String(head[range.upperBound...].prefix { $0 != ";" }))
    }
    // YYYYMMDDTHHMMSS[Z]
    return wallClock(text, fields: [(0, 4), (4, 2), (6, 2), (9, 2), (11, 2), (13, 2)], in: zone)
}

/// Graph's `2026-12-01T08:00:00.0000000` read in UTC.
func graphUTC(_ text: String?) -> Date? {
    guard let text else { return nil }
    return wallClock(
        Array(text), fields: [(0, 4), (5, 2), (8, 2), (11, 2), (14, 2), (17, 2)], in: TimeZone(identifier: "UTC"))
}

/// Year, month, day, hour, minute and second at the given (offset, length) of `text`, as wall-clock time
/// in `zone`.
private func wallClock(_ text: [Character], fields: [(Int, Int)], in zone: TimeZone?) -> Date? {
    let numbers = fields.compactMap { offset, length in
        offset + length <= text.count ? Int(String(text[offset..<(offset + length)])) : nil
    }
    guard numbers.count == 6, let zone else { return nil }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = zone
    return calendar.date(
        from: DateComponents(
            year: numbers[0], month: numbers[1], day: numbers[2], hour: numbers[3], minute: numbers[4],
            second: numbers[5]))
}

@Suite(.tags(.zoneRules)) struct CalendarExporterTests {
    @Test func twelveHundredEventsOfAWeekComeExactlyInTwoPagesDespiteThrottling() throws {
        let setup = try ExportSetup()
        let seeded = try setup.standIn.addEvents(
            count: 1200, from: ExportSetup.weekStart, to: ExportSetup.weekEnd.addingTimeInterval(-3600))
        // Outside the week: must not appear.
        try setup.standIn.addEvents(
            count: 3, from: ExportSetup.weekEnd, to: ExportSetup.weekEnd.addingTimeInterval(86_400), subject: "Next")
        setup.standIn.latency = .milliseconds(5)
        setup.standIn.throttleEvery = 2
        setup.standIn.retryAfter = .milliseconds(50)

        var reported: [CalendarExporter.Progress] = []
        var buffer = ByteBuffer()
        let summary = try setup.exporter.export(setup.request(), into: &buffer) { reported.append($0) }
        let text = String(decoding: buffer.bytes, as: UTF8.self)

        #expect(summary.diagnostics.isEmpty)
        #expect(summary.inputEvents == 1200 && summary.written == 1200)
        let events = vevents(text)
        #expect(events.count == 1200)
        var expected: [String: (Date?, Date?)] = [:]
        for event in setup.standIn.events() {
            guard let id = event["id"] as? String else { continue }
            let start = (event["start"] as? [String: Any])?["dateTime"] as? String
            let end = (event["end"] as? [String: Any])?["dateTime"] as? String
            expected[id] = (graphUTC(start), graphUTC(end))
        }
        var ids: Set<String> = []
        for event in events {
            let id = try #require(value("X-GRAPH-ICS-EVENT-ID", in: event))
            ids.insert(id)
            let (start, end) = try #require(expected[id])
            #expect(instant(property("DTSTART", in: event)) == start, "\(id)")
            #expect(instant(property("DTEND", in: event)) == end, "\(id)")
        }
        #expect(ids == Set(seeded))
        #expect(setup.standIn.throttledCount > 0)
        #expect(setup.standIn.retryAfterViolations == 0)
        // Two pages of Graph's 1000, each asked again after its 429.
        let pages = setup.calendarViewRequests
        #expect(Set(pages.map(\.target)).count == 2)
        #expect(reported.contains { $0.pages == 2 })
        #expect(reported.last == CalendarExporter.Progress(pages: 2, events: 1200))
    }

    /// Seeds the weekday standup (09:00 Berlin since 2 November, Monday to Friday) with the occurrences of
    /// the week: Wednesday deleted, Thursday moved to 15:00, Friday's moved to Monday 07:00 (next week).
    private func seedStandup(_ standIn: GraphStandIn, masterID: String = "standup") throws {
        let uid = "040000008200E00074C5B7101A82E00800000000STANDUP"
        func when(_ utc: String) -> [String: Any] { ["dateTime": utc, "timeZone": "UTC"] }
        try standIn.addEvent([
            "id": masterID, "iCalUId": uid, "type": "seriesMaster", "subject": "Standup",
            "start": when("2026-11-02T08:00:00"), "end": when("2026-11-02T08:15:00"),
            "originalStartTimeZone": "W. Europe Standard Time", "originalEndTimeZone": "W. Europe Standard Time",
            "recurrence": [
                "pattern": [
                    "type": "weekly", "interval": 1, "firstDayOfWeek": "monday",
                    "daysOfWeek": ["monday", "tuesday", "wednesday", "thursday", "friday"],
                ],
                "range": ["type": "noEnd", "startDate": "2026-11-02", "recurrenceTimeZone": "W. Europe Standard Time"],
            ] as [String: Any],
        ])
        func instance(_ day: String, type: String, start: String, end: String, subject: String) throws {
            try standIn.addEvent([
                "id": "\(type)-\(day)", "iCalUId": uid, "type": type, "seriesMasterId": "standup",
                "subject": subject, "originalStart": "\(day)T08:00:00Z", "start": when(start), "end": when(end),
                "originalStartTimeZone": "W. Europe Standard Time", "originalEndTimeZone": "W. Europe Standard Time",
            ])
        }
        for day in ["2026-11-23", "2026-11-30", "2026-12-01", "2026-12-07"] {
            try instance(day, type: "occurrence", start: "\(day)T08:00:00", end: "\(day)T08:15:00", subject: "Standup")
        }
        try instance(
            "2026-12-03", type: "exception", start: "2026-12-03T14:00:00", end: "2026-12-03T14:15:00",
            subject: "Standup (late)")
        // Before Monday's occurrence, so between its neighbours as Exchange requires, but after the week.
        try instance(
            "2026-12-04", type: "exception", start: "2026-12-07T06:00:00", end: "2026-12-07T06:15:00",
            subject: "Standup (Friday's, on Monday)")
    }

    @Test func seriesModeWritesEachSeriesOnceWithRRuleExdateAndOverrides() throws {
        let setup = try ExportSetup()
        try seedStandup(setup.standIn)
        try setup.standIn.addEvents(
            count: 2, from: ExportSetup.weekStart.addingTimeInterval(3 * 3600),
            to: ExportSetup.weekStart.addingTimeInterval(86_400), subject: "Single")
        setup.standIn.latency = .milliseconds(5)
        setup.standIn.throttleEvery = 3
        setup.standIn.retryAfter = .milliseconds(50)

        let (text, summary) = try setup.export(setup.request(.series))
        #expect(summary.diagnostics.isEmpty, "\(summary.diagnostics)")
        let events = vevents(text)
        let masters = events.filter { property("RRULE", in: $0) != nil }
        #expect(masters.count == 1)
        let master = try #require(masters.first)
        #expect(value("RRULE", in: master) == "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;WKST=MO")
        #expect(property("DTSTART", in: master) == "DTSTART;TZID=Europe/Berlin:20261102T090000")
        #expect(master.filter { $0.hasPrefix("EXDATE") } == ["EXDATE;TZID=Europe/Berlin:20261202T090000"])
        let overrides = events.filter { property("RECURRENCE-ID", in: $0) != nil }
        #expect(
            overrides.compactMap { property("RECURRENCE-ID", in: $0) } == [
                "RECURRENCE-ID;TZID=Europe/Berlin:20261203T090000",
                "RECURRENCE-ID;TZID=Europe/Berlin:20261204T090000",
            ])
        #expect(
            overrides.compactMap { property("DTSTART", in: $0) } == [
                "DTSTART;TZID=Europe/Berlin:20261203T150000", "DTSTART;TZID=Europe/Berlin:20261207T070000",
            ])
        #expect(overrides.allSatisfy { value("UID", in: $0) == value("UID", in: master) })
        #expect(events.filter { value("SUMMARY", in: $0)?.hasPrefix("Single") == true }.count == 2)
        #expect(events.count == 5)
        // One master read, one instances look-up (for the missing Wednesday).
        let paths = setup.standIn.requests.map { $0.path.lowercased() }
        #expect(paths.filter { $0.hasSuffix("/events/standup") }.count >= 1)
        #expect(
            Set(setup.standIn.requests.filter { $0.path.lowercased().hasSuffix("/instances") }.map(\.target)).count == 1
        )
    }

    @Test func seriesModeOverSevenYearsAsksForInstancesInWindowsGraphAccepts() throws {
        let setup = try ExportSetup()
        for event in StandInSeeds.sevenYearSeriesWithThreeOccurrences() { try setup.standIn.addEvent(event) }
        let request = CalendarExporter.Request(
            start: Date(timeIntervalSince1970: 1_577_836_800), end: Date(timeIntervalSince1970: 1_798_761_600),
            recurrence: .series, options: ExportOptions(fallbackZone: .utc, file: "calendarView"))
        let (text, summary) = try setup.export(request)

        #expect(summary.diagnostics.isEmpty, "\(summary.diagnostics)")
        let master = try #require(vevents(text).first { property("RRULE", in: $0) != nil })
        #expect(
            master.filter { $0.hasPrefix("EXDATE") }.sorted() == [
                "EXDATE:20200110T080000Z", "EXDATE:20210110T080000Z", "EXDATE:20250110T080000Z",
                "EXDATE:20260110T080000Z",
            ])
        let lookups = setup.standIn.requests.filter { $0.path.lowercased().hasSuffix("/instances") }
        #expect(lookups.count == 2)
        #expect(lookups.allSatisfy { $0.status == 200 })
    }

    @Test func aSeriesWhoseMasterIsGoneIsExportedAsInstancesWithAWarning() throws {
        let setup = try ExportSetup()
        try seedStandup(setup.standIn, masterID: "standup-elsewhere")
        let (text, summary) = try setup.export(setup.request(.series))
        #expect(summary.diagnostics.count == 1)
        #expect(summary.diagnostics.first?.severity == .warning)
        #expect(summary.diagnostics.first?.eventID == "standup")
        let uids = vevents(text).compactMap { value("UID", in: $0) }
        #expect(uids.count == 3)
        #expect(Set(uids).count == 3)
        #expect(uids.allSatisfy { $0.hasPrefix("040000008200E00074C5B7101A82E00800000000STANDUP-2026") })
    }

    @Test func aRevokedTokenFailsTheExportBeforeAnythingIsWritten() throws {
        let setup = try ExportSetup()
        try setup.standIn.addEvents(count: 5, from: ExportSetup.weekStart, to: ExportSetup.weekEnd)
        setup.standIn.revokeAllTokens()
        var buffer = ByteBuffer()
        let error = #expect(throws: AuthError.self) {
            _ = try setup.exporter.export(setup.request(), into: &buffer)
        }
        #expect(error?.code == .tokenRejected)
        #expect(buffer.bytes.isEmpty)
    }
}
