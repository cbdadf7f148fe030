import Foundation
import ICalBridge

/// An event an earlier import created, as the lookup returns it.
struct ExistingEvent {
    var id: String
    var type: String?
    /// As Graph sent it; nil when it sent none (``MailingRule`` reads that as organising).
    var isOrganizer: Bool?
    var attendees: Int
    var version: String?
    /// The calendar it was imported into (``ImportIdentity/calendarValue(_:)``); nil for an event imported
    /// before graph-ics recorded it.
    var calendar: String?
    /// Whether it is an online meeting: a body without the meeting's blob would disable it
    /// (`api/event-update.md`), so an update leaves its body alone.
    var isOnlineMeeting = false
    /// The event as Graph sent it (one event's JSON), the baseline of `--on-duplicate update`'s
    /// ``EventChange``.
    var json: Data?

    /// ``json`` as a Graph event; nil when Graph's event was not read or does not decode as one.
    var graphEvent: GraphEvent? {
        guard let json, let document = try? GraphEventDocument.decode(json, file: "Graph's event"),
            document.events.count == 1
        else { return nil }
        return document.events.first
    }

    /// Whether `change` makes Graph mail this event's attendees (``MailingRule``).
    func mails(_ change: MailingRule.Change) -> Bool {
        MailingRule.mails(change, attendees: attendees, isOrganizer: isOrganizer)
    }

    /// Whether the event is in the calendar an import with `calendarID` writes to. An event without the
    /// calendar property counts as being there: graph-ics cannot tell, and skipping it never duplicates.
    func isIn(calendarID: String?) -> Bool {
        calendar.map { $0 == ImportIdentity.calendarValue(calendarID) } ?? true
    }

    /// Reads the events of a lookup answer (`{"value": [...]}`); nil when it is not one.
    static func list(from body: Data) -> (events: [ExistingEvent], more: Bool)? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let values = object["value"] as? [[String: Any]]
        else { return nil }
        return (values.compactMap(ExistingEvent.init(object:)), object["@odata.nextLink"] != nil)
    }
}

extension ExistingEvent {
    /// Reads one event's JSON object (an entry of a lookup answer, or `GET events/{id}`); nil without an id.
    init?(object value: [String: Any]) {
        guard let standing = EventStanding(object: value) else { return nil }
        var version: String?
        var calendar: String?
        for property in value["singleValueExtendedProperties"] as? [[String: Any]] ?? [] {
            guard let propertyID = property["id"] as? String else { continue }
            if propertyID.caseInsensitiveCompare(ImportIdentity.versionPropertyID) == .orderedSame {
                version = property["value"] as? String
            } else if propertyID.caseInsensitiveCompare(ImportIdentity.calendarPropertyID) == .orderedSame {
                calendar = property["value"] as? String
            }
        }
        self.init(
            id: standing.id, type: value["type"] as? String, isOrganizer: standing.isOrganizer,
            attendees: standing.attendees.count, version: version, calendar: calendar,
            isOnlineMeeting: value["isOnlineMeeting"] as? Bool ?? false,
            json: try? JSONSerialization.data(withJSONObject: value))
    }
}
