import Foundation
import Testing

@testable import ICalBridge

/// Graph JSON → .ics → Graph JSON keeps what matters, over every Graph fixture.
@Suite(.tags(.zoneRules)) struct RoundTripTests {
    @Test(
        "round trip keeps instants, dates, subject, body, location, categories, reminder, status and recurrence",
        arguments: Fixtures.graphNames)
    func roundTrip(name: String) throws {
        let data = try Fixtures.data("graph/\(name).json")
        let original = try GraphEventDocument.decode(data, file: name).events
        let (text, _) = try Fixtures.convert(data)
        let plan = try ICSToGraph.plan(
            Data(text.utf8), options: ImportOptions(file: name), settings: ImportSettings(notifiesAttendees: true))
        for event in original {
            guard let uid = event.iCalUId ?? event.id,
                let back = plan.events.first(where: { $0.sourceUID == uid })?.payload
            else {
                Issue.record("\(name): \(event.id ?? "?") did not come back")
                continue
            }
            let label = "\(name): \(uid)"
            // libical's parser drops spaces at the ends of values.
            let subject = (event.subject ?? "").replacing("\r\n", with: "\n").replacing("\r", with: "\n")
            #expect((back.subject ?? "") == subject.trimmingSpaces(), "\(label)")
            if event.isAllDay == true {
                #expect(back.isAllDay == true, "\(label)")
                #expect(back.start?.dateTime?.prefix(10) == event.start?.dateTime?.prefix(10), "\(label)")
                #expect(back.end?.dateTime?.prefix(10) == event.end?.dateTime?.prefix(10), "\(label)")
            } else {
                #expect(try Self.instant(back.start) == Self.instant(event.start), "\(label) start")
                if event.end?.dateTime != event.start?.dateTime {
                    #expect(try Self.instant(back.end) == Self.instant(event.end), "\(label) end")
                }
            }
            if let categories = event.categories?.filter({ !$0.trimmingSpaces().isEmpty }), !categories.isEmpty {
                #expect(back.categories == categories, "\(label)")
            }
            if let showAs = event.showAs, showAs != "unknown" { #expect(back.showAs == showAs, "\(label)") }
            if let sensitivity = event.sensitivity { #expect(back.sensitivity == sensitivity, "\(label)") }
            if let importance = event.importance { #expect(back.importance == importance, "\(label)") }
            #expect((back.isReminderOn ?? false) == (event.isReminderOn ?? false), "\(label)")
            if event.isReminderOn == true {
                #expect(back.reminderMinutesBeforeStart == (event.reminderMinutesBeforeStart ?? 15), "\(label)")
            }
            if let place = event.location?.displayName, !place.trimmingSpaces().isEmpty {
                #expect(back.location?.displayName?.hasPrefix(ICalText.singleLine(place)) == true, "\(label)")
            }
            if let body = event.body?.content, !body.trimmingSpaces().isEmpty {
                let kept = back.body?.content ?? ""
                if event.body?.contentType == "html", HTMLText.plainText(fromHTML: body).trimmingSpaces().isEmpty {
                    // Outlook's empty page of markup is not exported as X-ALT-DESC, so does not come back.
                    #expect(!kept.contains("<html"), "\(label) empty HTML body")
                } else if event.body?.contentType == "html" {
                    // iCalendar TEXT has one kind of line break: CRLF comes back as LF.
                    #expect(kept.hasPrefix(body.replacing("\r\n", with: "\n")), "\(label) HTML body")
                } else {
                    #expect(
                        kept == body.trimmingSpaces().replacing("\r\n", with: "\n").replacing("\r", with: "\n"),
                        "\(label) body")
                }
            }
            if let recurrence = event.recurrence {
                #expect(back.recurrence?.pattern?.type == recurrence.pattern?.type, "\(label)")
                #expect(back.recurrence?.pattern?.interval ?? 1 == recurrence.pattern?.interval ?? 1, "\(label)")
                #expect(back.recurrence?.range?.type == recurrence.range?.type, "\(label)")
                #expect(
                    back.recurrence?.range?.numberOfOccurrences
                        == (recurrence.range?.type == "numbered" ? recurrence.range?.numberOfOccurrences : nil),
                    "\(label)")
                if recurrence.range?.type == "endDate" {
                    #expect(back.recurrence?.range?.endDate == recurrence.range?.endDate, "\(label)")
                }
            }
        }
    }

    static func instant(_ value: GraphDateTimeTimeZone?) throws -> Int64 {
        let text = try #require(value?.dateTime)
        let time = try #require(GraphTimestamp.parse(text))
        if let instant = time.instant { return instant }
        guard case .resolved(let zone, _) = ZoneResolver.resolve(value?.timeZone) else {
            return time.civil.secondsSinceEpoch
        }
        return zone.instant(forLocal: time.civil)
    }
}
