// Stands in for Graph's event writes: POST events (201, transactionId de-duplication, series expanded into
// occurrences, invitations to attendees), PATCH (merge; an occurrence becomes an exception; a master's
// change reaches its occurrences), DELETE (204) and POST cancel (202). Payloads are checked the way Graph
// checks them: unknown properties, time zones it does not know, end before start, all-day times off midnight.
import Foundation

extension GraphStandIn {
    /// Properties of the v1.0 event type (lower-cased), navigation properties included.
    static let eventProperties: Set<String> = [
        "allownewtimeproposals", "attendees", "body", "bodypreview", "categories", "changekey", "createddatetime",
        "end", "hasattachments", "hideattendees", "icaluid", "id", "importance", "isallday", "iscancelled",
        "isdraft", "isonlinemeeting", "isorganizer", "isreminderon", "lastmodifieddatetime", "location",
        "locations", "onlinemeeting", "onlinemeetingprovider", "onlinemeetingurl", "organizer",
        "originalendtimezone", "originalstart", "originalstarttimezone", "recurrence",
        "reminderminutesbeforestart", "responserequested", "responsestatus", "sensitivity", "seriesmasterid",
        "showas", "start", "subject", "transactionid", "type", "weblink", "attachments", "calendar", "extensions",
        "instances", "multivalueextendedproperties", "singlevalueextendedproperties",
    ]

    /// Read-only properties Graph ignores in a payload.
    static let readOnlyEventProperties: Set<String> = [
        "id", "changekey", "createddatetime", "lastmodifieddatetime", "icaluid", "type", "seriesmasterid", "weblink",
        "bodypreview", "hasattachments", "onlinemeetingurl", "calendar", "instances", "originalstart",
        "isorganizer", "responsestatus",
    ]

    static let enumValues: [String: (type: String, values: Set<String>)] = [
        "showAs": ("freeBusyStatus", ["free", "tentative", "busy", "oof", "workingElsewhere", "unknown"]),
        "sensitivity": ("sensitivity", ["normal", "personal", "private", "confidential"]),
        "importance": ("importance", ["low", "normal", "high"]),
        "onlineMeetingProvider": (
            "onlineMeetingProviderType", ["unknown", "skypeForBusiness", "skypeForConsumer", "teamsForBusiness"]
        ),
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
        let typed: [(String, (Any) -> Bool, String)] = [
            ("subject", { $0 is String }, "Edm.String"),
            ("isAllDay", { $0 is Bool }, "Edm.Boolean"),
            ("isReminderOn", { $0 is Bool }, "Edm.Boolean"),
            ("reminderMinutesBeforeStart", { $0 is Int }, "Edm.Int32"),
            ("categories", { $0 is [String] }, "Collection(Edm.String)"),
            ("attendees", { $0 is [[String: Any]] }, "Collection(microsoft.graph.attendee)"),
            ("transactionId", { $0 is String }, "Edm.String"),
        ]
        for (key, check, typeName) in typed {
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

    func notFound(_ context: RequestContext) -> LoopbackHTTPServer.Response {
        graphError(404, "ErrorItemNotFound", "The specified object was not found in the store.", context)
    }

    // MARK: Create

    func createEvent(
        _ route: GraphRoute, calendarID: String?, _ call: GraphCall, _ principal: Principal, _ context: RequestContext
    ) -> LoopbackHTTPServer.Response {
        guard let payload = Self.parseBody(call.body) else { return unreadableBody(context) }
        if let problem = validateEventPayload(payload, context) { return problem }
        let start: When
        let end: When
        switch Self.parseWhen(payload["start"], seeding: false) {
        case .success(let found): start = found
        case .failure(let error): return whenError(error, field: "start", context)
        }
        switch Self.parseWhen(payload["end"], seeding: false) {
        case .success(let found): end = found
        case .failure(let error): return whenError(error, field: "end", context)
        }
        let isAllDay = payload["isAllDay"] as? Bool ?? false
        if let problem = checkTimes(start: start, end: end, isAllDay: isAllDay, context) { return problem }
        var recurrenceStarts: [GraphDateTime] = []
        if let recurrence = payload["recurrence"] as? [String: Any] {
            switch Self.occurrenceStarts(recurrence, masterStart: start.local) {
            case .success(let starts): recurrenceStarts = starts
            case .failure(let problem):
                return graphError(400, "ErrorPropertyValidationFailure", problem.message, context)
            }
        }

        enum Outcome {
            case created(StoredEvent, existing: Bool)
            case noCalendar, readOnly
        }
        let outcome: Outcome = locked { state in
            guard let owner = state.users.first(where: { $0.id == route.mailboxUserID }),
                let calendar = state.calendar(calendarID, of: owner.id)
            else { return .noCalendar }
            guard calendar.canEdit else { return .readOnly }
            let transactionID = payload["transactionId"] as? String
            if let transactionID, let existingID = state.transactions[owner.id + "\n" + transactionID],
                let existing = state.events[existingID]
            {
                return .created(existing, existing: true)
            }
            var fields = payload.filter { key, _ in
                !Self.readOnlyEventProperties.contains(key.lowercased()) && !key.hasPrefix("@odata.")
            }
            let properties = Self.extendedProperties(in: fields.removeValue(forKey: "singleValueExtendedProperties"))
            for key in ["start", "end", "isAllDay", "multiValueExtendedProperties", "attachments", "extensions"] {
                fields.removeValue(forKey: key)
            }
            fields["organizer"] = ["emailAddress": ["name": owner.displayName, "address": owner.mail]]
            fields["isOrganizer"] = true
            fields["originalStartTimeZone"] = start.zone
            fields["originalEndTimeZone"] = end.zone
            if let body = fields["body"] as? [String: Any] {
                fields["body"] = [
                    "contentType": (body["contentType"] as? String ?? "text").lowercased(),
                    "content": body["content"] as? String ?? "",
                ]
            }
            Self.fillDefaults(&fields, owner: owner, start: start, end: end, now: Date())
            state.nextSequence += 1
            let isSeries = !recurrenceStarts.isEmpty
            let event = StoredEvent(
                id: Self.newItemID(), userID: owner.id, calendarID: calendar.id, fields: fields, start: start.instant,
                end: end.instant, startLocal: start.local, endLocal: end.local, startZone: start.zone,
                endZone: end.zone, isAllDay: isAllDay, type: isSeries ? "seriesMaster" : "singleInstance",
                seriesMasterID: nil, extendedProperties: properties, sequence: state.nextSequence)
            state.events[event.id] = event
            if let transactionID { state.transactions[owner.id + "\n" + transactionID] = event.id }
            if isSeries { Self.storeOccurrences(of: event, starts: recurrenceStarts, in: &state) }
            if !event.attendeeAddresses.isEmpty { state.sentInvitations += event.attendeeAddresses }
            return .created(event, existing: false)
        }
        switch outcome {
        case .noCalendar:
            return notFound(context)
        case .readOnly:
            return graphError(403, "ErrorAccessDenied", "Access is denied. Check credentials and try again.", context)
        case .created(let event, _):
            var json = renderForCall(event, call, context)
            json["@odata.context"] = baseURL + "/$metadata#users('\(route.mailboxUserID)')/events/$entity"
            var response = graphJSON(201, json)
            response.headers.append(("Location", baseURL + "/users('\(route.mailboxUserID)')/events('\(event.id)')"))
            return response
        }
    }

    // MARK: Update

    func updateEvent(_ route: GraphRoute, id: String, _ call: GraphCall, _ context: RequestContext)
        -> LoopbackHTTPServer.Response
    {
        guard let payload = Self.parseBody(call.body) else { return unreadableBody(context) }
        if let problem = validateEventPayload(payload, context) { return problem }
        guard var event = locked({ $0.events[id] }), event.userID == route.mailboxUserID else {
            return notFound(context)
        }
        var start = When(local: event.startLocal, zone: event.startZone, instant: event.start)
        var end = When(local: event.endLocal, zone: event.endZone, instant: event.end)
        if payload["start"] != nil {
            switch Self.parseWhen(payload["start"], seeding: false) {
            case .success(let found): start = found
            case .failure(let error): return whenError(error, field: "start", context)
            }
        }
        if payload["end"] != nil {
            switch Self.parseWhen(payload["end"], seeding: false) {
            case .success(let found): end = found
            case .failure(let error): return whenError(error, field: "end", context)
            }
        }
        let isAllDay = payload["isAllDay"] as? Bool ?? event.isAllDay
        if let problem = checkTimes(start: start, end: end, isAllDay: isAllDay, context) { return problem }
        let timesChanged = payload["start"] != nil || payload["end"] != nil || payload["isAllDay"] != nil
        var recurrenceStarts: [GraphDateTime]?
        if event.type == "seriesMaster" || payload["recurrence"] is [String: Any] {
            if timesChanged || payload["recurrence"] != nil {
                let recurrence = payload["recurrence"] as? [String: Any] ?? event.fields["recurrence"] as? [String: Any]
                if let recurrence {
                    switch Self.occurrenceStarts(recurrence, masterStart: start.local) {
                    case .success(let starts): recurrenceStarts = starts
                    case .failure(let problem):
                        return graphError(400, "ErrorPropertyValidationFailure", problem.message, context)
                    }
                }
            }
        }

        var changes = payload.filter { key, _ in
            !Self.readOnlyEventProperties.contains(key.lowercased()) && !key.hasPrefix("@odata.")
        }
        let newProperties = Self.extendedProperties(in: changes.removeValue(forKey: "singleValueExtendedProperties"))
        for key in ["start", "end", "isAllDay", "multiValueExtendedProperties", "attachments", "extensions"] {
            changes.removeValue(forKey: key)
        }
        if let body = changes["body"] as? [String: Any] {
            changes["body"] = [
                "contentType": (body["contentType"] as? String ?? "text").lowercased(),
                "content": body["content"] as? String ?? "",
            ]
            let content = body["content"] as? String ?? ""
            let text =
                (body["contentType"] as? String)?.lowercased() == "html" ? Self.plainText(fromHTML: content) : content
            changes["bodyPreview"] = String(text.trimmingCharacters(in: .whitespacesAndNewlines).prefix(255))
        }
        let now = Date()
        let updated: StoredEvent? = locked { state in
            guard state.events[id] != nil else { return nil }
            Self.apply(changes, properties: newProperties, to: &event, now: now)
            if payload["start"] != nil || payload["end"] != nil {
                event.start = start.instant
                event.end = end.instant
                event.startLocal = start.local
                event.endLocal = end.local
                event.startZone = start.zone
                event.endZone = end.zone
                event.fields["originalStartTimeZone"] = start.zone
                event.fields["originalEndTimeZone"] = end.zone
            }
            event.isAllDay = isAllDay
            if event.type == "occurrence" { event.type = "exception" }
            if event.type == "singleInstance", let starts = recurrenceStarts, !starts.isEmpty {
                event.type = "seriesMaster"
            }
            state.events[id] = event
            if event.type == "seriesMaster" {
                if let starts = recurrenceStarts {
                    for (key, other) in state.events where other.seriesMasterID == id { state.events[key] = nil }
                    Self.storeOccurrences(of: event, starts: starts, in: &state)
                } else {
                    // Plain property changes reach the occurrences that were not changed on their own.
                    for (key, other) in state.events where other.seriesMasterID == id && other.type == "occurrence" {
                        var occurrence = other
                        Self.apply(changes, properties: newProperties, to: &occurrence, now: now)
                        state.events[key] = occurrence
                    }
                }
            }
            if let attendees = changes["attendees"] as? [[String: Any]] {
                state.sentInvitations += attendees.compactMap {
                    ($0["emailAddress"] as? [String: Any])?["address"] as? String
                }
            }
            return event
        }
        guard let updated else { return notFound(context) }
        var json = renderForCall(updated, call, context)
        json["@odata.context"] = baseURL + "/$metadata#users('\(route.mailboxUserID)')/events/$entity"
        return graphJSON(200, json)
    }

    static func apply(
        _ changes: [String: Any], properties: [(id: String, value: String)], to event: inout StoredEvent, now: Date
    ) {
        for (key, value) in changes {
            if key == "recurrence" && event.type != "seriesMaster" && event.type != "singleInstance" { continue }
            event.fields[key] = value
        }
        for property in properties {
            if let index = event.extendedProperties.firstIndex(where: { sameExtendedPropertyID($0.id, property.id) }) {
                event.extendedProperties[index].value = property.value
            } else {
                event.extendedProperties.append(property)
            }
        }
        event.fields["lastModifiedDateTime"] = utcStamp(now)
        event.fields["changeKey"] = randomToken(length: 22)
    }

    // MARK: Delete and cancel

    func deleteEvent(_ route: GraphRoute, id: String, _ context: RequestContext) -> LoopbackHTTPServer.Response {
        let removed: Bool = locked { state in
            guard let event = state.events[id], event.userID == route.mailboxUserID else { return false }
            Self.remove(event, notify: event.isOrganizer, in: &state)
            return true
        }
        return removed ? LoopbackHTTPServer.Response(status: 204) : notFound(context)
    }

    /// `POST events/{id}/cancel`: only an organizer may; attendees are told, and the event leaves the
    /// organizer's calendar (an occurrence leaves its series).
    func cancelEvent(_ route: GraphRoute, id: String, _ call: GraphCall, _ context: RequestContext)
        -> LoopbackHTTPServer.Response
    {
        if !call.body.isEmpty && Self.parseBody(call.body) == nil { return unreadableBody(context) }
        enum Outcome { case done, missing, notOrganizer }
        let outcome: Outcome = locked { state in
            guard let event = state.events[id], event.userID == route.mailboxUserID else { return .missing }
            guard event.isOrganizer else { return .notOrganizer }
            Self.remove(event, notify: true, in: &state)
            return .done
        }
        switch outcome {
        case .done: return LoopbackHTTPServer.Response(status: 202)
        case .missing: return notFound(context)
        case .notOrganizer:
            return graphError(
                400, "ErrorInvalidRequest",
                "Your request can't be completed. You need to be an organizer to cancel a meeting.", context)
        }
    }

    /// Removes an event (a master with its occurrences and exceptions), telling attendees when asked.
    static func remove(_ event: StoredEvent, notify: Bool, in state: inout State) {
        if notify { state.sentCancellations += event.attendeeAddresses }
        state.events[event.id] = nil
        if event.type == "seriesMaster" {
            for (key, other) in state.events where other.seriesMasterID == event.id { state.events[key] = nil }
        }
    }

    // MARK: Occurrences

    /// Stores one occurrence per start, copying the master's properties.
    static func storeOccurrences(of master: StoredEvent, starts: [GraphDateTime], in state: inout State) {
        guard let zone = timeZone(named: master.startZone) else { return }
        let endZone = timeZone(named: master.endZone) ?? zone
        let wallLength = master.endLocal.secondsAsUTC - master.startLocal.secondsAsUTC
        let length = master.end.timeIntervalSince(master.start)
        var fields = master.fields
        fields["recurrence"] = NSNull()
        fields["transactionId"] = NSNull()
        for startLocal in starts {
            let startInstant = startLocal.instant(in: zone)
            let endInstant: Date
            let endLocal: GraphDateTime
            if master.isAllDay {
                endLocal = startLocal.adding(days: wallLength / 86_400)
                endInstant = endLocal.instant(in: endZone)
            } else {
                endInstant = startInstant.addingTimeInterval(length)
                endLocal = GraphDateTime(endInstant, in: endZone)
            }
            var own = fields
            own["iCalUId"] = "040000008200E00074C5B7101A82E00807" + randomHex(bytes: 26)
            own["originalStart"] = utcStamp(startInstant)
            state.nextSequence += 1
            let occurrence = StoredEvent(
                id: newItemID(prefix: "AAMkAGI2Occ"), userID: master.userID, calendarID: master.calendarID,
                fields: own, start: startInstant, end: endInstant, startLocal: startLocal,
                endLocal: GraphDateTime(
                    year: endLocal.year, month: endLocal.month, day: endLocal.day, hour: endLocal.hour,
                    minute: endLocal.minute, second: endLocal.second, ticks: endLocal.ticks),
                startZone: master.startZone, endZone: master.endZone, isAllDay: master.isAllDay, type: "occurrence",
                seriesMasterID: master.id, extendedProperties: master.extendedProperties, sequence: state.nextSequence)
            state.events[occurrence.id] = occurrence
        }
    }
}
