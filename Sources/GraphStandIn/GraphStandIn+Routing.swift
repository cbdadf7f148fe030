// Stands in for Graph's URL handling: `/me` and `/users/{id|upn}` resolved to a mailbox, resource segments
// matched case-insensitively, permissions checked per resource (Calendars.Read for reads,
// Calendars.ReadWrite for writes), OData paging with `$top`, `$skiptoken` and absolute `@odata.nextLink`s,
// and `$select`.
import Foundation

/// What a Graph URL asks for, once `/me` or `/users/{key}` is resolved to a mailbox.
struct GraphRoute {
    enum Resource {
        case user
        case mailboxSettings(field: String?)
        case calendars
        case calendar(id: String?)
        case calendarView(calendarID: String?)
        case events(calendarID: String?)
        case event(id: String)
        case instances(eventID: String)
        case cancel(eventID: String)
    }

    /// The id of the mailbox owner the URL addresses.
    var mailboxUserID: String
    /// `me` or the key as written in `/users/{key}`.
    var userKey: String
    var resource: Resource

    enum Access {
        case readUser, readMailboxSettings, readCalendars, writeCalendars
    }
}

extension GraphStandIn {
    func resolveRoute(_ call: GraphCall, _ principal: Principal, _ context: RequestContext)
        -> Result<GraphRoute, Rejection>
    {
        var segments = call.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard segments.first == "v1.0" else {
            return .failure(reject(400, "BadRequest", "Invalid version.", context))
        }
        segments.removeFirst()
        guard let head = segments.first else {
            return .failure(reject(400, "BadRequest", "Invalid request.", context))
        }
        let userKey: String
        let userID: String
        switch head.lowercased() {
        case "me":
            guard case .user(let id, _) = principal else {
                return .failure(
                    reject(400, "BadRequest", "/me request is only valid with delegated authentication flow.", context))
            }
            userKey = "me"
            userID = id
            segments.removeFirst()
        case "users":
            guard segments.count >= 2 else {
                return .failure(reject(400, "BadRequest", "Listing users is not supported by the stand-in.", context))
            }
            userKey = segments[1]
            guard let user = locked({ $0.users.first { $0.matches(userKey) } }) else {
                if segments.count == 2 {
                    return .failure(
                        reject(404, "Request_ResourceNotFound", "Resource '\(userKey)' does not exist.", context))
                }
                return .failure(
                    reject(404, "ErrorInvalidUser", "The requested user '\(userKey)' is invalid.", context))
            }
            userID = user.id
            segments.removeFirst(2)
        default:
            return .failure(reject(400, "BadRequest", "Resource not found for the segment '\(head)'.", context))
        }

        let lower = segments.map { $0.lowercased() }
        let resource: GraphRoute.Resource?
        switch lower.count {
        case 0:
            resource = .user
        case 1:
            switch lower[0] {
            case "mailboxsettings": resource = .mailboxSettings(field: nil)
            case "calendars": resource = .calendars
            case "calendar": resource = .calendar(id: nil)
            case "calendarview": resource = .calendarView(calendarID: nil)
            case "events": resource = .events(calendarID: nil)
            default: resource = nil
            }
        default:
            resource = Self.calendarResource(segments, lower)
        }
        guard let resource else {
            let bad = segments.first { !Self.knownSegments.contains($0.lowercased()) } ?? segments.last ?? ""
            return .failure(reject(400, "BadRequest", "Resource not found for the segment '\(bad)'.", context))
        }
        return .success(GraphRoute(mailboxUserID: userID, userKey: userKey, resource: resource))
    }

    static let knownSegments: Set<String> = [
        "mailboxsettings", "calendars", "calendar", "calendarview", "events", "instances", "cancel",
    ]

    /// Routes below `/me` with two or more segments.
    static func calendarResource(_ segments: [String], _ lower: [String]) -> GraphRoute.Resource? {
        if lower.count == 2 && lower[0] == "mailboxsettings" { return .mailboxSettings(field: segments[1]) }
        // Strip a calendar prefix: calendar/… or calendars/{id}/…
        var rest = Array(segments)
        var restLower = lower
        var calendarID: String?
        if restLower.first == "calendar" {
            rest.removeFirst()
            restLower.removeFirst()
        } else if restLower.first == "calendars" && rest.count >= 2 {
            calendarID = rest[1]
            if rest.count == 2 { return .calendar(id: calendarID) }
            rest.removeFirst(2)
            restLower.removeFirst(2)
        }
        switch restLower.count {
        case 1:
            if restLower[0] == "calendarview" { return .calendarView(calendarID: calendarID) }
            if restLower[0] == "events" { return .events(calendarID: calendarID) }
        case 2:
            if restLower[0] == "events" || restLower[0] == "calendarview" { return .event(id: rest[1]) }
        case 3:
            guard restLower[0] == "events" else { return nil }
            if restLower[2] == "instances" { return .instances(eventID: rest[1]) }
            if restLower[2] == "cancel" { return .cancel(eventID: rest[1]) }
        default:
            break
        }
        return nil
    }

    /// The permission a route and method need; nil when the method is not allowed there.
    static func access(for route: GraphRoute, method: String) -> GraphRoute.Access? {
        switch (route.resource, method) {
        case (.user, "GET"): .readUser
        case (.mailboxSettings, "GET"): .readMailboxSettings
        case (.calendars, "GET"), (.calendar, "GET"), (.calendarView, "GET"), (.events, "GET"), (.event, "GET"),
            (.instances, "GET"):
            .readCalendars
        case (.events, "POST"), (.event, "PATCH"), (.event, "DELETE"), (.cancel, "POST"):
            .writeCalendars
        default: nil
        }
    }

    /// 405 for a method the resource does not take, 403 when the token lacks the permission.
    func authorize(_ route: GraphRoute, _ call: GraphCall, _ principal: Principal, _ context: RequestContext)
        -> LoopbackHTTPServer.Response?
    {
        guard let access = Self.access(for: route, method: call.method) else {
            return graphError(
                405, "ErrorInvalidRequest", "The OData request is not supported: \(call.method) on this resource.",
                context)
        }
        let granted = principal.permissions
        func has(_ names: [String]) -> Bool { names.contains { granted.contains($0.lowercased()) } }
        let ownMailbox: Bool
        let isApp: Bool
        switch principal {
        case .user(let id, _):
            ownMailbox = id == route.mailboxUserID
            isApp = false
        case .app:
            ownMailbox = false
            isApp = true
        }
        let allowed: Bool
        switch access {
        case .readUser:
            allowed =
                ownMailbox
                ? has(["User.Read", "User.ReadWrite", "User.ReadBasic.All", "User.Read.All", "Directory.Read.All"])
                : has(["User.ReadBasic.All", "User.Read.All", "User.ReadWrite.All", "Directory.Read.All"])
            if !allowed {
                return graphError(
                    403, "Authorization_RequestDenied", "Insufficient privileges to complete the operation.", context)
            }
            return nil
        case .readMailboxSettings:
            allowed = (ownMailbox || isApp) && has(["MailboxSettings.Read", "MailboxSettings.ReadWrite"])
        case .readCalendars:
            allowed =
                ownMailbox || isApp
                ? has(["Calendars.Read", "Calendars.ReadWrite", "Calendars.ReadBasic"])
                : has(["Calendars.Read.Shared", "Calendars.ReadWrite.Shared"])
        case .writeCalendars:
            allowed = ownMailbox || isApp ? has(["Calendars.ReadWrite"]) : has(["Calendars.ReadWrite.Shared"])
        }
        if allowed { return nil }
        return graphError(403, "ErrorAccessDenied", "Access is denied. Check credentials and try again.", context)
    }

    /// Runs the endpoint a route names.
    func perform(_ route: GraphRoute, _ call: GraphCall, _ principal: Principal, _ context: RequestContext)
        -> LoopbackHTTPServer.Response
    {
        switch route.resource {
        case .user:
            return serveUser(route, call, context)
        case .mailboxSettings(let field):
            return serveMailboxSettings(route, field: field, context)
        case .calendars:
            return serveCalendars(route, call, context)
        case .calendar(let id):
            return serveCalendar(route, calendarID: id, call, context)
        case .calendarView(let calendarID):
            return serveCalendarView(route, calendarID: calendarID, call, context)
        case .events(let calendarID):
            return call.method == "POST"
                ? createEvent(route, calendarID: calendarID, call, principal, context)
                : listEvents(route, calendarID: calendarID, call, context)
        case .event(let id):
            switch call.method {
            case "PATCH": return updateEvent(route, id: id, call, context)
            case "DELETE": return deleteEvent(route, id: id, context)
            default: return getEvent(route, id: id, call, context)
            }
        case .instances(let id):
            return serveInstances(route, eventID: id, call, context)
        case .cancel(let id):
            return cancelEvent(route, id: id, call, context)
        }
    }

    // MARK: Paging and $select

    /// One page of a collection: `$top` (default `defaultTop`, capped at `maxTop`), `$skip`, and an absolute
    /// `@odata.nextLink` that repeats the request's own path and query with a `$skiptoken` added.
    func page(
        _ items: [[String: Any]], _ call: GraphCall, _ context: RequestContext, defaultTop: Int, maxTop: Int,
        contextPath: String
    ) -> LoopbackHTTPServer.Response {
        page(
            count: items.count, render: { Array(items[$0]) }, call, context, defaultTop: defaultTop, maxTop: maxTop,
            contextPath: contextPath)
    }

    /// Like `page(_:…)`, rendering only the items of the page (`render` gets their index range).
    func page(
        count: Int, render: (Range<Int>) -> [[String: Any]], _ call: GraphCall, _ context: RequestContext,
        defaultTop: Int, maxTop: Int, contextPath: String
    ) -> LoopbackHTTPServer.Response {
        var top = defaultTop
        if let raw = call.query["$top"] {
            guard let value = Int(raw), value >= 0 else {
                return graphError(400, "BadRequest", "Invalid value '\(raw)' for query option '$top'.", context)
            }
            top = min(value, maxTop)
        }
        var offset = 0
        if let raw = call.query["$skip"] {
            guard let value = Int(raw), value >= 0 else {
                return graphError(400, "BadRequest", "Invalid value '\(raw)' for query option '$skip'.", context)
            }
            offset = value
        }
        if let token = call.query["$skiptoken"] {
            guard let stored = locked({ $0.skipTokens[token] }) else {
                return graphError(400, "BadRequest", "The skip token '\(token)' is not valid.", context)
            }
            offset = stored
        }
        let end = min(count, offset + top)
        let slice = offset < end ? render(offset..<end) : []
        var body: [String: Any] = [
            "@odata.context": baseURL + "/$metadata#\(contextPath)",
            "value": slice.map { select($0, call) },
        ]
        if end < count && top > 0 {
            let token = Self.randomToken(length: 24)
            locked { $0.skipTokens[token] = end }
            body["@odata.nextLink"] = nextLink(call, skipToken: token)
        }
        return graphJSON(200, body)
    }

    /// The request's own URL with `$skiptoken` (and any `$skip`) replaced, absolute, query kept as sent.
    func nextLink(_ call: GraphCall, skipToken: String) -> String {
        let kept = call.rawQuery.split(separator: "&").filter { pair in
            let name = pair.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            let decoded = (name.removingPercentEncoding ?? name).lowercased()
            return decoded != "$skiptoken" && decoded != "$skip"
        }
        let query = (kept + ["%24skiptoken=\(skipToken)"]).joined(separator: "&")
        let origin = locked { $0.nextLinkOrigin } ?? server.baseURL
        return origin + call.rawPath + "?" + query
    }

    /// Keeps only the `$select`ed properties (plus `id` and OData annotations); everything without `$select`.
    func select(_ item: [String: Any], _ call: GraphCall) -> [String: Any] {
        guard let raw = call.query["$select"], !raw.isEmpty else { return item }
        let wanted = Set(raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
        return item.filter { key, _ in
            key == "id" || key.hasPrefix("@odata.") || key == "singleValueExtendedProperties"
                || wanted.contains(key.lowercased())
        }
    }
}
