import Foundation
import Testing

@testable import ICalBridge

/// Graph JSON for the page-stream tests, built the way calendarView returns it (times in UTC).
private enum Pages {
    static let berlin = "W. Europe Standard Time"
    static let seriesUID = "040000008200E00074C5B7101A82E00800000000STANDUP"

    /// A calendarView page of `events`.
    static func page(_ events: [[String: Any]]) throws -> Data {
        try JSONSerialization.data(withJSONObject: ["value": events], options: [.sortedKeys])
    }

    static func when(_ utc: String) -> [String: Any] {
        ["dateTime": utc + ".0000000", "timeZone": "UTC"]
    }

    static func single(_ id: String, subject: String, start: String, end: String) -> [String: Any] {
        [
            "id": id, "iCalUId": "UID-\(id)", "type": "singleInstance", "subject": subject, "start": when(start),
            "end": when(end), "originalStartTimeZone": berlin, "originalEndTimeZone": berlin,
        ]
    }

    /// The weekday standup at 09:00 Berlin (08:00 UTC in winter), from Monday 2 November 2026 to the end
    /// of the year.
    static var master: [String: Any] {
        [
            "id": "master-standup", "iCalUId": seriesUID, "type": "seriesMaster", "subject": "Standup",
            "start": when("2026-11-02T08:00:00"), "end": when("2026-11-02T08:15:00"),
            "originalStartTimeZone": berlin, "originalEndTimeZone": berlin,
            "recurrence": [
                "pattern": [
                    "type": "weekly", "interval": 1, "firstDayOfWeek": "monday",
                    "daysOfWeek": ["monday", "tuesday", "wednesday", "thursday", "friday"],
                ],
                "range": [
                    "type": "endDate", "startDate": "2026-11-02", "endDate": "2026-12-31", "recurrenceTimeZone": berlin,
                ],
            ] as [String: Any],
        ]
    }

    /// An occurrence of the standup on `day` (`2026-11-30`), as calendarView returns it: the series' UID.
    static func occurrence(_ day: String) -> [String: Any] {
        [
            "id": "occ-\(day)", "iCalUId": seriesUID, "type": "occurrence", "seriesMasterId": "master-standup",
            "subject": "Standup", "originalStart": "\(day)T08:00:00Z", "start": when("\(day)T08:00:00"),
            "end": when("\(day)T08:15:00"), "originalStartTimeZone": berlin, "originalEndTimeZone": berlin,
        ]
    }

    /// The standup of `day` moved to `start`–`end` (UTC), as an exception.
    static func exception(_ day: String, start: String, end: String, subject: String = "Standup (moved)")
        -> [String: Any]
    {
        [
            "id": "exc-\(day)", "iCalUId": seriesUID, "type": "exception", "seriesMasterId": "master-standup",
            "subject": subject, "originalStart": "\(day)T08:00:00Z", "start": when(start), "end": when(end),
            "originalStartTimeZone": berlin, "originalEndTimeZone": berlin,
        ]
    }

    /// Monday 30 November to Monday 7 December 2026, midnight in Berlin.
    static let week: Range<Int64> = 1_795_993_200..<1_796_598_000

    static var berlinZone: ResolvedZone? { ResolvedZone.iana("Europe/Berlin") }

    static func options(file: String = "pages.json") -> ExportOptions {
        ExportOptions(fallbackZone: berlinZone, timestamp: 1_796_083_200, file: file)
    }

    /// Runs `pages` through a stream and returns the calendar text and summary.
    static func stream(
        _ pages: [Data],
        recurrence: GraphToICS.RecurrenceStyle = .instances,
        range: Range<Int64>? = week,
        series: (GraphToICS.PageStream) throws -> Void = { _ in }
    ) throws -> (text: String, summary: GraphToICS.Summary) {
        let stream = try GraphToICS.PageStream(options: options(), recurrence: recurrence, range: range)
        for page in pages { try stream.add(page: page) }
        try series(stream)
        var buffer = ByteBuffer()
        let summary = try stream.finish(into: &buffer)
        return (String(decoding: buffer.bytes, as: UTF8.self), summary)
    }
}

@Suite struct PageStreamTests {
    // MARK: Same calendar as convert

    @Test("events fed page by page give byte for byte the calendar convert makes of them at once")
    func pagesEqualOneConvert() throws {
        var events: [[String: Any]] = []
        for name in ["sample-week", "all-day", "attendees", "dst-fold", "flight-two-zones", "html-body", "series"] {
            let object = try JSONSerialization.jsonObject(with: Fixtures.data("graph/\(name).json"))
            let document = try #require(object as? [String: Any])
            events += try #require(document["value"] as? [[String: Any]])
        }
        // One broken event, so that diagnostics are compared too.
        events.insert(["id": "broken", "subject": "Broken", "isAllDay": "yes"], at: 3)
        for day in ["2026-11-30", "2026-12-01"] { events.append(Pages.occurrence(day)) }
        #expect(events.count > 20)

        var whole = ByteBuffer()
        let convertSummary = try GraphToICS.convert(Pages.page(events), options: Pages.options(), into: &whole)

        let stream = try GraphToICS.PageStream(options: Pages.options())
        var pageCount = 0
        for start in stride(from: 0, to: events.count, by: 7) {
            try stream.add(page: Pages.page(Array(events[start..<min(start + 7, events.count)])))
            pageCount += 1
        }
        var paged = ByteBuffer()
        let summary = try stream.finish(into: &paged)

        #expect(pageCount >= 3)
        #expect(stream.progress.pages == pageCount)
        #expect(stream.progress.events == events.count)
        #expect(paged.bytes == whole.bytes)
        #expect(summary.inputEvents == events.count)
        #expect(summary.written == convertSummary.written)
        #expect(summary.written == events.count - 1)
        #expect(summary.diagnostics == convertSummary.diagnostics)
        #expect(summary.diagnostics.contains { $0.severity == .error && $0.eventID == "broken" })

        let parsed = try #require(ICalComponent.parse(bytes: paged.bytes))
        #expect(parsed.parserErrors.isEmpty, "\(parsed.parserErrors)")
        #expect(parsed.events.count == events.count - 1)
    }

    @Test("a page that is not Graph JSON fails the stream, naming the file; no calendar is written")
    func badPageThrows() throws {
        let stream = try GraphToICS.PageStream(options: Pages.options(file: "calendarView"))
        try stream.add(
            page: Pages.page([Pages.single("a", subject: "A", start: "2026-12-01T08:00:00", end: "2026-12-01T09:00:00")]
            ))
        try stream.add(page: Data("<html>busy</html>".utf8))
        var buffer = ByteBuffer()
        let error = #expect(throws: ICalBridgeError.self) { try stream.finish(into: &buffer) }
        #expect(error?.code == .badInput)
        #expect(error?.description.hasPrefix("calendarView") == true)
        #expect(buffer.bytes.isEmpty)
        #expect(throws: ICalBridgeError.self) { try stream.add(page: Pages.page([])) }
    }

    @Test("when every event fails, nothing is written")
    func allFailedWritesNothing() throws {
        let (text, summary) = try Pages.stream([Pages.page([["id": "x", "subject": "No start"]])])
        #expect(text.isEmpty)
        #expect(!summary.wroteCalendar)
        #expect(summary.diagnostics.first?.eventID == "x")
    }

    // MARK: Instances

    @Test("instances: every occurrence and exception gets a UID of its own, the same on every export")
    func instanceUIDs() throws {
        let page = try Pages.page([
            Pages.occurrence("2026-11-30"), Pages.occurrence("2026-12-01"),
            Pages.exception("2026-12-02", start: "2026-12-02T13:00:00", end: "2026-12-02T13:30:00"),
            Pages.single("solo", subject: "Lunch", start: "2026-12-02T11:00:00", end: "2026-12-02T12:00:00"),
        ])
        let first = try Pages.stream([page])
        let second = try Pages.stream([page])
        let uids = Fixtures.events(first.text).compactMap { Fixtures.value("UID", in: $0) }
        #expect(
            uids == [
                Pages.seriesUID + "-20261130T080000Z", Pages.seriesUID + "-20261201T080000Z", "UID-solo",
                Pages.seriesUID + "-20261202T080000Z",
            ])
        #expect(Set(uids).count == uids.count)
        #expect(first.text == second.text)
        #expect(
            Fixtures.events(first.text).allSatisfy {
                Fixtures.line("RECURRENCE-ID", in: $0) == nil && Fixtures.line("RRULE", in: $0) == nil
            })
    }

    // MARK: Series

    @Test("series: one master with RRULE and an EXDATE for the deleted day, an override for the moved one")
    func seriesMasterExdateOverride() throws {
        // Wednesday 2 December is deleted; Friday 4 December moved to 15:00 Berlin.
        let page = try Pages.page([
            Pages.occurrence("2026-11-30"), Pages.occurrence("2026-12-01"), Pages.occurrence("2026-12-03"),
            Pages.exception("2026-12-04", start: "2026-12-04T14:00:00", end: "2026-12-04T14:30:00"),
            Pages.single("solo", subject: "Lunch", start: "2026-12-02T11:00:00", end: "2026-12-02T12:00:00"),
        ])
        var windows: [(Int64, Int64)] = []
        let (text, summary) = try Pages.stream([page], recurrence: .series) { stream in
            #expect(try stream.seriesAwaitingMaster() == ["master-standup"])
            try stream.addSeries(id: "master-standup", master: JSONSerialization.data(withJSONObject: Pages.master)) {
                start, end, onPage in
                windows.append((start, end))
                try onPage(Pages.page([]))
            }
            #expect(try stream.seriesAwaitingMaster().isEmpty)
        }
        #expect(summary.diagnostics.isEmpty, "\(summary.diagnostics)")
        let events = Fixtures.events(text)
        #expect(events.count == 3)
        let master = try #require(events.first { Fixtures.line("RRULE", in: $0) != nil })
        #expect(Fixtures.value("UID", in: master) == Pages.seriesUID)
        #expect(Fixtures.line("DTSTART", in: master) == "DTSTART;TZID=Europe/Berlin:20261102T090000")
        #expect(
            Fixtures.value("RRULE", in: master)
                == "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;WKST=MO;UNTIL=20261231T225959Z")
        #expect(master.filter { $0.hasPrefix("EXDATE") } == ["EXDATE;TZID=Europe/Berlin:20261202T090000"])
        let override = try #require(events.first { Fixtures.line("RECURRENCE-ID", in: $0) != nil })
        #expect(Fixtures.value("UID", in: override) == Pages.seriesUID)
        #expect(Fixtures.line("RECURRENCE-ID", in: override) == "RECURRENCE-ID;TZID=Europe/Berlin:20261204T090000")
        #expect(Fixtures.line("DTSTART", in: override) == "DTSTART;TZID=Europe/Berlin:20261204T150000")
        #expect(Fixtures.value("SUMMARY", in: override) == "Standup (moved)")
        #expect(events.contains { Fixtures.value("UID", in: $0) == "UID-solo" })
        // The look-up window reaches from two occurrences before the missing Wednesday to two after.
        #expect(windows.count == 1)
        #expect(windows.first?.0 == 1_796_025_600)  // Monday 30 November 09:00 Berlin
        #expect(windows.first?.1 == 1_796_372_100)  // Friday 4 December 09:15 Berlin

        // libical reads it without complaint, and graph-ics' own import reads back the same series.
        let parsed = try #require(ICalComponent.parse(text))
        #expect(parsed.parserErrors.isEmpty, "\(parsed.parserErrors)")
        let plan = try ICSToGraph.plan(Data(text.utf8), options: ImportOptions(file: "export.ics"))
        let series = try #require(plan.events.first { $0.payload.recurrence != nil })
        #expect(series.sourceUID == Pages.seriesUID)
        #expect(series.followUps.contains(.cancelOccurrence(originalStart: "2026-12-02T08:00:00Z")))
        #expect(
            series.followUps.contains {
                if case .patchOccurrence(let original, let changes) = $0 {
                    return original == "2026-12-04T08:00:00Z" && changes.subject == "Standup (moved)"
                }
                return false
            })
    }

    @Test("series: an occurrence moved out of the range is an override found by the look-up, not an EXDATE")
    func movedOutOfRangeIsOverride() throws {
        let page = try Pages.page([
            Pages.occurrence("2026-11-30"), Pages.occurrence("2026-12-01"), Pages.occurrence("2026-12-03"),
            Pages.occurrence("2026-12-04"),
        ])
        let moved = Pages.exception("2026-12-02", start: "2026-12-07T16:00:00", end: "2026-12-07T16:30:00")
        let (text, summary) = try Pages.stream([page], recurrence: .series) { stream in
            try stream.addSeries(id: "master-standup", master: JSONSerialization.data(withJSONObject: Pages.master)) {
                _, _, onPage in
                try onPage(Pages.page([Pages.occurrence("2026-12-01"), moved, Pages.occurrence("2026-12-03")]))
            }
        }
        #expect(summary.diagnostics.isEmpty, "\(summary.diagnostics)")
        #expect(!text.contains("EXDATE"))
        let events = Fixtures.events(text)
        #expect(events.count == 2)
        let override = try #require(events.first { Fixtures.line("RECURRENCE-ID", in: $0) != nil })
        #expect(Fixtures.line("RECURRENCE-ID", in: override) == "RECURRENCE-ID;TZID=Europe/Berlin:20261202T090000")
        #expect(Fixtures.line("DTSTART", in: override) == "DTSTART;TZID=Europe/Berlin:20261207T170000")
    }

    @Test("series: without a look-up the missing occurrence is an EXDATE; a master in the pages needs no fetch")
    func masterInPages() throws {
        let page = try Pages.page([
            Pages.master, Pages.occurrence("2026-11-30"), Pages.occurrence("2026-12-01"),
            Pages.occurrence("2026-12-02"), Pages.occurrence("2026-12-04"),
        ])
        let (text, summary) = try Pages.stream([page], recurrence: .series) { stream in
            let awaiting = try stream.seriesAwaitingMaster()
            #expect(awaiting.isEmpty)
        }
        #expect(summary.diagnostics.isEmpty, "\(summary.diagnostics)")
        let events = Fixtures.events(text)
        #expect(events.count == 1)
        #expect(events[0].filter { $0.hasPrefix("EXDATE") } == ["EXDATE;TZID=Europe/Berlin:20261203T090000"])
    }

    @Test("series: occurrences Graph returns as cancelled become EXDATEs, not overrides")
    func cancelledOccurrencesAreExdates() throws {
        var cancelledOccurrence = Pages.occurrence("2026-12-01")
        cancelledOccurrence["isCancelled"] = true
        var cancelledException = Pages.exception("2026-12-03", start: "2026-12-03T10:00:00", end: "2026-12-03T10:15:00")
        cancelledException["isCancelled"] = true
        let page = try Pages.page([
            Pages.occurrence("2026-11-30"), cancelledOccurrence, Pages.occurrence("2026-12-02"), cancelledException,
            Pages.occurrence("2026-12-04"),
        ])
        let (text, summary) = try Pages.stream([page], recurrence: .series) { stream in
            try stream.addSeries(
                id: "master-standup", master: JSONSerialization.data(withJSONObject: Pages.master), instances: nil)
        }
        #expect(summary.diagnostics.isEmpty, "\(summary.diagnostics)")
        let events = Fixtures.events(text)
        #expect(events.count == 1)
        #expect(
            events.first?.filter { $0.hasPrefix("EXDATE") } == [
                "EXDATE;TZID=Europe/Berlin:20261201T090000", "EXDATE;TZID=Europe/Berlin:20261203T090000",
            ])
    }

    @Test("series: without its master the series is written as instances, with a warning naming it")
    func missingMasterFallsBack() throws {
        let page = try Pages.page([
            Pages.occurrence("2026-11-30"), Pages.occurrence("2026-12-01"),
            Pages.exception("2026-12-02", start: "2026-12-02T13:00:00", end: "2026-12-02T13:30:00"),
        ])
        let (text, summary) = try Pages.stream([page], recurrence: .series) { stream in
            try stream.addSeries(id: "master-standup", master: nil, instances: nil)
        }
        let warning = try #require(summary.diagnostics.first)
        #expect(warning.severity == .warning)
        #expect(warning.eventID == "master-standup")
        #expect(warning.message.contains("single occurrences"))
        let uids = Fixtures.events(text).compactMap { Fixtures.value("UID", in: $0) }
        #expect(
            uids == [
                Pages.seriesUID + "-20261130T080000Z", Pages.seriesUID + "-20261201T080000Z",
                Pages.seriesUID + "-20261202T080000Z",
            ])
        #expect(summary.written == 3)
    }

    @Test("series: an occurrence the pattern does not produce makes the series fall back rather than lose it")
    func strayOccurrenceFallsBack() throws {
        var stray = Pages.occurrence("2026-12-05")  // a Saturday: not a weekday of the pattern
        stray["id"] = "occ-saturday"
        let page = try Pages.page([Pages.occurrence("2026-11-30"), stray])
        let (text, summary) = try Pages.stream([page], recurrence: .series) { stream in
            try stream.addSeries(
                id: "master-standup", master: JSONSerialization.data(withJSONObject: Pages.master), instances: nil)
        }
        #expect(summary.diagnostics.count == 1)
        #expect(summary.diagnostics.first?.message.contains("20261205T080000Z") == true)
        let events = Fixtures.events(text)
        #expect(events.count == 2)
        #expect(events.allSatisfy { Fixtures.line("RRULE", in: $0) == nil })
    }

    @Test("series: an all-day series gets DATE EXDATE and RECURRENCE-ID values")
    func allDaySeries() throws {
        var master = Pages.master
        master["isAllDay"] = true
        master["start"] = Pages.when("2026-11-02T00:00:00")
        master["end"] = Pages.when("2026-11-03T00:00:00")
        func day(_ date: String, until end: String, type: String = "occurrence") -> [String: Any] {
            var event = Pages.occurrence(date)
            event["isAllDay"] = true
            event["type"] = type
            event["id"] = "\(type)-\(date)"
            event["originalStart"] = "\(date)T00:00:00Z"
            event["start"] = Pages.when("\(date)T00:00:00")
            event["end"] = Pages.when("\(end)T00:00:00")
            return event
        }
        // Tuesday's day became two days; Wednesday's was deleted.
        let page = try Pages.page([
            day("2026-11-30", until: "2026-12-01"), day("2026-12-01", until: "2026-12-03", type: "exception"),
            day("2026-12-03", until: "2026-12-04"), day("2026-12-04", until: "2026-12-05"),
        ])
        let (text, summary) = try Pages.stream([page], recurrence: .series) { stream in
            try stream.addSeries(
                id: "master-standup", master: JSONSerialization.data(withJSONObject: master), instances: nil)
        }
        #expect(summary.diagnostics.allSatisfy { $0.severity == .warning }, "\(summary.diagnostics)")
        let events = Fixtures.events(text)
        let masterEvent = try #require(events.first { Fixtures.line("RRULE", in: $0) != nil })
        #expect(masterEvent.filter { $0.hasPrefix("EXDATE") } == ["EXDATE;VALUE=DATE:20261202"])
        let override = try #require(events.first { Fixtures.line("RECURRENCE-ID", in: $0) != nil })
        #expect(Fixtures.line("RECURRENCE-ID", in: override) == "RECURRENCE-ID;VALUE=DATE:20261201")
        #expect(Fixtures.line("DTEND", in: override) == "DTEND;VALUE=DATE:20261203")
    }

    @Test("pages of several calendars: each VEVENT names its calendar; an event a later calendar holds too is left out")
    func severalCalendars() throws {
        let stream = try GraphToICS.PageStream(options: Pages.options(file: "calendarView"))
        let mine = Pages.single("a", subject: "Mine", start: "2026-12-01T08:00:00", end: "2026-12-01T09:00:00")
        var meeting = Pages.single("b", subject: "Meeting", start: "2026-12-01T10:00:00", end: "2026-12-01T11:00:00")
        try stream.add(page: Pages.page([mine, meeting]), calendar: "Calendar")
        // The same meeting in the shared calendar: another id, the same iCalUId and start.
        meeting["id"] = "b-in-team"
        let team = Pages.single("c", subject: "Team; only", start: "2026-12-01T12:00:00", end: "2026-12-01T13:00:00")
        try stream.add(page: Pages.page([meeting, team]), calendar: "Team, Munich")
        var buffer = ByteBuffer()
        let summary = try stream.finish(into: &buffer)
        let text = String(decoding: buffer.bytes, as: UTF8.self)
        #expect(summary.written == 3)
        let calendars = text.components(separatedBy: "\r\n").filter { $0.hasPrefix("X-GRAPH-ICS-CALENDAR:") }
        #expect(
            calendars == [
                "X-GRAPH-ICS-CALENDAR:Calendar", "X-GRAPH-ICS-CALENDAR:Calendar", "X-GRAPH-ICS-CALENDAR:Team\\, Munich",
            ])
        #expect(!text.contains("b-in-team"))
    }

    @Test("a page without a calendar writes no X-GRAPH-ICS-CALENDAR and leaves repeated UIDs as they are")
    func oneCalendar() throws {
        let stream = try GraphToICS.PageStream(options: Pages.options(file: "calendarView"))
        var event = Pages.single("a", subject: "A", start: "2026-12-01T08:00:00", end: "2026-12-01T09:00:00")
        try stream.add(page: Pages.page([event]))
        event["id"] = "a2"
        try stream.add(page: Pages.page([event]))
        var buffer = ByteBuffer()
        let summary = try stream.finish(into: &buffer)
        #expect(summary.written == 2)
        #expect(!String(decoding: buffer.bytes, as: UTF8.self).contains("X-GRAPH-ICS-CALENDAR"))
    }
}
