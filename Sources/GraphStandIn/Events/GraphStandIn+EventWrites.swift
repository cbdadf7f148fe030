// Stands in for Graph's event writes: POST events (201, transactionId de-duplication: the same body gets
// the first event, another body 400 ErrorDuplicateTransactionId; series expanded into
// occurrences, invitations to attendees), PATCH (merge; an occurrence becomes an exception; a master's
// change reaches its occurrences), DELETE (204) and POST cancel (202). Payloads are checked first
// (GraphStandIn+EventValidation.swift).
import Foundation

extension GraphStandIn {
    // MARK: Create

    /// A new event's times as its payload gives them, checked like Graph checks them.
    struct NewEventTimes {
        var start: When
        var end: When
        var isAllDay: Bool
        /// The wall-clock starts of the series' occurrences; empty for a single instance.
        var recurrenceStarts: [GraphDateTime]
    }

    /// What creating an event came to.
    enum CreateOutcome {
        /// Stored now, or (`existing`) stored earlier under the same `transactionId`.
        case created(StoredEvent, existing: Bool)
        case noCalendar, readOnly
        /// The `transactionId` was used before with another body.
        case duplicateTransaction
    }

    /// `POST events`: 201 with the event as stored, its `Location`, and invitations to its attendees.
    func createEvent(
        _ route: GraphRoute, calendarID: String?, _ call: GraphCall, _ principal: Principal, _ context: RequestContext
    ) -> LoopbackHTTPServer.Response {
        guard let payload = Self.parseBody(call.body) else { return unreadableBody(context) }
        if let problem = validateEventPayload(payload, context) { return problem }
        let times: NewEventTimes
        switch newEventTimes(payload, context) {
        case .success(let found): times = found
        case .failure(let rejection): return rejection.response
        }
        let outcome = locked { state in
            Self.insertEvent(payload, times, mailbox: route.mailboxUserID, calendarID: calendarID, in: &state)
        }
        switch outcome {
        case .noCalendar:
            return notFound(context)
        case .readOnly:
            return graphError(403, "ErrorAccessDenied", "Access is denied. Check credentials and try again.", context)
        case .duplicateTransaction:
            return graphError(
                400, "ErrorDuplicateTransactionId",
                "The transaction ID has already been used to create a different event.", context)
        case .created(let event, _):
            var json = renderForCall(event, call, context)
            json["@odata.context"] = baseURL + "/$metadata#users('\(route.mailboxUserID)')/events/$entity"
            var response = graphJSON(201, json)
            response.headers.append(("Location", baseURL + "/users('\(route.mailboxUserID)')/events('\(event.id)')"))
            return response
        }
    }

    /// Start, end, all-day and recurrence of a new event, in the order Graph checks them.
    func newEventTimes(_ payload: [String: Any], _ context: RequestContext) -> Result<NewEventTimes, Rejection> {
        let start: When
        let end: When
        switch payloadWhen(payload, "start", context) {
        case .success(let found): start = found
        case .failure(let rejection): return .failure(rejection)
        }
        switch payloadWhen(payload, "end", context) {
        case .success(let found): end = found
        case .failure(let rejection): return .failure(rejection)
        }
        let isAllDay = payload["isAllDay"] as? Bool ?? false
        if let problem = checkTimes(start: start, end: end, isAllDay: isAllDay, context) {
            return .failure(Rejection(response: problem))
        }
        var recurrenceStarts: [GraphDateTime] = []
        if let recurrence = payload["recurrence"] as? [String: Any] {
            switch recurrenceStartsResult(recurrence, from: start, context) {
            case .success(let starts): recurrenceStarts = starts
            case .failure(let rejection): return .failure(rejection)
            }
        }
        return .success(NewEventTimes(start: start, end: end, isAllDay: isAllDay, recurrenceStarts: recurrenceStarts))
    }

    /// Stores a new event (and its occurrences) in the mailbox's calendar, unless its `transactionId` names
    /// one stored before: with the same body that event is the answer (a new one when it was deleted since),
    /// with another body the create is refused, as Graph refuses it (alcionai/corso#2490); records the
    /// invitations Graph would mail.
    static func insertEvent(
        _ payload: [String: Any], _ times: NewEventTimes, mailbox: String, calendarID: String?, in state: inout State
    ) -> CreateOutcome {
        guard let owner = state.users.first(where: { $0.id == mailbox }),
            let calendar = state.calendar(calendarID, of: owner.id)
        else { return .noCalendar }
        guard calendar.canEdit else { return .readOnly }
        let transactionID = (payload["transactionId"] as? String).map { owner.id + "\n" + $0 }
        let body = try? JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])
        if let transactionID, let existingID = state.transactions[transactionID] {
            if let first = state.transactionBodies[transactionID], first != body { return .duplicateTransaction }
            if let existing = state.events[existingID] { return .created(existing, existing: true) }
        }
        let (start, end) = (times.start, times.end)
        let writable = writableFields(of: payload)
        var fields = writable.fields
        fields["organizer"] = ["emailAddress": ["name": owner.displayName, "address": owner.mail]]
        fields["isOrganizer"] = true
        fields["originalStartTimeZone"] = start.zone
        fields["originalEndTimeZone"] = end.zone
        fillDefaults(&fields, owner: owner, start: start, end: end, now: Date())
        state.nextSequence += 1
        let isSeries = !times.recurrenceStarts.isEmpty
        let event = StoredEvent(
            id: newItemID(), userID: owner.id, calendarID: calendar.id, fields: fields, start: start.instant,
            end: end.instant, startLocal: start.local, endLocal: end.local, startZone: start.zone,
            endZone: end.zone, isAllDay: times.isAllDay, type: isSeries ? "seriesMaster" : "singleInstance",
            seriesMasterID: nil, extendedProperties: writable.properties, sequence: state.nextSequence)
        state.events[event.id] = event
        if let transactionID {
            state.transactions[transactionID] = event.id
            state.transactionBodies[transactionID] = body
        }
        if isSeries { storeOccurrences(of: event, starts: times.recurrenceStarts, in: &state) }
        if !event.attendeeAddresses.isEmpty { state.sentInvitations += event.attendeeAddresses }
        return .created(event, existing: false)
    }

    // MARK: Update

    /// What a PATCH changes, checked: the times and the stored properties.
    struct EventUpdate {
        var start: When
        var end: When
        var isAllDay: Bool
        /// Whether the payload moves the event (names `start` or `end`).
        var movesTimes: Bool
        /// The series' new occurrence starts; nil keeps the occurrences it has.
        var recurrenceStarts: [GraphDateTime]?
        var changes: [String: Any]
        var properties: [(id: String, value: String)]
    }

    /// `PATCH events/{id}`: merges the payload into the event and answers it as stored.
    func updateEvent(_ route: GraphRoute, id: String, _ call: GraphCall, _ context: RequestContext)
        -> LoopbackHTTPServer.Response
    {
        guard let payload = Self.parseBody(call.body) else { return unreadableBody(context) }
        if let problem = validateEventPayload(payload, context) { return problem }
        guard let event = locked({ $0.events[id] }), event.userID == route.mailboxUserID else {
            return notFound(context)
        }
        if let stale = staleIfMatch(event, call, context) { return stale }
        let update: EventUpdate
        switch eventUpdate(payload, of: event, context) {
        case .success(let found): update = found
        case .failure(let rejection): return rejection.response
        }
        if update.movesTimes, locked({ Self.crossesNeighbour(event, movedTo: update.start.instant, in: $0) }) {
            // api/event-update.md (Response): "an occurrence cannot be moved to or before the day of the previous
            // occurrence, and cannot be moved to or after the day of the following occurrence".
            return graphError(
                400, "ErrorOccurrenceCrossingBoundary",
                "Modified occurrence is crossing or overlapping adjacent occurrence.", context)
        }
        let now = Date()
        let updated: StoredEvent? = locked { state in
            guard state.events[id] != nil else { return nil }
            return Self.store(update, to: event, in: &state, now: now)
        }
        guard let updated else { return notFound(context) }
        var json = renderForCall(updated, call, context)
        json["@odata.context"] = baseURL + "/$metadata#users('\(route.mailboxUserID)')/events/$entity"
        return graphJSON(200, json)
    }

    /// Reads a PATCH payload against the event it changes: times kept unless named, a series' occurrences
    /// recomputed when its times or recurrence change.
    func eventUpdate(_ payload: [String: Any], of event: StoredEvent, _ context: RequestContext)
        -> Result<EventUpdate, Rejection>
    {
        var start = When(local: event.startLocal, zone: event.startZone, instant: event.start)
        var end = When(local: event.endLocal, zone: event.endZone, instant: event.end)
        if payload["start"] != nil {
            switch payloadWhen(payload, "start", context) {
            case .success(let found): start = found
            case .failure(let rejection): return .failure(rejection)
            }
        }
        if payload["end"] != nil {
            switch payloadWhen(payload, "end", context) {
            case .success(let found): end = found
            case .failure(let rejection): return .failure(rejection)
            }
        }
        let isAllDay = payload["isAllDay"] as? Bool ?? event.isAllDay
        if let problem = checkTimes(start: start, end: end, isAllDay: isAllDay, context) {
            return .failure(Rejection(response: problem))
        }
        let timesChanged = payload["start"] != nil || payload["end"] != nil || payload["isAllDay"] != nil
        var recurrenceStarts: [GraphDateTime]?
        if event.type == "seriesMaster" || payload["recurrence"] is [String: Any],
            timesChanged || payload["recurrence"] != nil,
            let recurrence = payload["recurrence"] as? [String: Any] ?? event.fields["recurrence"] as? [String: Any]
        {
            switch recurrenceStartsResult(recurrence, from: start, context) {
            case .success(let starts): recurrenceStarts = starts
            case .failure(let rejection): return .failure(rejection)
            }
        }
        let writable = Self.writableFields(of: payload)
        var changes = writable.fields
        if let body = changes["body"] as? [String: Any] {
            let content = body["content"] as? String ?? ""
            let text = body["contentType"] as? String == "html" ? Self.plainText(fromHTML: content) : content
            changes["bodyPreview"] = String(text.trimmingCharacters(in: .whitespacesAndNewlines).prefix(255))
        }
        return .success(
            EventUpdate(
                start: start, end: end, isAllDay: isAllDay,
                movesTimes: payload["start"] != nil || payload["end"] != nil,
                recurrenceStarts: recurrenceStarts, changes: changes, properties: writable.properties))
    }

    /// Stores the updated event: an occurrence becomes an exception, a single instance given a recurrence
    /// becomes a series; a master's new recurrence replaces its occurrences, and its plain property changes
    /// reach the occurrences not changed on their own. New attendees are invited.
    static func store(_ update: EventUpdate, to original: StoredEvent, in state: inout State, now: Date)
        -> StoredEvent
    {
        var event = original
        apply(update.changes, properties: update.properties, to: &event, now: now)
        if disablesOnlineMeeting(update.changes, of: original) {
            // "Inadvertently removing the meeting blob from the body would disable meeting online"
            // (api/event-update.md, "body property and online meetings"). The blob's form is on no page, so
            // every new body counts as one without it.
            event.fields["isOnlineMeeting"] = false
            event.fields["onlineMeeting"] = NSNull()
            event.fields["onlineMeetingUrl"] = NSNull()
            state.disabledOnlineMeetings.append(event.id)
        }
        if update.movesTimes {
            event.start = update.start.instant
            event.end = update.end.instant
            event.startLocal = update.start.local
            event.endLocal = update.end.local
            event.startZone = update.start.zone
            event.endZone = update.end.zone
            event.fields["originalStartTimeZone"] = update.start.zone
            event.fields["originalEndTimeZone"] = update.end.zone
        }
        event.isAllDay = update.isAllDay
        if event.type == "occurrence" {
            event.type = "exception"
            touchMaster(of: event, in: &state, now: now)
        }
        if event.type == "singleInstance", let starts = update.recurrenceStarts, !starts.isEmpty {
            event.type = "seriesMaster"
        }
        state.events[event.id] = event
        if event.type == "seriesMaster" {
            if let starts = update.recurrenceStarts {
                for (key, other) in state.events where other.seriesMasterID == event.id { state.events[key] = nil }
                storeOccurrences(of: event, starts: starts, in: &state)
            } else {
                for (key, other) in state.events where other.seriesMasterID == event.id && other.type == "occurrence" {
                    var occurrence = other
                    apply(update.changes, properties: update.properties, to: &occurrence, now: now)
                    state.events[key] = occurrence
                }
            }
        }
        // A meeting's organizer changing more than its attendees mails every attendee an update
        // (api/event-update.md, "attendees property and meeting updates"); a change of only the organizer's
        // reminder (and extended properties) mails nobody: on no page, the careful reading graph-ics's
        // MailingRule makes too.
        let quiet: Set<String> = [
            "attendees", "isReminderOn", "reminderMinutesBeforeStart", "singleValueExtendedProperties",
        ]
        if original.isOrganizer, update.movesTimes || update.changes.keys.contains(where: { !quiet.contains($0) }) {
            state.sentUpdates += event.attendeeAddresses
        }
        if let attendees = update.changes["attendees"] as? [[String: Any]] {
            state.sentInvitations += attendees.compactMap {
                ($0["emailAddress"] as? [String: Any])?["address"] as? String
            }
        }
        return event
    }

    /// Whether moving the occurrence or exception `event` to start at `start` puts it on or before the day of
    /// the series' previous occurrence, or on or after the day of its following one (by original start; the
    /// neighbours where they are now), days counted in the series' zone.
    static func crossesNeighbour(_ event: StoredEvent, movedTo start: Date, in state: State) -> Bool {
        guard event.type == "occurrence" || event.type == "exception", let masterID = event.seriesMasterID,
            let master = state.events[masterID]
        else { return false }
        let range = (master.fields["recurrence"] as? [String: Any])?["range"] as? [String: Any]
        guard
            let zone = (range?["recurrenceTimeZone"] as? String).flatMap(timeZone(named:))
                ?? timeZone(named: master.startZone)
        else { return false }
        func original(_ other: StoredEvent) -> Date {
            (other.fields["originalStart"] as? String).flatMap { GraphDateTime($0)?.instant(in: utc) } ?? other.start
        }
        func day(_ instant: Date) -> Int {
            let local = GraphDateTime(instant, in: zone)
            return GraphDateTime.days(year: local.year, month: local.month, day: local.day)
        }
        let own = original(event)
        let siblings = state.events.values.filter { $0.seriesMasterID == masterID && $0.id != event.id }
        let previous = siblings.filter { original($0) < own }.max { original($0) < original($1) }
        let following = siblings.filter { original($0) > own }.min { original($0) < original($1) }
        let newDay = day(start)
        if let previous, newDay <= day(previous.start) { return true }
        if let following, newDay >= day(following.start) { return true }
        return false
    }

    /// Whether a PATCH replaces the body of an online meeting without turning the meeting off itself.
    static func disablesOnlineMeeting(_ changes: [String: Any], of event: StoredEvent) -> Bool {
        event.fields["isOnlineMeeting"] as? Bool == true && changes["body"] != nil
            && changes["isOnlineMeeting"] as? Bool != false
    }

    /// Merges changed properties and extended properties (matched by id) into an event, with a new change
    /// key; a recurrence reaches only masters and single instances.
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
        newVersion(of: &event, now: now)
    }

    // MARK: Payload parts shared by create and update

    /// The payload's `start` or `end`, or Graph's 400 naming the field.
    func payloadWhen(_ payload: [String: Any], _ field: String, _ context: RequestContext) -> Result<When, Rejection> {
        switch Self.parseWhen(payload[field], seeding: false) {
        case .success(let found): .success(found)
        case .failure(let error): .failure(Rejection(response: whenError(error, field: field, context)))
        }
    }

    /// The occurrence starts of a recurrence, or Graph's 400 for one it cannot take.
    func recurrenceStartsResult(_ recurrence: [String: Any], from start: When, _ context: RequestContext)
        -> Result<[GraphDateTime], Rejection>
    {
        switch Self.occurrenceStarts(recurrence, start: start) {
        case .success(let starts): .success(starts)
        case .failure(let problem): .failure(reject(400, "ErrorPropertyValidationFailure", problem.message, context))
        }
    }

    /// The properties of a payload that an event stores as they are: read-only ones, OData annotations and
    /// those kept apart (times, extended properties, attachments, extensions) left out, the body's type
    /// lower-cased; and the single-value extended properties it sets.
    static func writableFields(of payload: [String: Any]) -> (
        fields: [String: Any], properties: [(id: String, value: String)]
    ) {
        var fields = payload.filter { key, _ in
            !readOnlyEventProperties.contains(key.lowercased()) && !key.hasPrefix("@odata.")
        }
        let properties = extendedProperties(in: fields.removeValue(forKey: "singleValueExtendedProperties"))
        for key in ["start", "end", "isAllDay", "multiValueExtendedProperties", "attachments", "extensions"] {
            fields.removeValue(forKey: key)
        }
        if let body = fields["body"] as? [String: Any] {
            fields["body"] = [
                "contentType": (body["contentType"] as? String ?? "text").lowercased(),
                "content": body["content"] as? String ?? "",
            ]
        }
        return (fields, properties)
    }

    // MARK: Delete and cancel

    func deleteEvent(_ route: GraphRoute, id: String, _ call: GraphCall, _ context: RequestContext)
        -> LoopbackHTTPServer.Response
    {
        if let event = locked({ $0.events[id] }), event.userID == route.mailboxUserID,
            let stale = staleIfMatch(event, call, context)
        {
            return stale
        }
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
        touchMaster(of: event, in: &state, now: Date())
        if event.type == "seriesMaster" {
            for (key, other) in state.events where other.seriesMasterID == event.id { state.events[key] = nil }
        }
    }
}
