// How tests fill calendars and read them back: events from Graph JSON (single objects, collections, arrays),
// evenly spread simple events, and stored events rendered like `GET event`.
import Foundation

extension GraphStandIn {
    /// Seeds one event from its Graph JSON (as a calendarView or `GET event` would return it).
    ///
    /// `start`/`end` are `{dateTime, timeZone}` objects (any zone Graph accepts; a `dateTime` with `Z` or an
    /// offset is read as that instant). `type` may be `singleInstance` (default), `occurrence`, `exception`
    /// or `seriesMaster`; occurrences and exceptions name their master in `seriesMasterId`. A series is
    /// seeded as its master plus explicit occurrence objects: the stand-in expands no recurrence for seeded
    /// events. Missing read-only properties (`id`, `iCalUId`, `createdDateTime`, …) are filled in.
    ///
    /// - Parameters:
    ///   - user: the mailbox owner's id, UPN or mail; nil means the first user.
    ///   - calendar: a calendar id of that user; nil means the default calendar.
    /// - Returns: the event's id.
    @discardableResult
    public func addEvent(_ json: [String: Any], user: String? = nil, calendar: String? = nil) throws -> String {
        let ownerID = ensureUser(user)
        return try locked { state in
            guard let owner = state.users.first(where: { $0.id == ownerID }),
                let target = state.calendar(calendar, of: ownerID)
            else {
                throw SeedError(description: "no calendar \(calendar ?? "(default)") for \(user ?? "(first user)")")
            }
            var fields = json
            let id = (fields.removeValue(forKey: "id") as? String) ?? Self.newItemID()
            guard case .success(let start) = Self.parseWhen(fields["start"], seeding: true),
                case .success(let end) = Self.parseWhen(fields["end"], seeding: true)
            else { throw SeedError(description: "event \(id) has no usable start/end") }
            let type = (fields.removeValue(forKey: "type") as? String) ?? "singleInstance"
            let master = fields.removeValue(forKey: "seriesMasterId") as? String
            let isAllDay = (fields.removeValue(forKey: "isAllDay") as? Bool) ?? false
            let properties = Self.extendedProperties(in: fields.removeValue(forKey: "singleValueExtendedProperties"))
            fields.removeValue(forKey: "start")
            fields.removeValue(forKey: "end")
            fields.removeValue(forKey: "@odata.etag")
            Self.fillDefaults(&fields, owner: owner, start: start, end: end, now: Date())
            state.nextSequence += 1
            let event = StoredEvent(
                id: id, userID: ownerID, calendarID: target.id, fields: fields, start: start.instant, end: end.instant,
                startLocal: start.local, endLocal: end.local, startZone: start.zone, endZone: end.zone,
                isAllDay: isAllDay, type: type, seriesMasterID: master, extendedProperties: properties,
                sequence: state.nextSequence)
            state.events[id] = event
            if let transactionID = fields["transactionId"] as? String {
                state.transactions[ownerID + "\n" + transactionID] = id
            }
            return id
        }
    }

    /// Seeds one event from JSON bytes (a single event object).
    @discardableResult
    public func addEvent(_ data: Data, user: String? = nil, calendar: String? = nil) throws -> String {
        guard let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw SeedError(description: "event JSON is not an object")
        }
        return try addEvent(json, user: user, calendar: calendar)
    }

    /// Seeds every event of a Graph JSON document: a collection (`{"value": [...]}`), an array, or one event.
    @discardableResult
    public func addEvents(fromGraphJSON data: Data, user: String? = nil, calendar: String? = nil) throws -> [String] {
        let object = try JSONSerialization.jsonObject(with: data)
        let items: [[String: Any]]
        if let document = object as? [String: Any], let value = document["value"] as? [[String: Any]] {
            items = value
        } else if let array = object as? [[String: Any]] {
            items = array
        } else if let single = object as? [String: Any] {
            items = [single]
        } else {
            throw SeedError(description: "not a Graph event document")
        }
        return try items.map { try addEvent($0, user: user, calendar: calendar) }
    }

    /// Seeds `count` simple single-instance events with starts spread evenly over `[from, to)`, each
    /// `duration` long, subjects "`subject` 1", "`subject` 2", …; returns their ids in start order.
    @discardableResult
    public func addEvents(
        count: Int, from: Date, to: Date, duration: Duration = .seconds(1800), subject: String = "Event",
        user: String? = nil, calendar: String? = nil
    ) throws -> [String] {
        guard count > 0 else { return [] }
        let span = to.timeIntervalSince(from)
        let length = Self.seconds(duration)
        return try (0..<count).map { index in
            let start = from.addingTimeInterval(span * Double(index) / Double(count))
            let end = start.addingTimeInterval(length)
            return try addEvent(
                [
                    "subject": "\(subject) \(index + 1)",
                    "start": ["dateTime": GraphDateTime(start, in: Self.utc).graphText, "timeZone": "UTC"],
                    "end": ["dateTime": GraphDateTime(end, in: Self.utc).graphText, "timeZone": "UTC"],
                ], user: user, calendar: calendar)
        }
    }

    /// An event as stored, rendered like `GET event` without preferences (times in UTC, extended
    /// properties included); nil when there is no such event.
    public func event(id: String) -> [String: Any]? {
        locked { state in state.events[id] }.map { render($0, preferredZone: nil, bodyType: nil, expand: true) }
    }

    /// Every stored event of a user (all calendars), rendered like `event(id:)`, in start order.
    public func events(user: String? = nil) -> [[String: Any]] {
        let stored: [StoredEvent] = locked { state in
            guard let owner = state.user(user) else { return [] }
            return state.events.values.filter { $0.userID == owner.id }.sorted(by: StoredEvent.startOrder)
        }
        return stored.map { render($0, preferredZone: nil, bodyType: nil, expand: true) }
    }

    /// How many events (of every type) are stored, over all mailboxes.
    public var eventCount: Int { locked { $0.events.count } }
}
