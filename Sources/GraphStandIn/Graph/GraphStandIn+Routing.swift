// Stands in for Graph's URL handling: `/me` and `/users/{id|upn}` resolved to a mailbox, resource segments
// matched case-insensitively, and the endpoint each route runs.
import Foundation

/// What a Graph URL asks for, once `/me` or `/users/{key}` is resolved to a mailbox.
struct GraphRoute {
    enum Resource {
        case user
        case mailboxSettings(field: String?)
        case calendars
        case calendar(id: String?)
        case calendarView(calendarID: String?)
        /// `calendarView/delta` of the primary calendar, the only form v1.0 documents.
        case calendarViewDelta
        case events(calendarID: String?)
        case event(id: String)
        case instances(eventID: String)
        case cancel(eventID: String)
        /// `accept`, `tentativelyAccept` or `decline` (GraphStandIn+Responses.swift).
        case respond(eventID: String, action: String)
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
    /// The mailbox and resource a Graph URL names, or Graph's 400/404 for one it does not serve.
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
            let bad =
                segments.last { Self.deltaSegments.contains($0.lowercased()) }
                ?? segments.first { !Self.knownSegments.contains($0.lowercased()) } ?? segments.last ?? ""
            return .failure(reject(400, "BadRequest", "Resource not found for the segment '\(bad)'.", context))
        }
        return .success(GraphRoute(mailboxUserID: userID, userKey: userKey, resource: resource))
    }

    static let knownSegments: Set<String> = [
        "mailboxsettings", "calendars", "calendar", "calendarview", "events", "instances", "cancel",
        "accept", "tentativelyaccept", "decline",
    ]

    /// `delta` and its fully qualified name (`concepts/delta-query-overview.md`).
    static let deltaSegments: Set<String> = ["delta", "delta()", "microsoft.graph.delta", "microsoft.graph.delta()"]

    /// Routes below `/me` with two or more segments.
    static func calendarResource(_ segments: [String], _ lower: [String]) -> GraphRoute.Resource? {
        if lower.count == 2 && lower[0] == "mailboxsettings" { return .mailboxSettings(field: segments[1]) }
        if let last = lower.last, deltaSegments.contains(last), lower.dropLast().last == "calendarview" {
            return lower.count == 2 ? .calendarViewDelta : nil
        }
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
            if responseActions[restLower[2]] != nil { return .respond(eventID: rest[1], action: rest[2]) }
        default:
            break
        }
        return nil
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
        case .calendarViewDelta:
            return serveCalendarViewDelta(route, call, context)
        case .events(let calendarID):
            return call.method == "POST"
                ? createEvent(route, calendarID: calendarID, call, principal, context)
                : listEvents(route, calendarID: calendarID, call, context)
        case .event(let id):
            switch call.method {
            case "PATCH": return updateEvent(route, id: id, call, context)
            case "DELETE": return deleteEvent(route, id: id, call, context)
            default: return getEvent(route, id: id, call, context)
            }
        case .instances(let id):
            return serveInstances(route, eventID: id, call, context)
        case .cancel(let id):
            return cancelEvent(route, id: id, call, context)
        case .respond(let id, let action):
            return respondToEvent(route, id: id, action: action, call, context)
        }
    }

}
