import Foundation
import Testing

@testable import ICalBridge

/// Graph JSON for the selection tests: one event with every property graph-ics writes.
private enum Rich {
    static let berlin = "W. Europe Standard Time"
    static let seriesUID = "040000008200E00074C5B7101A82E00800000000WEEKLY"
    /// Texts that only `full` may show, searched for in the whole output.
    static let secrets = [
        "Quarterly numbers", "Budget draft attached", "ann@contoso.com", "Ann Organizer", "bo@contoso.com",
        "teams.microsoft.com", "Finance", "AAMkID-", "outlook.office365.com",
    ]

    static func when(_ utc: String) -> [String: Any] {
        ["dateTime": utc + ".0000000", "timeZone": "UTC"]
    }

    /// A meeting on Wednesday 2 December 2026, 10:00–11:00 UTC, with every property graph-ics exports.
    static func event(
        id: String = "AAMkRICH", showAs: String = "busy", sensitivity: String = "normal",
        changes: [String: Any] = [:]
    ) -> [String: Any] {
        var event: [String: Any] = [
            "id": "AAMkID-" + id, "iCalUId": "UID-\(id)", "type": "singleInstance", "subject": "Quarterly numbers",
            "body": ["contentType": "text", "content": "Budget draft attached"],
            "bodyPreview": "Budget draft attached", "start": when("2026-12-02T10:00:00"),
            "end": when("2026-12-02T11:00:00"), "originalStartTimeZone": berlin, "originalEndTimeZone": berlin,
            "location": [
                "displayName": "Room 4.12",
                "address": ["street": "Karl-Liebknecht-Straße 13", "city": "Berlin"],
                "coordinates": ["latitude": 52.5219, "longitude": 13.4132],
            ] as [String: Any],
            "organizer": ["emailAddress": ["name": "Ann Organizer", "address": "ann@contoso.com"]],
            "attendees": [
                [
                    "type": "required", "status": ["response": "accepted"],
                    "emailAddress": ["name": "Bo", "address": "bo@contoso.com"],
                ] as [String: Any]
            ],
            "isOnlineMeeting": true, "onlineMeetingProvider": "teamsForBusiness",
            "onlineMeeting": ["joinUrl": "https://teams.microsoft.com/l/meetup-join/42"],
            "categories": ["Finance"], "importance": "high", "sensitivity": sensitivity, "showAs": showAs,
            "isReminderOn": true, "reminderMinutesBeforeStart": 15,
            "webLink": "https://outlook.office365.com/owa/?itemid=AAMkID-\(id)",
            "createdDateTime": "2026-11-01T10:00:00Z", "lastModifiedDateTime": "2026-11-02T08:15:42Z",
            "responseStatus": ["response": "accepted"], "isCancelled": false,
        ]
        event.merge(changes) { _, new in new }
        return event
    }

    static func page(_ events: [[String: Any]]) throws -> Data {
        try JSONSerialization.data(withJSONObject: ["value": events], options: [.sortedKeys])
    }

    /// The calendar `events` become under `selection`.
    static func export(
        _ events: [[String: Any]], _ selection: EventSelection, recurrence: GraphToICS.RecurrenceStyle = .instances,
        master: [String: Any]? = nil
    ) throws -> (text: String, summary: GraphToICS.Summary) {
        let options = ExportOptions(
            fallbackZone: .iana("Europe/Berlin"), timestamp: 1_796_083_200, file: "selection.json",
            selection: selection)
        // Monday 30 November 2026 to Monday 4 January 2027, midnight in Berlin.
        let range: Range<Int64> = 1_795_993_200..<1_799_017_200
        let stream = try GraphToICS.PageStream(options: options, recurrence: recurrence, range: range)
        try stream.add(page: page(events))
        if let master, let id = master["id"] as? String {
            try stream.addSeries(id: id, master: JSONSerialization.data(withJSONObject: master), instances: nil)
        }
        var buffer = ByteBuffer()
        let summary = try stream.finish(into: &buffer)
        let text = String(decoding: buffer.bytes, as: UTF8.self)
        let parsed = try #require(ICalComponent.parse(text))
        #expect(parsed.parserErrors.isEmpty, "\(parsed.parserErrors)")
        return (text, summary)
    }

    /// The property names of a VEVENT's lines (outside its VALARM), in order.
    static func names(_ event: [String]) -> [String] {
        var names: [String] = []
        var inAlarm = false
        for line in event {
            if line == "BEGIN:VALARM" { inAlarm = true }
            if !inAlarm { names.append(String(line.prefix { $0 != ":" && $0 != ";" })) }
            if line == "END:VALARM" { inAlarm = false }
        }
        return names
    }

    /// A weekly series on Wednesdays 10:00 UTC in December 2026, its master private or not.
    static func master(sensitivity: String = "normal", showAs: String = "busy") -> [String: Any] {
        event(
            id: "master-weekly", showAs: showAs, sensitivity: sensitivity,
            changes: [
                "iCalUId": seriesUID, "type": "seriesMaster",
                "recurrence": [
                    "pattern": [
                        "type": "weekly", "interval": 1, "firstDayOfWeek": "monday", "daysOfWeek": ["wednesday"],
                    ],
                    "range": ["type": "endDate", "startDate": "2026-12-02", "endDate": "2026-12-31"],
                ] as [String: Any],
            ])
    }

    /// The series' occurrence (or, given a start, exception) of `day`.
    static func instance(
        _ day: String, start: String? = nil, showAs: String = "busy", sensitivity: String = "normal",
        subject: String = "Quarterly numbers"
    ) -> [String: Any] {
        let begin = start ?? "\(day)T10:00:00"
        // An exception starts at 14:00 and lasts an hour, an occurrence 10:00–11:00.
        let end = start == nil ? "\(day)T11:00:00" : "\(day)T15:00:00"
        return event(
            id: "\(start == nil ? "occ" : "exc")-\(day)", showAs: showAs, sensitivity: sensitivity,
            changes: [
                "iCalUId": seriesUID, "type": start == nil ? "occurrence" : "exception",
                "seriesMasterId": "AAMkID-master-weekly", "originalStart": "\(day)T10:00:00Z", "start": when(begin),
                "end": when(end), "subject": subject,
            ])
    }
}

@Suite struct EventSelectionTests {
    // MARK: Detail levels

    @Test("full with no filter writes the bytes export wrote before selections existed")
    func fullIsUnchanged() throws {
        let events = [Rich.event(), Rich.event(id: "AAMkPRIVATE", sensitivity: "private")]
        let before = try Rich.export(events, .everything).text
        let full = try Rich.export(events, EventSelection(detail: .full, excludeCancelled: true)).text
        #expect(full == before)
        for secret in Rich.secrets { #expect(before.contains(secret), "\(secret)") }
    }

    @Test("limited keeps times, subject, location, show-as and UID; no body, people, link, categories, ids, alarm")
    func limitedLeavesOutDetails() throws {
        let full = try #require(Fixtures.events(try Rich.export([Rich.event()], .everything).text).first)
        let (text, summary) = try Rich.export([Rich.event()], EventSelection(detail: .limited))
        #expect(summary.diagnostics.isEmpty, "\(summary.diagnostics)")
        let event = try #require(Fixtures.events(text).first)
        #expect(
            Rich.names(event) == [
                "UID", "DTSTAMP", "DTSTART", "DTEND", "SUMMARY", "LOCATION", "GEO", "TRANSP",
                "X-MICROSOFT-CDO-BUSYSTATUS", "CREATED", "LAST-MODIFIED",
            ])
        for name in ["UID", "DTSTAMP", "DTSTART", "DTEND", "SUMMARY", "LOCATION", "TRANSP"] {
            #expect(Fixtures.line(name, in: event) == Fixtures.line(name, in: full), "\(name)")
        }
        #expect(!text.contains("VALARM"))
        for secret in Rich.secrets.filter({ $0 != "Quarterly numbers" }) {
            #expect(!text.contains(secret), "\(secret)")
        }
    }

    @Test(
        "busy: times and show-as under a SUMMARY naming it; free time left out",
        arguments: [
            ("busy", "Busy"), ("tentative", "Tentative"), ("oof", "Out of office"),
            ("workingElsewhere", "Working elsewhere"), ("unknown", "Busy"), ("free", nil),
        ] as [(String, String?)])
    func busyBlocks(showAs: String, summary expected: String?) throws {
        let (text, summary) = try Rich.export([Rich.event(showAs: showAs)], EventSelection(detail: .busy))
        #expect(summary.diagnostics.isEmpty, "\(summary.diagnostics)")
        let events = Fixtures.events(text)
        guard let expected else {
            #expect(events.isEmpty)
            return
        }
        let event = try #require(events.first)
        #expect(Fixtures.value("SUMMARY", in: event) == expected)
        #expect(Fixtures.value("UID", in: event) == "UID-AAMkRICH")
        #expect(Fixtures.line("DTSTART", in: event) == "DTSTART;TZID=Europe/Berlin:20261202T110000")
        let statusNames = showAs == "unknown" ? ["TRANSP"] : ["TRANSP", "X-MICROSOFT-CDO-BUSYSTATUS"]
        #expect(
            Rich.names(event)
                == ["UID", "DTSTAMP", "DTSTART", "DTEND", "SUMMARY"] + statusNames + ["CREATED", "LAST-MODIFIED"])
        for secret in Rich.secrets + ["Room 4.12", "Karl-Liebknecht", "52.5219"] { #expect(!text.contains(secret)) }
    }

    @Test("limited and busy keep all-day days, cancelled status and the recurrence")
    func statusAllDayAndRecurrenceStay() throws {
        let allDay = Rich.event(
            id: "AAMkDAY",
            changes: [
                "isAllDay": true, "isCancelled": true, "start": Rich.when("2026-12-03T00:00:00"),
                "end": Rich.when("2026-12-04T00:00:00"),
            ])
        for detail in [ExportDetail.limited, .busy] {
            let selection = EventSelection(detail: detail)
            let day = try #require(Fixtures.events(try Rich.export([allDay], selection).text).first)
            #expect(Fixtures.line("DTSTART", in: day) == "DTSTART;VALUE=DATE:20261203")
            #expect(Fixtures.value("STATUS", in: day) == "CANCELLED")
            #expect(Fixtures.value("X-MICROSOFT-CDO-ALLDAYEVENT", in: day) == "TRUE")
            let series = try #require(Fixtures.events(try Rich.export([Rich.master()], selection).text).first)
            #expect(Fixtures.value("RRULE", in: series)?.hasPrefix("FREQ=WEEKLY;BYDAY=WE") == true)
        }
    }

    @Test("a diagnostic about a redacted event names it as Graph has it, for whoever runs the export")
    func diagnosticsNameTheEvent() throws {
        let (text, summary) = try Rich.export([Rich.event(showAs: "elsewhere")], EventSelection(detail: .busy))
        let warning = try #require(summary.diagnostics.first)
        #expect(warning.message.contains("showAs 'elsewhere' is unknown"))
        #expect(warning.eventID == "AAMkID-AAMkRICH")
        #expect(warning.subject == "Quarterly numbers")
        #expect(Fixtures.events(text).first.flatMap { Fixtures.value("SUMMARY", in: $0) } == "Busy")
    }

    // MARK: Private events

    @Test(
        "private and confidential events are busy blocks at every level unless showPrivate",
        arguments: ["private", "confidential"], ExportDetail.allCases)
    func privateIsBusyBlock(sensitivity: String, detail: ExportDetail) throws {
        let event = Rich.event(showAs: "tentative", sensitivity: sensitivity)
        let hidden = try Rich.export([event], EventSelection(detail: detail, showPrivate: false)).text
        let block = try #require(Fixtures.events(hidden).first)
        #expect(Fixtures.value("SUMMARY", in: block) == "Tentative")
        #expect(Fixtures.line("CLASS", in: block) == nil)
        for secret in Rich.secrets + ["Room 4.12"] { #expect(!hidden.contains(secret), "\(secret)") }

        let shown = try Rich.export([event], EventSelection(detail: detail, showPrivate: true)).text
        #expect(shown.contains("SUMMARY:Quarterly numbers") == (detail != .busy))
        #expect(shown.contains("LOCATION:Room 4.12") == (detail != .busy))
    }

    @Test("a private free event is left out as free time is at busy; a normal one stays")
    func privateFreeIsLeftOut() throws {
        let events = [
            Rich.event(id: "AAMkFREE", showAs: "free", sensitivity: "private"),
            Rich.event(id: "AAMkOPEN", showAs: "free", sensitivity: "personal"),
        ]
        let text = try Rich.export(events, EventSelection(detail: .full, showPrivate: false)).text
        #expect(Fixtures.events(text).map { Fixtures.value("UID", in: $0) } == ["UID-AAMkOPEN"])
    }

    // MARK: Filters

    @Test("excludeDeclined leaves out what the mailbox's owner declined, only that")
    func excludeDeclined() throws {
        let events = [
            Rich.event(id: "AAMkYES"), Rich.event(id: "AAMkNO", changes: ["responseStatus": ["response": "declined"]]),
        ]
        let kept = try Rich.export(events, EventSelection(excludeDeclined: true)).text
        #expect(Fixtures.events(kept).map { Fixtures.value("UID", in: $0) } == ["UID-AAMkYES"])
        #expect(Fixtures.events(try Rich.export(events, .everything).text).count == 2)
    }

    @Test("excludeCancelled leaves out cancelled events")
    func excludeCancelled() throws {
        let events = [Rich.event(id: "AAMkON"), Rich.event(id: "AAMkOFF", changes: ["isCancelled": true])]
        let kept = try Rich.export(events, EventSelection(excludeCancelled: true)).text
        #expect(Fixtures.events(kept).map { Fixtures.value("UID", in: $0) } == ["UID-AAMkON"])
    }

    @Test("categories keep events with any of them, compared case-insensitively; none given keeps all")
    func categoriesFilter() throws {
        let events = [
            Rich.event(id: "AAMkA", changes: ["categories": ["Finance", "Travel"]]),
            Rich.event(id: "AAMkB", changes: ["categories": ["red category"]]),
            Rich.event(id: "AAMkC", changes: ["categories": [String]()]),
        ]
        let selection = EventSelection(categories: ["travel", "Red Category"])
        let kept = try Rich.export(events, selection).text
        #expect(Fixtures.events(kept).map { Fixtures.value("UID", in: $0) } == ["UID-AAMkA", "UID-AAMkB"])
        #expect(Fixtures.events(try Rich.export(events, EventSelection(categories: [])).text).count == 3)
    }

    @Test("a limited or busy event without iCalUId keeps a UID that names no Graph id")
    func uidWithoutICalUId() throws {
        let event = Rich.event(changes: ["iCalUId": NSNull()])
        let first = try #require(Fixtures.events(try Rich.export([event], EventSelection(detail: .busy)).text).first)
        let again = try #require(Fixtures.events(try Rich.export([event], EventSelection(detail: .limited)).text).first)
        let uid = try #require(Fixtures.value("UID", in: first))
        #expect(uid.hasPrefix("graph-ics-"))
        #expect(!uid.contains("AAMkID-"))
        #expect(Fixtures.value("UID", in: again) == uid)
    }

    // MARK: Series

    @Test("series: a private master and its overrides are busy blocks; the RRULE and EXDATEs stay")
    func seriesRedacted() throws {
        let pages = [
            Rich.instance("2026-12-02", sensitivity: "private"),
            Rich.instance("2026-12-09", start: "2026-12-09T14:00:00", sensitivity: "private", subject: "Moved numbers"),
            Rich.instance("2026-12-16", sensitivity: "private"),
        ]
        let (text, summary) = try Rich.export(
            pages, EventSelection(detail: .limited, showPrivate: false), recurrence: .series,
            master: Rich.master(sensitivity: "private"))
        #expect(summary.diagnostics.isEmpty, "\(summary.diagnostics)")
        let events = Fixtures.events(text)
        #expect(events.count == 2)
        let master = try #require(events.first { Fixtures.line("RRULE", in: $0) != nil })
        let override = try #require(events.first { Fixtures.line("RECURRENCE-ID", in: $0) != nil })
        #expect(Fixtures.value("UID", in: master) == Rich.seriesUID)
        #expect(Fixtures.value("UID", in: override) == Rich.seriesUID)
        #expect(master.contains("EXDATE;TZID=Europe/Berlin:20261223T110000"))
        #expect(master.contains("EXDATE;TZID=Europe/Berlin:20261230T110000"))
        for event in [master, override] { #expect(Fixtures.value("SUMMARY", in: event) == "Busy") }
        for secret in Rich.secrets + ["Moved numbers", "Room 4.12"] { #expect(!text.contains(secret), "\(secret)") }
    }

    @Test("series at busy: a free exception of a busy series becomes an EXDATE, not the pattern's occurrence")
    func seriesFreeExceptionIsExdate() throws {
        let pages = [
            Rich.instance("2026-12-02"), Rich.instance("2026-12-09", start: "2026-12-09T14:00:00", showAs: "free"),
            Rich.instance("2026-12-16"), Rich.instance("2026-12-23"), Rich.instance("2026-12-30"),
        ]
        let text = try Rich.export(pages, EventSelection(detail: .busy), recurrence: .series, master: Rich.master())
            .text
        let events = Fixtures.events(text)
        #expect(events.count == 1)
        #expect(events.first?.filter { $0.hasPrefix("EXDATE") } == ["EXDATE;TZID=Europe/Berlin:20261209T110000"])
    }

    @Test("series: an occurrence a filter leaves out while its master stays becomes an EXDATE")
    func seriesLeftOutOccurrenceIsExdate() throws {
        var declined = Rich.instance("2026-12-16")
        declined["responseStatus"] = ["response": "declined"]
        let pages = [
            Rich.instance("2026-12-02"), Rich.instance("2026-12-09"), declined, Rich.instance("2026-12-23"),
            Rich.instance("2026-12-30"),
        ]
        let text = try Rich.export(
            pages, EventSelection(excludeDeclined: true), recurrence: .series, master: Rich.master()
        ).text
        let events = Fixtures.events(text)
        #expect(events.count == 1)
        #expect(events.first?.filter { $0.hasPrefix("EXDATE") } == ["EXDATE;TZID=Europe/Berlin:20261216T110000"])
    }

    @Test("series at busy: a free series is left out, its one busy exception stays as an event of its own")
    func seriesFreeMasterKeepsBusyException() throws {
        let pages = [
            Rich.instance("2026-12-02", showAs: "free"),
            Rich.instance("2026-12-09", start: "2026-12-09T14:00:00", showAs: "busy"),
            Rich.instance("2026-12-16", showAs: "free"),
        ]
        let (text, summary) = try Rich.export(
            pages, EventSelection(detail: .busy), recurrence: .series, master: Rich.master(showAs: "free"))
        #expect(summary.diagnostics.isEmpty, "\(summary.diagnostics)")
        let events = Fixtures.events(text)
        #expect(events.count == 1)
        #expect(Fixtures.line("DTSTART", in: events[0]) == "DTSTART;TZID=Europe/Berlin:20261209T150000")
        #expect(Fixtures.value("SUMMARY", in: events[0]) == "Busy")
        #expect(Fixtures.line("RRULE", in: events[0]) == nil)
    }

    // MARK: Stored form

    @Test("a selection reads back from JSON keyed by its property names")
    func codable() throws {
        let selection = EventSelection(
            detail: .busy, showPrivate: false, excludeDeclined: true, excludeCancelled: true, categories: ["Team"])
        let data = try JSONEncoder().encode(selection)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(
            Set(object.keys) == ["detail", "showPrivate", "excludeDeclined", "excludeCancelled", "categories"])
        #expect(object["detail"] as? String == "busy")
        #expect(try JSONDecoder().decode(EventSelection.self, from: data) == selection)
    }
}
