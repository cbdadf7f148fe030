// Stands in for the directory and mailbox side of Graph: users (`GET /me`, `GET /users/{id|upn}`), their
// mailbox settings (the time zone graph-ics uses for weeks) and their calendars (`GET calendars`, paged).
import Foundation

/// A mailbox owner the stand-in knows.
struct StandInUser {
    var id: String
    var displayName: String
    var mail: String
    var userPrincipalName: String
    /// As Graph reports it in mailboxSettings (Windows or IANA name); nil leaves `timeZone` out.
    var mailboxTimeZone: String?

    func matches(_ key: String) -> Bool {
        id.caseInsensitiveCompare(key) == .orderedSame
            || userPrincipalName.caseInsensitiveCompare(key) == .orderedSame
            || mail.caseInsensitiveCompare(key) == .orderedSame
    }
}

/// A calendar in a user's mailbox.
struct StandInCalendar {
    var id: String
    var userID: String
    var name: String
    var isDefault: Bool
    var canEdit: Bool
    var changeKey: String
    /// `#RRGGBB`, or empty: a calendar whose owner never chose a colour.
    var hexColor = ""
}

extension GraphStandIn {
    // MARK: Seeding

    /// Adds a mailbox owner and its default calendar ("Calendar"); the first user added is `me` for
    /// delegated tokens that name no user.
    ///
    /// - Parameters:
    ///   - id: the user's object id; a fresh GUID when nil.
    ///   - mailboxTimeZone: what mailboxSettings reports as `timeZone` — a Windows name such as
    ///     "W. Europe Standard Time", an IANA name, or nil to leave the property out.
    /// - Returns: the user's id.
    @discardableResult
    public func addUser(
        id: String? = nil,
        displayName: String,
        mail: String,
        userPrincipalName: String? = nil,
        mailboxTimeZone: String? = "UTC"
    ) -> String {
        let userID = id ?? UUID().uuidString.lowercased()
        let user = StandInUser(
            id: userID, displayName: displayName, mail: mail, userPrincipalName: userPrincipalName ?? mail,
            mailboxTimeZone: mailboxTimeZone)
        locked { state in
            state.users.append(user)
            state.calendars.append(
                StandInCalendar(
                    id: Self.newItemID(prefix: "AAMkAGI2Cal"), userID: userID, name: "Calendar", isDefault: true,
                    canEdit: true, changeKey: Self.randomToken(length: 22)))
        }
        return userID
    }

    /// Adds a calendar to a user's mailbox and returns its id.
    ///
    /// - Parameters:
    ///   - user: the owner's id, UPN or mail; nil means the first user. An owner the stand-in does not know
    ///     yet is added on the spot (with that address).
    ///   - isDefault: makes it the default calendar (the previous default stops being one).
    ///   - canEdit: false makes creating events in it fail with 403 `ErrorAccessDenied`, like a calendar
    ///     shared read-only.
    ///   - hexColor: the colour its owner chose (`#RRGGBB`); empty, as Graph sends it, when none was.
    @discardableResult
    public func addCalendar(
        user: String? = nil, name: String, isDefault: Bool = false, canEdit: Bool = true, hexColor: String = ""
    ) -> String {
        let ownerID = ensureUser(user)
        return locked { state in
            let id = Self.newItemID(prefix: "AAMkAGI2Cal")
            if isDefault {
                for index in state.calendars.indices where state.calendars[index].userID == ownerID {
                    state.calendars[index].isDefault = false
                }
            }
            state.calendars.append(
                StandInCalendar(
                    id: id, userID: ownerID, name: name, isDefault: isDefault, canEdit: canEdit,
                    changeKey: Self.randomToken(length: 22), hexColor: hexColor))
            return id
        }
    }

    /// The id of the user a key names, adding a user when there is none: nil means the first user (a default
    /// "Megan Bowen" when no user exists yet), an unknown key becomes a user with that address.
    func ensureUser(_ key: String?) -> String {
        if let existing = locked({ $0.user(key)?.id }) { return existing }
        if let key {
            let name = key.split(separator: "@").first.map(String.init) ?? key
            return addUser(displayName: name, mail: key, userPrincipalName: key)
        }
        return addUser(displayName: "Megan Bowen", mail: "megan@contoso.example", mailboxTimeZone: "UTC")
    }

    /// The id of a user's default calendar (nil user: the first user).
    public func defaultCalendarID(user: String? = nil) -> String? {
        locked { state in
            state.user(user).flatMap { owner in state.defaultCalendar(of: owner.id)?.id }
        }
    }

    /// Changes what mailboxSettings reports as a user's time zone.
    public func setMailboxTimeZone(_ zone: String?, user: String? = nil) {
        locked { state in
            guard let owner = state.user(user), let index = state.users.firstIndex(where: { $0.id == owner.id })
            else { return }
            state.users[index].mailboxTimeZone = zone
        }
    }

    // MARK: Endpoints

    func userJSON(_ user: StandInUser) -> [String: Any] {
        let names = user.displayName.split(separator: " ", maxSplits: 1).map(String.init)
        return [
            "@odata.context": baseURL + "/$metadata#users/$entity",
            "businessPhones": [String](),
            "displayName": user.displayName,
            "givenName": names.first ?? user.displayName,
            "surname": names.count > 1 ? names[1] : NSNull(),
            "jobTitle": NSNull(),
            "mail": user.mail,
            "mobilePhone": NSNull(),
            "officeLocation": NSNull(),
            "preferredLanguage": "en-US",
            "userPrincipalName": user.userPrincipalName,
            "id": user.id,
        ]
    }

    func mailboxSettingsJSON(_ user: StandInUser) -> [String: Any] {
        let workingZone: Any = user.mailboxTimeZone.map { ["name": $0] as [String: Any] } ?? NSNull()
        var settings: [String: Any] = [
            "@odata.context": baseURL + "/$metadata#users('\(user.id)')/mailboxSettings",
            "archiveFolder": Self.newItemID(prefix: "AAMkAGI2Arc"),
            "automaticRepliesSetting": [
                "status": "disabled", "externalAudience": "all", "internalReplyMessage": "",
                "externalReplyMessage": "",
                "scheduledStartDateTime": ["dateTime": "2026-01-01T00:00:00.0000000", "timeZone": "UTC"],
                "scheduledEndDateTime": ["dateTime": "2026-01-02T00:00:00.0000000", "timeZone": "UTC"],
            ] as [String: Any],
            "language": ["locale": "en-US", "displayName": "English (United States)"],
            "dateFormat": "yyyy-MM-dd",
            "timeFormat": "HH:mm",
            "delegateMeetingMessageDeliveryOptions": "sendToDelegateOnly",
            "userPurpose": "user",
            "workingHours": [
                "daysOfWeek": ["monday", "tuesday", "wednesday", "thursday", "friday"],
                "startTime": "08:00:00.0000000", "endTime": "17:00:00.0000000", "timeZone": workingZone,
            ] as [String: Any],
        ]
        if let zone = user.mailboxTimeZone { settings["timeZone"] = zone }
        return settings
    }

    func calendarJSON(_ calendar: StandInCalendar, owner: StandInUser) -> [String: Any] {
        [
            "@odata.id": baseURL + "/users('\(owner.id)')/calendars('\(calendar.id)')",
            "id": calendar.id,
            "name": calendar.name,
            "color": "auto",
            "hexColor": calendar.hexColor,
            "isDefaultCalendar": calendar.isDefault,
            "changeKey": calendar.changeKey,
            "canShare": calendar.canEdit,
            "canViewPrivateItems": calendar.canEdit,
            "canEdit": calendar.canEdit,
            "isRemovable": !calendar.isDefault,
            "isTallyingResponses": true,
            "allowedOnlineMeetingProviders": ["teamsForBusiness"],
            "defaultOnlineMeetingProvider": "teamsForBusiness",
            "owner": ["name": owner.displayName, "address": owner.mail],
        ]
    }

    func serveUser(_ route: GraphRoute, _ call: GraphCall, _ context: RequestContext) -> LoopbackHTTPServer.Response {
        guard let user = locked({ $0.users.first { $0.id == route.mailboxUserID } }) else {
            return graphError(404, "Request_ResourceNotFound", "Resource '\(route.userKey)' does not exist.", context)
        }
        return graphJSON(200, select(userJSON(user), call))
    }

    func serveMailboxSettings(_ route: GraphRoute, field: String?, _ context: RequestContext)
        -> LoopbackHTTPServer.Response
    {
        guard let user = locked({ $0.users.first { $0.id == route.mailboxUserID } }) else {
            return graphError(404, "ErrorInvalidUser", "The requested user '\(route.userKey)' is invalid.", context)
        }
        let settings = mailboxSettingsJSON(user)
        guard let field else { return graphJSON(200, settings) }
        guard let key = settings.keys.first(where: { $0.caseInsensitiveCompare(field) == .orderedSame }) else {
            return graphError(400, "BadRequest", "Resource not found for the segment '\(field)'.", context)
        }
        let value = settings[key] ?? NSNull()
        if value is [String: Any] { return graphJSON(200, value) }
        return graphJSON(
            200,
            ["@odata.context": baseURL + "/$metadata#users('\(user.id)')/mailboxSettings/\(key)", "value": value])
    }

    func serveCalendars(_ route: GraphRoute, _ call: GraphCall, _ context: RequestContext)
        -> LoopbackHTTPServer.Response
    {
        let (owner, calendars) = locked { state in
            (
                state.users.first { $0.id == route.mailboxUserID },
                state.calendars.filter { $0.userID == route.mailboxUserID }
            )
        }
        guard let owner else {
            return graphError(404, "ErrorInvalidUser", "The requested user '\(route.userKey)' is invalid.", context)
        }
        let items = calendars.map { calendarJSON($0, owner: owner) }
        return page(items, call, context, defaultTop: 10, maxTop: 1000, contextPath: "calendars")
    }

    func serveCalendar(_ route: GraphRoute, calendarID: String?, _ call: GraphCall, _ context: RequestContext)
        -> LoopbackHTTPServer.Response
    {
        let found: (StandInUser, StandInCalendar)? = locked { state in
            guard let owner = state.users.first(where: { $0.id == route.mailboxUserID }),
                let calendar = state.calendar(calendarID, of: owner.id)
            else { return nil }
            return (owner, calendar)
        }
        guard let (owner, calendar) = found else {
            return notFound(context)
        }
        var json = calendarJSON(calendar, owner: owner)
        json["@odata.context"] = baseURL + "/$metadata#users('\(owner.id)')/calendars/$entity"
        return graphJSON(200, select(json, call))
    }
}
