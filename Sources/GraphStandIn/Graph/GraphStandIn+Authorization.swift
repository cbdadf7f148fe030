// Which permission each route and method needs (Calendars.Read for reads, Calendars.ReadWrite for writes,
// the .Shared variants for another user's mailbox), answered 405 or 403 the way Graph answers.
import Foundation

extension GraphStandIn {
    /// The permission a route and method need; nil when the method is not allowed there.
    static func access(for route: GraphRoute, method: String) -> GraphRoute.Access? {
        switch (route.resource, method) {
        case (.user, "GET"): .readUser
        case (.mailboxSettings, "GET"): .readMailboxSettings
        case (.calendars, "GET"), (.calendar, "GET"), (.calendarView, "GET"), (.calendarViewDelta, "GET"),
            (.events, "GET"), (.event, "GET"),
            (.instances, "GET"):
            .readCalendars
        case (.events, "POST"), (.event, "PATCH"), (.event, "DELETE"), (.cancel, "POST"),
            (.respond, "POST"):
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
}
