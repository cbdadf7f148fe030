// Stands in for Exchange's calendar store behind Graph's event endpoints: calendarView (occurrences,
// exceptions and single instances overlapping a window, ordered by start, paged), events by id, instances of
// a series, create (with transactionId de-duplication), update, delete, cancel, and the lookup of events by
// a single-value extended property that graph-ics uses to find what it imported. Creating or updating a
// meeting records the invitations Graph would mail.
import Foundation

/// One event in a calendar: its JSON properties plus the facts the stand-in queries on.
struct StoredEvent {
    var id: String
    var userID: String
    var calendarID: String
    /// Every property except `id`, `start`, `end`, `type`, `seriesMasterId`, `isAllDay` and the extended
    /// properties, which live in the fields below.
    var fields: [String: Any]
    var start: Date
    var end: Date
    /// Wall-clock start and end as written, in `startZone`/`endZone` (all-day events are shown this way).
    var startLocal: GraphDateTime
    var endLocal: GraphDateTime
    var startZone: String
    var endZone: String
    var isAllDay: Bool
    var type: String
    var seriesMasterID: String?
    var extendedProperties: [(id: String, value: String)]
    /// Insertion order, the tie-breaker for equal starts.
    var sequence: Int

    var attendeeAddresses: [String] {
        let attendees = fields["attendees"] as? [[String: Any]] ?? []
        return attendees.compactMap { ($0["emailAddress"] as? [String: Any])?["address"] as? String }
    }

    var isOrganizer: Bool { fields["isOrganizer"] as? Bool ?? true }
}

extension GraphStandIn {
    // MARK: Seeding

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
            return state.events.values.filter { $0.userID == owner.id }.sorted(by: Self.startOrder)
        }
        return stored.map { render($0, preferredZone: nil, bodyType: nil, expand: true) }
    }

    /// How many events (of every type) are stored, over all mailboxes.
    public var eventCount: Int { locked { $0.events.count } }

    // MARK: Reading JSON

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
    }

    static func parseWhen(_ value: Any?, seeding: Bool) -> Result<When, WhenError> {
        guard let object = value as? [String: Any], let text = object["dateTime"] as? String else {
            return .failure(.missing)
        }
        let zoneName = (object["timeZone"] as? String) ?? (seeding ? "UTC" : "")
        guard let zone = timeZone(named: zoneName) else { return .failure(.unsupportedZone(zoneName)) }
        guard var local = GraphDateTime(text) else { return .failure(.badDateTime(text)) }
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

    static func randomHex(bytes count: Int) -> String {
        let digits = Array("0123456789ABCDEF")
        var text = ""
        text.reserveCapacity(count * 2)
        for byte in random.bytes(count) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return text
    }

    // MARK: Rendering

    static func startOrder(_ lhs: StoredEvent, _ rhs: StoredEvent) -> Bool {
        if lhs.start != rhs.start { return lhs.start < rhs.start }
        if lhs.end != rhs.end { return lhs.end < rhs.end }
        return lhs.sequence < rhs.sequence
    }

    /// The event as Graph returns it: times in the preferred zone (UTC without one; all-day events keep
    /// their midnight wall times), the body in the preferred type, extended properties only when expanded.
    func render(
        _ event: StoredEvent, preferredZone: (name: String, zone: TimeZone)?, bodyType: String?, expand: Bool,
        expandFilter: String? = nil
    ) -> [String: Any] {
        var json = event.fields
        json["@odata.etag"] = "W/\"\(event.fields["changeKey"] as? String ?? "")\""
        json["id"] = event.id
        json["type"] = event.type
        json["seriesMasterId"] = event.seriesMasterID ?? NSNull()
        json["isAllDay"] = event.isAllDay
        let zoneName = preferredZone?.name ?? "UTC"
        let zone = preferredZone?.zone ?? Self.utc
        if event.isAllDay {
            json["start"] = ["dateTime": event.startLocal.graphText, "timeZone": zoneName]
            json["end"] = ["dateTime": event.endLocal.graphText, "timeZone": zoneName]
        } else {
            json["start"] = ["dateTime": GraphDateTime(event.start, in: zone).graphText, "timeZone": zoneName]
            json["end"] = ["dateTime": GraphDateTime(event.end, in: zone).graphText, "timeZone": zoneName]
        }
        if let body = json["body"] as? [String: Any], let content = body["content"] as? String {
            let stored = (body["contentType"] as? String ?? "html").lowercased()
            let wanted = bodyType ?? "html"
            if stored != wanted {
                json["body"] = [
                    "contentType": wanted,
                    "content": wanted == "text" ? Self.plainText(fromHTML: content) : Self.html(fromText: content),
                ]
            } else {
                json["body"] = ["contentType": wanted, "content": content]
            }
        }
        if expand {
            let wanted = event.extendedProperties.filter { property in
                expandFilter.map { Self.sameExtendedPropertyID($0, property.id) } ?? true
            }
            json["singleValueExtendedProperties"] = wanted.map { ["id": $0.id, "value": $0.value] }
        }
        return json
    }

    /// A crude HTML-to-text conversion, like Exchange's for `outlook.body-content-type="text"`.
    static func plainText(fromHTML html: String) -> String {
        var text = html
        for breakTag in ["<br>", "<br/>", "<br />", "</p>", "</div>", "</tr>", "</li>"] {
            text = text.replacingOccurrences(of: breakTag, with: "\n", options: .caseInsensitive)
        }
        if let head = text.range(of: "<head", options: .caseInsensitive),
            let headEnd = text.range(of: "</head>", options: .caseInsensitive, range: head.lowerBound..<text.endIndex)
        {
            text.removeSubrange(head.lowerBound..<headEnd.upperBound)
        }
        var result = ""
        var inTag = false
        for character in text {
            if character == "<" {
                inTag = true
            } else if character == ">" && inTag {
                inTag = false
            } else if !inTag {
                result.append(character)
            }
        }
        let entities = [
            ("&nbsp;", " "), ("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&apos;", "'"),
            ("&amp;", "&"),
        ]
        for (entity, replacement) in entities {
            result = result.replacingOccurrences(of: entity, with: replacement)
        }
        return result.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Text wrapped the way Exchange stores a text body as HTML.
    static func html(fromText text: String) -> String {
        let escaped = text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\r\n", with: "\n")
            .replacingOccurrences(of: "\n", with: "<br>\r\n")
        return "<html>\r\n<head>\r\n<meta http-equiv=\"Content-Type\" content=\"text/html; charset=utf-8\">\r\n"
            + "</head>\r\n<body>\r\n\(escaped)\r\n</body>\r\n</html>\r\n"
    }

    static func sameExtendedPropertyID(_ lhs: String, _ rhs: String) -> Bool {
        func normal(_ id: String) -> String {
            id.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ").lowercased()
        }
        return normal(lhs) == normal(rhs)
    }

    func renderForCall(_ event: StoredEvent, _ call: GraphCall, _ context: RequestContext) -> [String: Any] {
        let expansion = Self.expansion(call.query["$expand"])
        return select(
            render(
                event, preferredZone: context.preferredZone, bodyType: context.preferredBodyType,
                expand: expansion.expand, expandFilter: expansion.filter), call)
    }

    /// Reads `$expand=singleValueExtendedProperties($filter=id eq '…')`.
    static func expansion(_ raw: String?) -> (expand: Bool, filter: String?) {
        guard let raw, raw.lowercased().hasPrefix("singlevalueextendedproperties") else { return (false, nil) }
        guard let open = raw.firstIndex(of: "(") else { return (true, nil) }
        let inner = String(raw[raw.index(after: open)...])
        guard let match = firstMatch(#"id\s+eq\s+'((?:[^']|'')*)'"#, in: inner) else { return (true, nil) }
        return (true, match[1].replacingOccurrences(of: "''", with: "'"))
    }

    static func firstMatch(_ pattern: String, in text: String) -> [String]? {
        guard let regex = try? NSRegularExpression(pattern: pattern, options: [.caseInsensitive]),
            let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text))
        else { return nil }
        return (0..<match.numberOfRanges).map { index in
            Range(match.range(at: index), in: text).map { String(text[$0]) } ?? ""
        }
    }

    // MARK: calendarView and instances

    /// The `[start, end)` window of `startDateTime`/`endDateTime`, or Graph's 400 when either is missing.
    func window(_ call: GraphCall, _ context: RequestContext) -> Result<(Date, Date), Rejection> {
        guard let startText = call.query["startdatetime"], let endText = call.query["enddatetime"] else {
            return .failure(
                reject(
                    400, "ErrorInvalidParameter",
                    "This request requires a time window specified by the query string parameters StartDateTime and EndDateTime.",
                    context))
        }
        guard let start = Self.instant(fromQuery: startText) else {
            return .failure(
                reject(
                    400, "ErrorInvalidParameter", "The value '\(startText)' of parameter 'StartDateTime' is invalid.",
                    context))
        }
        guard let end = Self.instant(fromQuery: endText) else {
            return .failure(
                reject(
                    400, "ErrorInvalidParameter", "The value '\(endText)' of parameter 'EndDateTime' is invalid.",
                    context))
        }
        guard start <= end else {
            return .failure(
                reject(
                    400, "ErrorInvalidParameter", "The parameter 'EndDateTime' must be after 'StartDateTime'.", context)
            )
        }
        return .success((start, end))
    }

    static func overlaps(_ event: StoredEvent, _ start: Date, _ end: Date) -> Bool {
        if event.start == event.end { return event.start >= start && event.start < end }
        return event.start < end && event.end > start
    }

    func serveCalendarView(_ route: GraphRoute, calendarID: String?, _ call: GraphCall, _ context: RequestContext)
        -> LoopbackHTTPServer.Response
    {
        let range: (Date, Date)
        switch window(call, context) {
        case .success(let found): range = found
        case .failure(let rejection): return rejection.response
        }
        let found: [StoredEvent]? = locked { state in
            guard let calendar = state.calendar(calendarID, of: route.mailboxUserID) else { return nil }
            return state.events.values.filter {
                $0.userID == route.mailboxUserID && $0.calendarID == calendar.id && $0.type != "seriesMaster"
                    && Self.overlaps($0, range.0, range.1)
            }.sorted(by: Self.startOrder)
        }
        guard let found else {
            return graphError(404, "ErrorItemNotFound", "The specified object was not found in the store.", context)
        }
        return page(
            count: found.count, render: { found[$0].map { renderForCall($0, call, context) } },
            call, context, defaultTop: 10, maxTop: 1000, contextPath: "Collection(microsoft.graph.event)")
    }

    func serveInstances(_ route: GraphRoute, eventID: String, _ call: GraphCall, _ context: RequestContext)
        -> LoopbackHTTPServer.Response
    {
        let range: (Date, Date)
        switch window(call, context) {
        case .success(let found): range = found
        case .failure(let rejection): return rejection.response
        }
        let found: [StoredEvent]? = locked { state in
            guard let master = state.events[eventID], master.userID == route.mailboxUserID else { return nil }
            return state.events.values.filter {
                $0.seriesMasterID == master.id && $0.type != "seriesMaster" && Self.overlaps($0, range.0, range.1)
            }.sorted(by: Self.startOrder)
        }
        guard let found else {
            return graphError(404, "ErrorItemNotFound", "The specified object was not found in the store.", context)
        }
        return page(
            count: found.count, render: { found[$0].map { renderForCall($0, call, context) } },
            call, context, defaultTop: 10, maxTop: 1000, contextPath: "Collection(microsoft.graph.event)")
    }

    // MARK: Listing and lookup

    func getEvent(_ route: GraphRoute, id: String, _ call: GraphCall, _ context: RequestContext)
        -> LoopbackHTTPServer.Response
    {
        guard let event = locked({ $0.events[id] }), event.userID == route.mailboxUserID else {
            return graphError(404, "ErrorItemNotFound", "The specified object was not found in the store.", context)
        }
        var json = renderForCall(event, call, context)
        json["@odata.context"] = baseURL + "/$metadata#users('\(route.mailboxUserID)')/events/$entity"
        return graphJSON(200, json)
    }

    /// `GET events`: single instances and series masters of a calendar, optionally filtered by
    /// `singleValueExtendedProperties/Any(ep: ep/id eq '…' and ep/value eq '…')` or `iCalUId eq '…'`.
    func listEvents(_ route: GraphRoute, calendarID: String?, _ call: GraphCall, _ context: RequestContext)
        -> LoopbackHTTPServer.Response
    {
        var predicate: ((StoredEvent) -> Bool)?
        if let filter = call.query["$filter"], !filter.trimmingCharacters(in: .whitespaces).isEmpty {
            guard let parsed = Self.eventFilter(filter) else {
                return graphError(
                    400, "ErrorInvalidUrlQueryFilter", "The query filter '\(filter)' is not supported by the stand-in.",
                    context)
            }
            predicate = parsed
        }
        let found: [StoredEvent]? = locked { state in
            guard let calendar = state.calendar(calendarID, of: route.mailboxUserID) else { return nil }
            return state.events.values.filter {
                $0.userID == route.mailboxUserID && $0.calendarID == calendar.id
                    && ($0.type == "singleInstance" || $0.type == "seriesMaster") && (predicate?($0) ?? true)
            }.sorted { $0.sequence < $1.sequence }
        }
        guard let found else {
            return graphError(404, "ErrorItemNotFound", "The specified object was not found in the store.", context)
        }
        return page(
            count: found.count, render: { found[$0].map { renderForCall($0, call, context) } },
            call, context, defaultTop: 10, maxTop: 1000, contextPath: "Collection(microsoft.graph.event)")
    }

    /// The predicate of a supported `$filter`, nil for anything else.
    static func eventFilter(_ filter: String) -> ((StoredEvent) -> Bool)? {
        let extended =
            #"^\s*singleValueExtendedProperties/any\(\s*(\w+)\s*:\s*(.*)\)\s*$"#
        if let match = firstMatch(extended, in: filter) {
            let variable = NSRegularExpression.escapedPattern(for: match[1])
            let body = match[2]
            let clause =
                #"^\s*"# + variable + #"/id\s+eq\s+'((?:[^']|'')*)'\s*(?:and\s+"# + variable
                + #"/value\s+eq\s+'((?:[^']|'')*)'\s*)?$"#
            guard let parts = firstMatch(clause, in: body) else { return nil }
            let id = parts[1].replacingOccurrences(of: "''", with: "'")
            let value: String? = parts[2].isEmpty && !body.lowercased().contains("/value") ? nil : parts[2]
            let wanted = value?.replacingOccurrences(of: "''", with: "'")
            return { event in
                event.extendedProperties.contains { property in
                    sameExtendedPropertyID(property.id, id)
                        && (wanted.map { property.value.caseInsensitiveCompare($0) == .orderedSame } ?? true)
                }
            }
        }
        if let match = firstMatch(#"^\s*iCalUId\s+eq\s+'((?:[^']|'')*)'\s*$"#, in: filter) {
            let uid = match[1].replacingOccurrences(of: "''", with: "'")
            return { ($0.fields["iCalUId"] as? String) == uid }
        }
        return nil
    }
}
