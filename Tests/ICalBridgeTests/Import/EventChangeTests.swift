import Foundation
import Testing

@testable import ICalBridge

/// ``EventChange``: the minimal PATCH from the event Graph holds to the event a file maps to (issue 28, item 2).
/// The file cases start from the `.ics` the export writes of Graph's event, edited as a user's client edits it.
@Suite(.tags(.zoneRules)) struct EventChangeTests {
    /// Graph's event as a GET returns it: UTC times with the original zone beside them, an HTML body, a
    /// structured location, a reminder, an organizer.
    static let graph = """
        {"id":"AAMk-1","iCalUId":"uid-team-sync","subject":"Team sync","type":"singleInstance",
         "body":{"contentType":"html","content":"<html><body><p>Agenda:<br>1. Budget</p></body></html>"},
         "start":{"dateTime":"2026-12-01T08:00:00.0000000","timeZone":"UTC"},
         "end":{"dateTime":"2026-12-01T09:00:00.0000000","timeZone":"UTC"},
         "originalStartTimeZone":"W. Europe Standard Time","originalEndTimeZone":"W. Europe Standard Time",
         "isAllDay":false,"showAs":"busy","sensitivity":"normal","importance":"normal","categories":["Blue"],
         "location":{"displayName":"Room 1","locationType":"default",
                     "address":{"street":"Main St 1","city":"Berlin","postalCode":"10115"}},
         "isReminderOn":true,"reminderMinutesBeforeStart":15,
         "organizer":{"emailAddress":{"name":"Me","address":"me@contoso.example"}},
         "lastModifiedDateTime":"2026-11-20T10:00:00Z"}
        """

    /// The export of ``graph``, as sync writes it into the folder.
    static func exported(_ json: String = graph) throws -> String {
        var buffer = ByteBuffer()
        let summary = try GraphToICS.convert(
            Data(json.utf8), options: ExportOptions(timestamp: 1_796_083_200, file: "graph.json"), into: &buffer)
        #expect(summary.written == 1)
        return String(decoding: buffer.bytes, as: UTF8.self)
    }

    /// The change from Graph's `json` to `file` as read with `settings`.
    static func change(
        _ file: String, from json: String = graph, settings: ImportSettings = ImportSettings()
    ) throws -> EventChange? {
        let plan = try ICSToGraph.plan(Data(file.utf8), options: ImportOptions(file: "x.ics"), settings: settings)
        let event = try #require(plan.events.first)
        return try EventChange.between(graphJSON: Data(json.utf8), event)
    }

    /// An edit of the exported file: `old` replaced by `new` (each must be there).
    static func edited(_ replacements: [(String, String)]) throws -> String {
        var text = try exported()
        for (old, new) in replacements {
            #expect(text.contains(old), "the export holds no \(old.debugDescription): \(text)")
            text = text.replacingOccurrences(of: old, with: new)
        }
        return text
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var edits: [(String, String)]
        /// The fields of the PATCH; empty: nothing is sent.
        var fields: Set<String>
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "the file as exported", edits: [], fields: []),
        Case(name: "line endings only (CRLF to LF)", edits: [("\r\n", "\n")], fields: []),
        Case(name: "the summary", edits: [("SUMMARY:Team sync", "SUMMARY:Team sync (moved)")], fields: ["subject"]),
        Case(
            name: "the reminder", edits: [("TRIGGER:-PT15M", "TRIGGER:-PT30M")],
            fields: ["isReminderOn", "reminderMinutesBeforeStart"]),
        Case(
            name: "the start's zone at the same instant",
            edits: [("DTSTART;TZID=Europe/Berlin:20261201T090000", "DTSTART;TZID=Europe/London:20261201T080000")],
            fields: ["start", "end"]),
        Case(
            name: "the time",
            edits: [("DTSTART;TZID=Europe/Berlin:20261201T090000", "DTSTART;TZID=Europe/Berlin:20261201T083000")],
            fields: ["start", "end"]),
        Case(name: "the location's name", edits: [("LOCATION:Room 1", "LOCATION:Room 2")], fields: ["location"]),
        Case(name: "the categories", edits: [("CATEGORIES:Blue", "CATEGORIES:Blue,Red")], fields: ["categories"]),
    ]

    @Test("a change of one property of the exported file sends that property alone", arguments: cases)
    func oneEdit(_ example: Case) throws {
        let change = try Self.change(try Self.edited(example.edits))
        #expect(change?.fields ?? [] == example.fields, "\(String(describing: change))")
        if let change {
            // The PATCH holds exactly those properties (the JSON's keys are Graph's names).
            let object = try #require(try JSONSerialization.jsonObject(with: change.payload()) as? [String: Any])
            #expect(Set(object.keys) == example.fields)
        }
    }

    @Test("the structured location is kept: a change of the summary sends the subject alone, not a flat location")
    func structuredLocationKept() throws {
        let text = try Self.exported()
        // The export flattens the address into LOCATION; the import reads that back as one display name.
        #expect(text.contains("LOCATION:Room 1"))
        let change = try #require(
            try Self.change(text.replacingOccurrences(of: "SUMMARY:Team sync", with: "SUMMARY:Team lunch")))
        #expect(change.patch.location == nil)
        #expect(change.patch.subject == "Team lunch")
    }

    @Test("sync's PATCH carries the file property besides the change")
    func extendedPropertiesAdded() throws {
        let change = try #require(
            try Self.change(try Self.edited([("SUMMARY:Team sync", "SUMMARY:Team lunch")])))
        let property = GraphSingleValueExtendedProperty(id: "String {x} Name graph-ics.sync-file", value: "abc")
        let object = try #require(
            try JSONSerialization.jsonObject(with: change.payload(adding: [property])) as? [String: Any])
        #expect(Set(object.keys) == ["subject", "singleValueExtendedProperties"])
        let properties = try #require(object["singleValueExtendedProperties"] as? [[String: Any]])
        #expect(properties.first?["value"] as? String == "abc")
    }

    @Test("a text body: unchanged when only its line endings differ, sent when its words change")
    func textBody() throws {
        let json = Self.graph.replacingOccurrences(
            of: #"{"contentType":"html","content":"<html><body><p>Agenda:<br>1. Budget</p></body></html>"}"#,
            with: #"{"contentType":"text","content":"Agenda:\r\n1. Budget"}"#)
        let text = try Self.exported(json)
        #expect(text.contains(#"DESCRIPTION:Agenda:\n1. Budget"#), "\(text)")
        #expect(try Self.change(text, from: json) == nil)
        let changed = try #require(
            try Self.change(
                text.replacingOccurrences(
                    of: #"DESCRIPTION:Agenda:\n1. Budget"#, with: #"DESCRIPTION:Agenda:\n1. Plans"#),
                from: json))
        #expect(changed.fields == ["body"])
        #expect(changed.patch.body?.content?.contains("1. Plans") == true)
    }

    // MARK: Payloads compared directly

    static func event(_ change: (inout GraphEvent) -> Void) -> GraphEvent {
        var event = GraphEvent()
        event.subject = "Review"
        event.body = GraphItemBody(contentType: "text", content: "Line one\r\nLine two")
        event.start = GraphDateTimeTimeZone(dateTime: "2026-12-01T09:00:00", timeZone: "W. Europe Standard Time")
        event.end = GraphDateTimeTimeZone(dateTime: "2026-12-01T10:00:00", timeZone: "W. Europe Standard Time")
        event.attendees = [
            GraphAttendee(type: "required", emailAddress: GraphEmailAddress(address: "ann@contoso.example")),
            GraphAttendee(type: "optional", emailAddress: GraphEmailAddress(address: "bob@contoso.example")),
        ]
        event.isReminderOn = true
        event.reminderMinutesBeforeStart = 15
        change(&event)
        return event
    }

    @Test("payloads: normalised comparison, property by property")
    func payloads() {
        let base = Self.event { _ in }
        #expect(EventChange.between([base], base) == nil)
        // CRLF and LF are one line ending.
        #expect(EventChange.between([base], Self.event { $0.body?.content = "Line one\nLine two" }) == nil)
        // The same instant written in IANA form, in UTC with Graph's seven digits: no change.
        #expect(
            EventChange.between(
                [base],
                Self.event {
                    $0.start = GraphDateTimeTimeZone(dateTime: "2026-12-01T09:00:00.0000000", timeZone: "Europe/Berlin")
                }) == nil)
        // Attendees are a set by address.
        #expect(
            EventChange.between(
                [base],
                Self.event {
                    $0.attendees = [
                        GraphAttendee(
                            type: "optional", emailAddress: GraphEmailAddress(address: "BOB@contoso.example")),
                        GraphAttendee(
                            type: "required", emailAddress: GraphEmailAddress(address: "ann@contoso.example")),
                    ]
                }) == nil)
        #expect(
            EventChange.between([base], Self.event { $0.attendees?.removeLast() })?.fields == ["attendees"])
        // A zone change at the same instant is a change Graph holds (the event's zone): start and end are sent.
        #expect(
            EventChange.between(
                [base],
                Self.event {
                    $0.start = GraphDateTimeTimeZone(dateTime: "2026-12-01T08:00:00", timeZone: "GMT Standard Time")
                })?.fields == ["start", "end"])
        // The reminder turned off.
        #expect(
            EventChange.between([base], Self.event { $0.isReminderOn = false })?.fields
                == ["isReminderOn", "reminderMinutesBeforeStart"])
        // An online meeting keeps Graph's body: the change without it, nothing when only the body changed.
        let bodyAndSubject = EventChange.between(
            [base],
            Self.event {
                $0.subject = "Review 2"
                $0.body?.content = "New agenda"
            })
        #expect(bodyAndSubject?.fields == ["subject", "body"])
        let sent = OnlineMeetingBody.sendable(bodyAndSubject, toOnlineMeeting: true)
        #expect(sent.change?.fields == ["subject"])
        #expect(sent.change?.patch.body == nil)
        #expect(sent.leftOut)
        let onlyBody = EventChange.between([base], Self.event { $0.body?.content = "New agenda" })
        #expect(OnlineMeetingBody.sendable(onlyBody, toOnlineMeeting: true) == (nil, true))
        // Not an online meeting, or no body in the change: everything is sent, nothing left out.
        #expect(OnlineMeetingBody.sendable(bodyAndSubject, toOnlineMeeting: false) == (bodyAndSubject, false))
        let onlySubject = EventChange.between([base], Self.event { $0.subject = "Review 2" })
        #expect(OnlineMeetingBody.sendable(onlySubject, toOnlineMeeting: true) == (onlySubject, false))
        // A whole payload: without its body; the body counts as changed when it differs from Graph's (line
        // endings aside), or when Graph's is not known.
        let renamed = Self.event { $0.subject = "Review 2" }
        let whole = OnlineMeetingBody.sendable(renamed, toOnlineMeeting: true, comparedWith: base)
        #expect(whole.payload.body == nil && whole.payload.subject == "Review 2" && !whole.leftOut)
        let rewritten = Self.event { $0.body?.content = "New agenda" }
        #expect(OnlineMeetingBody.sendable(rewritten, toOnlineMeeting: true, comparedWith: base).leftOut)
        #expect(OnlineMeetingBody.sendable(renamed, toOnlineMeeting: true, comparedWith: nil).leftOut)
        #expect(OnlineMeetingBody.sendable(rewritten, toOnlineMeeting: false, comparedWith: base) == (rewritten, false))
        // A location with the same name keeps Graph's structured one.
        var structured = base
        structured.location = GraphLocation(displayName: "Room 1")
        structured.location?.address = GraphPhysicalAddress()
        structured.location?.address?.street = "Main St 1"
        #expect(
            EventChange.between([structured], Self.event { $0.location = GraphLocation(displayName: "Room 1\r\n") })
                == nil)
    }
}
