// Reading an event's JSON the way Exchange does: `dateTimeTimeZone` values, single-value extended
// properties, and the properties Graph fills in when a payload leaves them out.
import Foundation

extension GraphStandIn {
    /// A parsed `dateTimeTimeZone`.
    struct When {
        var local: GraphDateTime
        var zone: String
        var instant: Date
    }

    enum WhenError: Error {
        case missing
        case badDateTime(String)
        case unsupportedZone(String)
        /// A local time that names no instant (`readings` 0: a spring-forward gap) or two (2: a fold).
        case notOneInstant(text: String, zone: String, readings: Int)
    }

    static func parseWhen(_ value: Any?, seeding: Bool) -> Result<When, WhenError> {
        guard let object = value as? [String: Any], let text = object["dateTime"] as? String else {
            return .failure(.missing)
        }
        let zoneName = (object["timeZone"] as? String) ?? (seeding ? "UTC" : "")
        guard let zone = timeZone(named: zoneName) else { return .failure(.unsupportedZone(zoneName)) }
        guard var local = GraphDateTime(text) else { return .failure(.badDateTime(text)) }
        // How Graph reads a local time in a gap or a fold is on no page: refused, so that nothing can come to
        // depend on a guess (docs/STAND-IN.md). Seeded events (Graph's own answers) are taken as they are.
        let readings = local.readings(in: zone)
        if !seeding, readings != 1 {
            return .failure(.notOneInstant(text: text, zone: zoneName, readings: readings))
        }
        let instant = local.instant(in: zone)
        if local.offset != nil { local = GraphDateTime(instant, in: zone) }
        local.offset = nil
        return .success(When(local: local, zone: zoneName, instant: instant))
    }

    static func extendedProperties(in value: Any?) -> [(id: String, value: String)] {
        (value as? [[String: Any]] ?? []).compactMap { item in
            guard let id = item["id"] as? String else { return nil }
            return (id, item["value"] as? String ?? "")
        }
    }

    /// Fills the properties Graph always returns on an event, keeping those already present.
    static func fillDefaults(_ fields: inout [String: Any], owner: StandInUser, start: When, end: When, now: Date) {
        let stamp = utcStamp(now)
        let varying: [String: Any] = [
            "createdDateTime": stamp,
            "lastModifiedDateTime": stamp,
            "changeKey": randomToken(length: 22),
            "originalStartTimeZone": start.zone,
            "originalEndTimeZone": end.zone,
            "iCalUId": "040000008200E00074C5B7101A82E00800000000" + randomHex(bytes: 24),
            "organizer": ["emailAddress": ["name": owner.displayName, "address": owner.mail]],
        ]
        for (key, value) in varying where fields[key] == nil {
            fields[key] = value
        }
        for (key, value) in constantDefaults where fields[key] == nil {
            fields[key] = value
        }
        if (fields["bodyPreview"] as? String ?? "").isEmpty, let body = fields["body"] as? [String: Any],
            let content = body["content"] as? String, !content.isEmpty
        {
            let text = (body["contentType"] as? String)?.lowercased() == "html" ? plainText(fromHTML: content) : content
            fields["bodyPreview"] = String(text.trimmingCharacters(in: .whitespacesAndNewlines).prefix(255))
        }
    }

    /// The properties every event has, with the values Graph gives them when a payload leaves them out.
    ///
    /// `nonisolated(unsafe)` because `[String: Any]` is not Sendable; safe because it is a constant of JSON
    /// values (as on `StoredEvent.fields`), read from any thread and never written.
    nonisolated(unsafe) static let constantDefaults: [String: Any] = [
        "categories": [String](),
        "transactionId": NSNull(),
        "reminderMinutesBeforeStart": 15,
        "isReminderOn": true,
        "hasAttachments": false,
        "subject": "",
        "bodyPreview": "",
        "importance": "normal",
        "sensitivity": "normal",
        "isCancelled": false,
        "isOrganizer": true,
        "responseRequested": true,
        "showAs": "busy",
        "isOnlineMeeting": false,
        "onlineMeetingProvider": "unknown",
        "onlineMeetingUrl": NSNull(),
        "onlineMeeting": NSNull(),
        "allowNewTimeProposals": true,
        "isDraft": false,
        "hideAttendees": false,
        "recurrence": NSNull(),
        "webLink": "https://outlook.office365.com/owa/?itemid=stand-in&exvsurl=1&path=/calendar/item",
        "responseStatus": ["response": "organizer", "time": "0001-01-01T00:00:00Z"],
        "body": ["contentType": "html", "content": ""],
        "location": [
            "displayName": "", "locationType": "default", "uniqueIdType": "unknown", "address": [String: Any](),
            "coordinates": [String: Any](),
        ] as [String: Any],
        "locations": [[String: Any]](),
        "attendees": [[String: Any]](),
    ]
}
