import Foundation
import Testing

@testable import ICalBridge

/// `.ics` → Graph payloads (the plan `import` carries out).
@Suite(.tags(.zoneRules)) struct ImportTests {
    func plan(_ body: String, zone: String? = nil, asMeeting: Bool = false, strict: Bool = false) throws -> ImportPlan {
        let text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n" + body + "END:VCALENDAR\r\n"
        var options = ImportOptions(strict: strict, file: "test.ics")
        if let zone, case .resolved(let resolved, _) = ZoneResolver.resolve(zone) { options.userZone = resolved }
        return try ICSToGraph.plan(
            Data(text.utf8), options: options, settings: ImportSettings(notifiesAttendees: asMeeting))
    }

    func event(_ lines: String) -> String {
        "BEGIN:VEVENT\r\n" + lines.replacing("\n", with: "\r\n") + "\r\nEND:VEVENT\r\n"
    }

    /// The instant of a Graph date-time pair.
    func instant(_ value: GraphDateTimeTimeZone?) throws -> Int64 {
        let text = try #require(value?.dateTime)
        let time = try #require(GraphTimestamp.parse(text))
        guard case .resolved(let zone, _) = ZoneResolver.resolve(value?.timeZone) else {
            Issue.record("zone \(String(describing: value?.timeZone)) does not resolve")
            return 0
        }
        return zone.instant(forLocal: time.civil)
    }

    @Test("a night train across the spring-forward change keeps its real duration")
    func nightTrain() throws {
        let plan = try plan(
            event(
                """
                UID:train-1
                SUMMARY:Nightjet Wien → Hamburg
                DTSTART;TZID=Europe/Vienna:20270327T223000
                DTEND;TZID=Europe/Berlin:20270328T073000
                """))
        let payload = try #require(plan.events.first?.payload)
        #expect(payload.start?.timeZone == "W. Europe Standard Time")
        #expect(payload.start?.dateTime == "2027-03-27T22:30:00")
        #expect(payload.end?.dateTime == "2027-03-28T07:30:00")
        // 22:30 CET to 07:30 CEST is nine hours on the clock but eight in reality.
        #expect(try instant(payload.end) - instant(payload.start) == 8 * 3600)
    }

    @Test("a timed event whose DTEND is a date ends at the midnight starting that day, with a warning")
    func dateEndOfTimedEvent() throws {
        let plan = try plan(
            event(
                """
                UID:mixed-1
                SUMMARY:Workshop
                DTSTART;TZID=Europe/Berlin:20261201T180000
                DTEND;VALUE=DATE:20261203
                """))
        let payload = try #require(plan.events.first?.payload)
        #expect(payload.isAllDay == false)
        #expect(payload.end?.dateTime == "2026-12-03T00:00:00")
        #expect(try instant(payload.end) - instant(payload.start) == 30 * 3600)
        #expect(plan.diagnostics.contains { $0.severity == .warning && $0.message.contains("DTEND is a date") })
    }

    @Test("ticket-safe by default: organizer and attendees go into the body, not into attendees")
    func ticketSafe() throws {
        let lines = """
            UID:concert-1
            SUMMARY:Concert
            DESCRIPTION:Row 5, seat 12
            DTSTART:20261205T190000Z
            DTEND:20261205T220000Z
            ORGANIZER;CN=Tickets GmbH:mailto:noreply@tickets.example
            ATTENDEE;CN=Ana;ROLE=REQ-PARTICIPANT:mailto:ana@example.com
            ATTENDEE;CUTYPE=RESOURCE;CN=Hall A:mailto:hall@example.com
            """
        let safe = try #require(try plan(event(lines)).events.first?.payload)
        #expect(safe.attendees == nil)
        let body = try #require(safe.body?.content)
        #expect(body.contains("Row 5, seat 12"))
        #expect(body.contains("Organizer: Tickets GmbH <noreply@tickets.example>"))
        #expect(body.contains("Attendees: Ana <ana@example.com>, Hall A <hall@example.com>"))
        let meeting = try #require(try plan(event(lines), asMeeting: true).events.first?.payload)
        #expect(meeting.attendees?.map(\.type) == ["required", "resource"])
        #expect(meeting.attendees?.first?.emailAddress?.address == "ana@example.com")
        #expect(meeting.body?.content?.contains("Organizer:") == false)
    }

    @Test("all-day dates, DURATION and a missing DTEND follow RFC 5545")
    func endRules() throws {
        let plan = try plan(
            event("UID:a\nDTSTART;VALUE=DATE:20261224")
                + event("UID:b\nDTSTART;VALUE=DATE:20261224\nDTEND;VALUE=DATE:20261227")
                + event("UID:c\nDTSTART:20261201T100000Z\nDURATION:PT1H30M")
                + event("UID:d\nDTSTART:20261201T100000Z"),
            zone: "Europe/Berlin")
        let byUID = Dictionary(uniqueKeysWithValues: plan.events.map { ($0.sourceUID, $0.payload) })
        #expect(byUID["a"]?.isAllDay == true)
        #expect(byUID["a"]?.start?.dateTime == "2026-12-24T00:00:00")
        #expect(byUID["a"]?.end?.dateTime == "2026-12-25T00:00:00")
        #expect(byUID["a"]?.start?.timeZone == "W. Europe Standard Time")
        #expect(byUID["b"]?.end?.dateTime == "2026-12-27T00:00:00")
        #expect(byUID["c"]?.end?.dateTime == "2026-12-01T11:30:00")
        #expect(byUID["c"]?.end?.timeZone == "UTC")
        #expect(byUID["d"]?.end?.dateTime == "2026-12-01T10:00:00")
    }

    @Test("the zone ladder: IANA, Windows, numbered Windows, display name, Microsoft UTC, embedded VTIMEZONE")
    func zoneLadder() throws {
        let custom = """
            BEGIN:VTIMEZONE\r\nTZID:Made Up Time\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\nTZOFFSETFROM:+0123\r\n\
            TZOFFSETTO:+0123\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n
            """
        let plan = try plan(
            custom
                + event("UID:1\nDTSTART;TZID=Europe/Berlin:20261201T100000")
                + event("UID:2\nDTSTART;TZID=W. Europe Standard Time:20261201T100000")
                + event("UID:3\nDTSTART;TZID=W. Europe Standard Time 1:20261201T100000")
                + event(
                    "UID:4\nDTSTART;TZID=\"(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna\":20261201T100000"
                )
                + event("UID:5\nDTSTART;TZID=tzone://Microsoft/Utc:20261201T090000")
                + event("UID:6\nDTSTART;TZID=Made Up Time:20261201T102300")
                + event("UID:7\nDTSTART;TZID=Nowhere/Nothing:20261201T100000"))
        let expected = try #require(GraphTimestamp.parse("2026-12-01T09:00:00Z")?.instant)
        for uid in ["1", "2", "3", "4", "5", "6"] {
            let payload = try #require(plan.events.first { $0.sourceUID == uid }?.payload, "event \(uid)")
            #expect(try instant(payload.start) == expected, "event \(uid)")
        }
        #expect(plan.events.first { $0.sourceUID == "6" }?.payload.start?.timeZone == "UTC")
        let error = try #require(plan.diagnostics.first { $0.severity == .error })
        #expect(error.eventID == "7")
        #expect(error.message.contains("Nowhere/Nothing"))
        #expect(plan.zoneResolutions["W. Europe Standard Time 1"]?.contains("numeric suffix") == true)
    }

    @Test("status properties, categories and the first alarm before the start")
    func properties() throws {
        let plan = try plan(
            event(
                """
                UID:p
                DTSTART:20261201T100000Z
                TRANSP:TRANSPARENT
                X-MICROSOFT-CDO-BUSYSTATUS:OOF
                CLASS:CONFIDENTIAL
                PRIORITY:1
                CATEGORIES:Red,Blue
                CATEGORIES:Green\\, light
                BEGIN:VALARM
                ACTION:DISPLAY
                TRIGGER:-PT15M
                END:VALARM
                BEGIN:VALARM
                ACTION:EMAIL
                TRIGGER:-PT5M
                END:VALARM
                """))
        let payload = try #require(plan.events.first?.payload)
        #expect(payload.showAs == "oof")
        #expect(payload.sensitivity == "confidential")
        #expect(payload.importance == "high")
        #expect(payload.categories == ["Red", "Blue", "Green, light"])
        #expect(payload.isReminderOn == true)
        #expect(payload.reminderMinutesBeforeStart == 15)
        #expect(plan.diagnostics.contains { $0.severity == .warning && $0.message.contains("EMAIL") })
    }

    @Test("identity: the source UID (+ RECURRENCE-ID) in an extended property and a stable transactionId")
    func identity() throws {
        let first = try plan(event("UID:same\nDTSTART:20261201T100000Z"))
        let second = try plan(event("UID:same\nDTSTART:20261201T100000Z\nSUMMARY:changed"))
        let payload = try #require(first.events.first?.payload)
        #expect(payload.singleValueExtendedProperties?.first?.id == ImportIdentity.propertyID)
        #expect(payload.singleValueExtendedProperties?.first?.value == "same")
        #expect(payload.transactionId == second.events.first?.payload.transactionId)
        #expect(ImportIdentity.transactionID(for: "same") != ImportIdentity.transactionID(for: "same|20261201T100000Z"))
    }

    @Test("the payloads are final for the settings: identity, version, the calendar's transactionId, attendees")
    func finishedForTheSettings() throws {
        let attendees = "ORGANIZER:mailto:lee@example.com\nATTENDEE;CN=Ana:mailto:ana@example.com"
        let series = event(
            "UID:meeting\nDTSTAMP:20261120T100000Z\nSEQUENCE:3\nSUMMARY:Planning\n"
                + "DTSTART;TZID=Europe/Berlin:20261130T093000\nDTEND;TZID=Europe/Berlin:20261130T100000\n"
                + "RRULE:FREQ=WEEKLY;COUNT=4\n" + attendees)
        let override = event(
            "UID:meeting\nRECURRENCE-ID;TZID=Europe/Berlin:20261207T093000\nSUMMARY:Planning (later)\n"
                + "DTSTART;TZID=Europe/Berlin:20261207T110000\nDTEND;TZID=Europe/Berlin:20261207T113000\n" + attendees)
        let text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n" + series + override + "END:VCALENDAR\r\n"
        func planned(_ settings: ImportSettings) throws -> (event: PlannedEvent, changes: GraphEvent?) {
            let plan = try ICSToGraph.plan(Data(text.utf8), options: ImportOptions(file: "m.ics"), settings: settings)
            let event = try #require(plan.events.first)
            guard case .patchOccurrence(_, let changes)? = event.followUps.first else { return (event, nil) }
            return (event, changes)
        }

        let safe = try planned(ImportSettings())
        #expect(safe.event.settings == ImportSettings())
        #expect(
            safe.event.payload.singleValueExtendedProperties == [
                GraphSingleValueExtendedProperty(id: ImportIdentity.propertyID, value: "meeting"),
                GraphSingleValueExtendedProperty(id: ImportIdentity.versionPropertyID, value: "3;20261120T100000Z"),
                GraphSingleValueExtendedProperty(id: ImportIdentity.calendarPropertyID, value: "default"),
            ])
        #expect(safe.event.payload.transactionId == ImportIdentity.transactionID(for: "meeting"))
        #expect(safe.event.payload.attendees == nil)
        #expect(safe.event.payload.body?.content?.contains("Attendees: Ana <ana@example.com>") == true)
        #expect(safe.changes?.subject == "Planning (later)")
        #expect(safe.changes?.attendees == nil)

        let invited = try planned(ImportSettings(notifiesAttendees: true))
        #expect(invited.event.payload.attendees?.compactMap(\.emailAddress?.address) == ["ana@example.com"])
        #expect(invited.changes?.attendees?.count == 1)
        #expect(invited.event.payload.body?.content?.contains("Attendees:") != true)
        #expect(invited.event.payload.transactionId == safe.event.payload.transactionId)

        let elsewhere = try planned(ImportSettings(calendarID: "AAMkCal="))
        #expect(elsewhere.event.payload.transactionId == ImportIdentity.transactionID(for: "meeting\nAAMkCal="))
        let copies = try [planned(ImportSettings(onDuplicate: .new)), planned(ImportSettings(onDuplicate: .new))]
        let copyIDs = copies.compactMap(\.event.payload.transactionId)
        #expect(Set(copyIDs + [safe.event.payload.transactionId, elsewhere.event.payload.transactionId]).count == 4)

        #expect(invited.event.updatePayload.transactionId == nil)
        var unchanged = invited.event.updatePayload
        unchanged.transactionId = invited.event.payload.transactionId
        #expect(unchanged == invited.event.payload)
    }

    @Test("a series Graph can hold: pattern, EXDATE as a cancel step, an override as a patch step")
    func series() throws {
        let plan = try plan(
            event(
                """
                UID:weekly
                SUMMARY:Standup
                DTSTART;TZID=Europe/Berlin:20261130T093000
                DTEND;TZID=Europe/Berlin:20261130T094500
                RRULE:FREQ=WEEKLY;BYDAY=MO,WE;COUNT=6
                EXDATE;TZID=Europe/Berlin:20261202T093000
                """)
                + event(
                    """
                    UID:weekly
                    RECURRENCE-ID;TZID=Europe/Berlin:20261207T093000
                    SUMMARY:Standup (moved)
                    DTSTART;TZID=Europe/Berlin:20261207T110000
                    DTEND;TZID=Europe/Berlin:20261207T111500
                    """))
        #expect(plan.events.count == 1)
        let planned = try #require(plan.events.first)
        #expect(planned.payload.recurrence?.pattern?.type == "weekly")
        #expect(planned.payload.recurrence?.pattern?.daysOfWeek == ["monday", "wednesday"])
        #expect(planned.payload.recurrence?.range?.numberOfOccurrences == 6)
        #expect(planned.followUps.count == 2)
        #expect(planned.followUps.first == .cancelOccurrence(originalStart: "2026-12-02T08:30:00Z"))
        guard case .patchOccurrence(let start, let changes) = planned.followUps.last else {
            Issue.record("no patch step")
            return
        }
        #expect(start == "2026-12-07T08:30:00Z")
        #expect(changes.subject == "Standup (moved)")
        #expect(changes.start?.dateTime == "2026-12-07T11:00:00")
    }

    @Test("a rule Graph cannot hold is expanded into single events with a warning, or refused with --strict")
    func expansion() throws {
        let lines =
            "UID:hourly\nSUMMARY:Shift\nDTSTART:20261201T080000Z\nDTEND:20261201T083000Z\nRRULE:FREQ=HOURLY;COUNT=3"
        let expanded = try plan(event(lines))
        #expect(
            expanded.events.map { $0.payload.start?.dateTime } == [
                "2026-12-01T08:00:00", "2026-12-01T09:00:00", "2026-12-01T10:00:00",
            ])
        #expect(expanded.events.map(\.recurrenceID) == ["20261201T080000Z", "20261201T090000Z", "20261201T100000Z"])
        #expect(Set(expanded.events.compactMap(\.payload.transactionId)).count == 3)
        #expect(expanded.diagnostics.contains { $0.severity == .warning && $0.message.contains("FREQ=HOURLY") })
        let strict = try plan(event(lines), strict: true)
        #expect(strict.events.isEmpty)
        #expect(strict.diagnostics.contains { $0.severity == .error && $0.message.contains("--strict") })
    }

    @Test("bad input: one clear message, the other events still go through")
    func badInput() throws {
        let plan = try plan(
            event("UID:ok\nDTSTART:20261201T100000Z")
                + event("UID:backwards\nDTSTART:20261201T100000Z\nDTEND:20261201T090000Z")
                + event("UID:nostart\nSUMMARY:No start"))
        #expect(plan.events.map(\.sourceUID) == ["ok"])
        let errors = plan.diagnostics.filter { $0.severity == .error }
        #expect(Set(errors.compactMap(\.eventID)) == ["backwards", "nostart"])
        #expect(errors.allSatisfy { $0.line != nil && $0.file == "test.ics" })
        for bytes in [Data(), Data([0, 1, 2, 3]), Data("hello world".utf8)] {
            #expect(throws: ICalBridgeError.self) {
                _ = try ICSToGraph.plan(bytes, options: ImportOptions(file: "x.ics"))
            }
        }
        let todos = try self.plan("BEGIN:VTODO\r\nUID:t\r\nSUMMARY:Buy milk\r\nEND:VTODO\r\n")
        #expect(todos.diagnostics.contains { $0.message.contains("to-dos") })
    }

    // The limit catches a hang (a quadratic or worse reading would take hours), not a speed: the sanitizer
    // run starts every test at once on 2 cores, where a linear one has taken four minutes of wall time.
    @Test("a hostile VTIMEZONE is refused quickly; its events get a clear error", .timeLimit(.minutes(10)))
    func hostileVTimezone() throws {
        let zone = """
            BEGIN:VTIMEZONE\r\nTZID:Evil\r\nBEGIN:STANDARD\r\nDTSTART:16010101T000000\r\nTZOFFSETFROM:+0100\r\n\
            TZOFFSETTO:+0200\r\nRRULE:FREQ=SECONDLY\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n
            """
        let plan = try plan(zone + event("UID:e\nDTSTART;TZID=Evil:20261201T100000"))
        #expect(plan.events.isEmpty)
        #expect(plan.diagnostics.contains { $0.severity == .error && $0.message.contains("TZID=Evil") })
    }

    @Test("several calendars, LF-only lines, a byte order mark and Windows-1252 all read")
    func readingVariants() throws {
        let calendar =
            "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nUID:%@\nSUMMARY:Caf\u{E9}\nDTSTART:20261201T100000Z\nEND:VEVENT\nEND:VCALENDAR\n"
        let text = calendar.replacing("%@", with: "one") + calendar.replacing("%@", with: "two")
        let utf8 = try ICSToGraph.plan(
            Data([0xEF, 0xBB, 0xBF] + Array(text.utf8)), options: ImportOptions(file: "a.ics"))
        #expect(utf8.events.map(\.sourceUID) == ["one", "two"])
        #expect(utf8.events.first?.payload.subject == "Café")
        let latin1 = try ICSToGraph.plan(
            try #require(text.data(using: .isoLatin1)), options: ImportOptions(file: "b.ics"))
        #expect(latin1.events.first?.payload.subject == "Café")
        #expect(latin1.diagnostics.contains { $0.message.contains("Windows-1252") })
    }

    @Test("Windows-1252 input: 0x80–0x9F are its characters, the five undefined bytes dropped, the rest Latin-1")
    func windows1252Bytes() throws {
        let bytes = (0...255).map { UInt8($0) } + Array(try #require("Grüße".data(using: .isoLatin1)))
        let (text, dropped) = ICSDocument.windows1252(bytes)
        #expect(dropped == 5)
        let undefined: Set<UInt8> = [0x81, 0x8D, 0x8F, 0x90, 0x9D]
        let kept = bytes.filter { !undefined.contains($0) }
        let expected = try #require(String(data: Data(kept), encoding: .windowsCP1252))
        #expect(text == expected)
        #expect(ICSDocument.windows1252([0x93, 0x48, 0x94, 0x20, 0x96]).text == "\u{201C}H\u{201D} \u{2013}")
    }

    @Test("X- properties the import reads still count; the others, folded or long, are left out whole")
    func extensionProperties() throws {
        let long = String(repeating: "x", count: 5_000)
        let body = event(
            """
            UID:ext
            DTSTART:20261201T100000Z
            X-GRAPH-ICS-EVENT-ID:AAMk
             kAGI;SUMMARY:a continuation, not a property
            x-wr-unread;X-PARAM=1:lower case
            X-ALT-DESC;FMTTYPE=text/html:<p>html</p>
            X-MICROSOFT-CDO-BUSYSTATUS:OOF
            X-MICROSOFT-CDO-IMPORTANCE:2
            X-GRAPH-ICS-SENSITIVITY:personal
            CLASS:PRIVATE
            X-LONG:\(long)
            \tstill the long one
            SUMMARY:Real
            X-LAST:just before END:VEVENT
            """)
        // The same event in a calendar of 300 (read in chunks on all cores) and alone (read whole).
        for count in [1, 300] {
            let plan = try plan(String(repeating: body, count: count))
            #expect(plan.events.count == count)
            let payload = try #require(plan.events.first?.payload)
            #expect(payload.subject == "Real")
            #expect(payload.body?.contentType == "html")
            #expect(payload.body?.content?.contains("<p>html</p>") == true)
            #expect(payload.showAs == "oof")
            #expect(payload.importance == "high")
            #expect(payload.sensitivity == "personal")
            #expect(plan.diagnostics.isEmpty, "\(plan.diagnostics.first.map { "\($0)" } ?? "")")
        }
    }

    @Test("which lines the extension filter leaves out")
    func extensionFilter() {
        func drops(_ line: String) -> Bool {
            Array(line.utf8).withUnsafeBytes { ICSDocument.extensionsRead.drops($0) }
        }
        #expect(drops("X-GRAPH-ICS-WEBLINK:https://outlook.office365.com/owa\r\n"))
        #expect(drops("x-microsoft-cdo-insttype;X-A=b:0\r\n"))
        #expect(drops("X-ALT-DESCRIPTION:not the one read\r\n"))
        #expect(!drops("X-ALT-DESC;FMTTYPE=text/html:<p>x</p>\r\n"))
        #expect(!drops("x-alt-desc:lower case\r\n"))
        #expect(!drops("X-LIC-LOCATION:Europe/Berlin\r\n"))
        #expect(!drops("X-LIC-ERROR:libical's own\r\n"))
        // A name that does not end on its line (folded inside the name) is left to libical.
        #expect(!drops("X-ALT-\r\n"))
        #expect(!drops("X-"))
        #expect(!drops("DESCRIPTION:X-FOO:bar\r\n"))
        #expect(!drops(" X-FOO:a continuation line\r\n"))
    }
}
