// Payload checks the way Graph makes them on POST and PATCH of an event: unknown properties, enum values and
// types, recipients, time zones it does not know, end before start, all-day times off midnight.
import Foundation

extension GraphStandIn {
    /// Properties of the v1.0 event type (lower-cased), navigation properties included: those of Graph's published
    /// metadata (`scripts/check-contract` compares them with it).
    static let eventProperties: Set<String> = [
        "allownewtimeproposals", "attendees", "body", "bodypreview", "cancelledoccurrences", "categories",
        "changekey", "createddatetime", "exceptionoccurrences",
        "end", "hasattachments", "hideattendees", "icaluid", "id", "importance", "isallday", "iscancelled",
        "isdraft", "isonlinemeeting", "isorganizer", "isreminderon", "lastmodifieddatetime", "location",
        "locations", "onlinemeeting", "onlinemeetingprovider", "onlinemeetingurl", "organizer",
        "originalendtimezone", "originalstart", "originalstarttimezone", "recurrence",
        "reminderminutesbeforestart", "responserequested", "responsestatus", "sensitivity", "seriesmasterid",
        "showas", "start", "subject", "transactionid", "type", "weblink", "attachments", "calendar", "extensions",
        "instances", "multivalueextendedproperties", "singlevalueextendedproperties",
    ]

    /// Read-only properties Graph ignores in a payload: those resources/event.md marks read-only (`onlineMeeting`
    /// among them: Graph makes the meeting from `isOnlineMeeting`), and ones Graph sets itself.
    static let readOnlyEventProperties: Set<String> = [
        "id", "changekey", "createddatetime", "lastmodifieddatetime", "icaluid", "type", "seriesmasterid", "weblink",
        "bodypreview", "hasattachments", "onlinemeeting", "onlinemeetingurl", "calendar", "instances",
        "exceptionoccurrences", "originalstart", "isorganizer", "responsestatus",
    ]

    static let enumValues: [String: (type: String, values: Set<String>)] = [
        "showAs": ("freeBusyStatus", ["free", "tentative", "busy", "oof", "workingElsewhere", "unknown"]),
        "sensitivity": ("sensitivity", ["normal", "personal", "private", "confidential"]),
        "importance": ("importance", ["low", "normal", "high"]),
        "onlineMeetingProvider": (
            "onlineMeetingProviderType", ["unknown", "skypeForBusiness", "skypeForConsumer", "teamsForBusiness"]
        ),
    ]

    /// Properties whose JSON type the stand-in checks, with the type Graph's metadata gives them.
    static let typedEventProperties: [(name: String, type: String, check: @Sendable (Any) -> Bool)] = [
        ("subject", "Edm.String", { $0 is String }),
        ("isAllDay", "Edm.Boolean", { $0 is Bool }),
        ("isReminderOn", "Edm.Boolean", { $0 is Bool }),
        ("reminderMinutesBeforeStart", "Edm.Int32", { $0 is Int }),
        ("categories", "Collection(Edm.String)", { $0 is [String] }),
        ("attendees", "Collection(microsoft.graph.attendee)", { $0 is [[String: Any]] }),
        ("transactionId", "Edm.String", { $0 is String }),
    ]

    /// Graph's 400 for a payload it cannot take, nil when the payload passes.
    func validateEventPayload(_ payload: [String: Any], _ context: RequestContext) -> LoopbackHTTPServer.Response? {
        let strict = locked { $0.rejectUnknownEventProperties }
        for key in payload.keys where !key.contains("@odata.") && !key.hasPrefix("@") {
            if strict && !Self.eventProperties.contains(key.lowercased()) {
                return graphError(
                    400, "RequestBodyRead",
                    "The property '\(key)' does not exist on type 'microsoft.graph.event'. Make sure to only use "
                        + "property names that are defined by the type or mark the type as open type.", context)
            }
        }
        for (key, (typeName, values)) in Self.enumValues {
            guard let value = payload[key], !(value is NSNull) else { continue }
            guard let text = value as? String,
                values.contains(text) || values.contains(where: { $0.lowercased() == text.lowercased() })
            else {
                return graphError(
                    400, "RequestBodyRead",
                    "Cannot convert the literal '\(value)' to the expected type 'microsoft.graph.\(typeName)'.", context
                )
            }
        }
        for (key, typeName, check) in Self.typedEventProperties {
            guard let value = payload[key], !(value is NSNull) else { continue }
            if !check(value) {
                return graphError(
                    400, "RequestBodyRead", "Cannot convert the value of '\(key)' to the expected type '\(typeName)'.",
                    context)
            }
        }
        if let attendees = payload["attendees"] as? [[String: Any]] {
            for attendee in attendees {
                let address = (attendee["emailAddress"] as? [String: Any])?["address"] as? String ?? ""
                if !address.contains("@") {
                    return graphError(
                        400, "ErrorInvalidRecipients", "At least one recipient isn't valid: '\(address)'.", context)
                }
            }
        }
        return nil
    }

    /// Graph's answer to a `dateTimeTimeZone` it cannot read.
    func whenError(_ error: WhenError, field: String, _ context: RequestContext) -> LoopbackHTTPServer.Response {
        switch error {
        case .missing:
            return graphError(
                400, "ErrorPropertyValidationFailure",
                "At least one property failed validation: '\(field)' is required.",
                context)
        case .unsupportedZone(let name):
            return graphError(
                400, "TimeZoneNotSupportedException",
                "A valid TimeZone value must be specified. The following TimeZone value is not supported: '\(name)'.",
                context)
        case .badDateTime(let text):
            return graphError(
                400, "UnableToDeserializePostBody", "were unable to deserialize the dateTime value '\(text)'.", context)
        case .notOneInstant(let text, let zone, let readings):
            // On no page: the stand-in's own refusal (docs/STAND-IN.md).
            let why = readings == 0 ? "does not exist (the clocks go forward)" : "occurs twice (the clocks go back)"
            return graphError(
                400, "ErrorPropertyValidationFailure",
                "At least one property failed validation: '\(field)' \(text) in '\(zone)' \(why); the graph-ics "
                    + "stand-in refuses a local time that names no instant or two.", context)
        }
    }

    /// Checks start before end and all-day times on midnight; nil when fine.
    func checkTimes(start: When, end: When, isAllDay: Bool, _ context: RequestContext) -> LoopbackHTTPServer.Response? {
        if end.instant < start.instant {
            return graphError(
                400, "ErrorPropertyValidationFailure", "At least one property failed validation.", context)
        }
        if isAllDay {
            let midnight = { (time: GraphDateTime) in
                time.hour == 0 && time.minute == 0 && time.second == 0 && time.ticks == 0
            }
            let days = (end.local.secondsAsUTC - start.local.secondsAsUTC) / 86_400
            if !midnight(start.local) || !midnight(end.local) || days < 1 {
                return graphError(
                    400, "ErrorPropertyValidationFailure",
                    "At least one property failed validation: an all-day event's start and end must be at midnight, "
                        + "at least a day apart.", context)
            }
        }
        return nil
    }

    static func parseBody(_ body: Data) -> [String: Any]? {
        guard !body.isEmpty else { return nil }
        return (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
    }

    func unreadableBody(_ context: RequestContext) -> LoopbackHTTPServer.Response {
        graphError(400, "UnableToDeserializePostBody", "were unable to deserialize ", context)
    }
}
