import Foundation
import ICalBridge

/// The signed-in user or the mailbox owner, as `GET /me` or `GET /users/{upn}` returns it (the fields
/// `graph-ics whoami` shows).
public struct GraphUser: Codable, Equatable, Sendable {
    public var id: String
    public var displayName: String?
    public var mail: String?
    public var userPrincipalName: String?

    public init(id: String, displayName: String? = nil, mail: String? = nil, userPrincipalName: String? = nil) {
        self.id = id
        self.displayName = displayName
        self.mail = mail
        self.userPrincipalName = userPrincipalName
    }
}

/// The part of a mailbox's settings graph-ics reads (`GET /me/mailboxSettings`).
public struct GraphMailboxSettings: Codable, Equatable, Sendable {
    /// The mailbox's time zone as Outlook stores it: a Windows name (`W. Europe Standard Time`), an IANA
    /// name, or missing for a mailbox that was never set up. graph-ics resolves it with its zone table.
    public var timeZone: String?

    public init(timeZone: String? = nil) {
        self.timeZone = timeZone
    }
}

/// One calendar of a mailbox (`GET /me/calendars`), as `graph-ics calendars` lists them and as
/// `--calendar NAME|ID` matches them.
public struct GraphCalendar: Codable, Equatable, Sendable {
    public var id: String
    public var name: String?
    public var isDefaultCalendar: Bool?
    public var canEdit: Bool?
    public var owner: GraphEmailAddress?
    /// The colour the user gave the calendar, `#RRGGBB`; empty when they never set one (`sync` writes it
    /// into the folder's `color` file).
    public var hexColor: String?

    public init(
        id: String,
        name: String? = nil,
        isDefaultCalendar: Bool? = nil,
        canEdit: Bool? = nil,
        owner: GraphEmailAddress? = nil,
        hexColor: String? = nil
    ) {
        self.id = id
        self.name = name
        self.isDefaultCalendar = isDefaultCalendar
        self.canEdit = canEdit
        self.owner = owner
        self.hexColor = hexColor
    }
}

/// The event Graph created for a `createEvent` call: its ids, and Graph's whole answer.
public struct CreatedEvent: Equatable, Sendable {
    /// Graph's id of the new event (an immutable id: graph-ics asks for `IdType="ImmutableId"`).
    public var id: String
    /// The event's iCalendar UID as Graph gave it.
    public var iCalUId: String?
    /// The response body, the created event as JSON.
    public var raw: Data

    public init(id: String, iCalUId: String?, raw: Data) {
        self.id = id
        self.iCalUId = iCalUId
        self.raw = raw
    }
}

/// An event found by ``GraphClient/findEvents(withExtendedProperty:value:expanding:)``: enough
/// to decide whether an import skips, updates or adds it.
public struct FoundEvent: Equatable, Sendable {
    public var id: String
    public var iCalUId: String?
    /// Graph's `lastModifiedDateTime` as sent (ISO 8601 with `Z`).
    public var lastModifiedDateTime: String?
    /// The values of the expanded single-value extended properties, by property id as Graph writes it
    /// (Graph may change the case of the id's parts: compare case-insensitively).
    public var extendedProperties: [String: String]
    /// The event object as JSON.
    public var raw: Data

    public init(
        id: String,
        iCalUId: String? = nil,
        lastModifiedDateTime: String? = nil,
        extendedProperties: [String: String] = [:],
        raw: Data = Data()
    ) {
        self.id = id
        self.iCalUId = iCalUId
        self.lastModifiedDateTime = lastModifiedDateTime
        self.extendedProperties = extendedProperties
        self.raw = raw
    }

    /// The value of the extended property `id`, matched case-insensitively.
    public func extendedProperty(_ id: String) -> String? {
        extendedProperties.first { $0.key.caseInsensitiveCompare(id) == .orderedSame }?.value
    }
}
