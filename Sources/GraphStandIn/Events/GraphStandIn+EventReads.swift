// Graph's event reads: calendarView (occurrences, exceptions and single instances overlapping a window,
// ordered by start, paged), instances of a series, an event by id, and `GET events` with the `$filter`s
// graph-ics uses to find what it imported (a single-value extended property, `iCalUId`).
import Foundation

extension GraphStandIn {
    /// The `[start, end)` window of `startDateTime`/`endDateTime`, or Graph's 400 when either is missing or
    /// unreadable, the end comes first, or the window is longer than ``longestWindow``.
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
        guard end.timeIntervalSince(start) <= Self.longestWindow else {
            return .failure(
                reject(
                    400, "ErrorInvalidRequest",
                    "Your request can't be completed. The range between the start and end dates is greater than the "
                        + "allowed range. Maximum number of days: 1825", context))
        }
        return .success((start, end))
    }

    /// The longest `startDateTime`–`endDateTime` span calendarView and instances answer: 1825 days (Graph's
    /// 400 `ErrorInvalidRequest` for a longer one is on no page; microsoft-graph-docs-contrib issue 6321
    /// quotes it).
    static let longestWindow: TimeInterval = 1825 * 86_400

    /// `calendarView`: the occurrences, exceptions and single instances of a calendar that overlap the window.
    func serveCalendarView(_ route: GraphRoute, calendarID: String?, _ call: GraphCall, _ context: RequestContext)
        -> LoopbackHTTPServer.Response
    {
        serveWindow(call, context) { state, range in
            guard let calendar = state.calendar(calendarID, of: route.mailboxUserID) else { return nil }
            return state.events.values.filter {
                $0.userID == route.mailboxUserID && $0.calendarID == calendar.id && $0.type != "seriesMaster"
                    && $0.overlaps(range.0, range.1)
            }
        }
    }

    /// `instances`: the occurrences and exceptions of one series that overlap the window.
    func serveInstances(_ route: GraphRoute, eventID: String, _ call: GraphCall, _ context: RequestContext)
        -> LoopbackHTTPServer.Response
    {
        serveWindow(call, context) { state, range in
            guard let master = state.events[eventID], master.userID == route.mailboxUserID else { return nil }
            return state.events.values.filter {
                $0.seriesMasterID == master.id && $0.type != "seriesMaster" && $0.overlaps(range.0, range.1)
            }
        }
    }

    /// Reads the window, then pages the events `matching` picks for it in calendar order; `matching` returns
    /// nil when the calendar or series it looks in does not exist.
    private func serveWindow(
        _ call: GraphCall, _ context: RequestContext, matching: (State, (Date, Date)) -> [StoredEvent]?
    ) -> LoopbackHTTPServer.Response {
        let range: (Date, Date)
        switch window(call, context) {
        case .success(let found): range = found
        case .failure(let rejection): return rejection.response
        }
        let found = locked { state in matching(state, range)?.sorted(by: StoredEvent.startOrder) }
        return eventPage(found, call, context)
    }

    /// One page of events, or Graph's 404 when their calendar or series does not exist.
    private func eventPage(_ found: [StoredEvent]?, _ call: GraphCall, _ context: RequestContext)
        -> LoopbackHTTPServer.Response
    {
        guard let found else { return notFound(context) }
        return page(
            count: found.count, render: { found[$0].map { renderForCall($0, call, context) } },
            call, context, defaultTop: 10, maxTop: 1000, contextPath: "Collection(microsoft.graph.event)")
    }

    // MARK: Listing and lookup

    /// `GET events/{id}`: one event of the mailbox, whatever its type.
    func getEvent(_ route: GraphRoute, id: String, _ call: GraphCall, _ context: RequestContext)
        -> LoopbackHTTPServer.Response
    {
        guard let event = locked({ $0.events[id] }), event.userID == route.mailboxUserID else {
            return notFound(context)
        }
        var json = renderForCall(event, call, context)
        json["@odata.context"] = baseURL + "/$metadata#users('\(route.mailboxUserID)')/events/$entity"
        return graphJSON(200, json)
    }

    /// `GET events`: single instances and series masters of a calendar, optionally filtered by
    /// `singleValueExtendedProperties/Any(ep: ep/id eq '…' and ep/value eq '…')` or `iCalUId eq '…'`.
    /// The extended-property filter searches the whole mailbox (``extendedPropertyScope(_:calendarID:_:)``).
    func listEvents(_ route: GraphRoute, calendarID: String?, _ call: GraphCall, _ context: RequestContext)
        -> LoopbackHTTPServer.Response
    {
        var predicate: ((StoredEvent) -> Bool)?
        var wholeMailbox = false
        if let filter = call.query["$filter"], !filter.trimmingCharacters(in: .whitespaces).isEmpty {
            guard let parsed = Self.eventFilter(filter) else {
                return graphError(
                    400, "ErrorInvalidUrlQueryFilter", "The query filter '\(filter)' is not supported by the stand-in.",
                    context)
            }
            switch extendedPropertyScope(filter, calendarID: calendarID, context) {
            case .success(let mailbox): wholeMailbox = mailbox
            case .failure(let rejection): return rejection.response
            }
            predicate = parsed
        }
        let found: [StoredEvent]? = locked { state in
            guard let calendar = state.calendar(calendarID, of: route.mailboxUserID) else { return nil }
            return state.events.values.filter {
                $0.userID == route.mailboxUserID && (wholeMailbox || $0.calendarID == calendar.id)
                    && ($0.type == "singleInstance" || $0.type == "seriesMaster") && (predicate?($0) ?? true)
            }.sorted { $0.sequence < $1.sequence }
        }
        return eventPage(found, call, context)
    }

    /// Where a `$filter` on `singleValueExtendedProperties` looks, as
    /// `api/singlevaluelegacyextendedproperty-get.md` documents it: on `/me/events` and `/users/{id}/events`
    /// only, applied "to all instances of the resource in the signed-in user's mailbox" (true: every
    /// calendar). The page lists no calendar-scoped form (`/me/calendars/{id}/events`), so the stand-in
    /// refuses that one rather than guess what Graph does with it; false for other filters.
    func extendedPropertyScope(_ filter: String, calendarID: String?, _ context: RequestContext)
        -> Result<Bool, Rejection>
    {
        guard filter.lowercased().contains("singlevalueextendedproperties/") else { return .success(false) }
        guard calendarID == nil else {
            return .failure(
                reject(
                    400, "ErrorInvalidUrlQueryFilter",
                    "The stand-in takes a $filter on singleValueExtendedProperties only on /me/events and"
                        + " /users/{id}/events, where Graph documents it (it searches the whole mailbox).", context))
        }
        return .success(true)
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
