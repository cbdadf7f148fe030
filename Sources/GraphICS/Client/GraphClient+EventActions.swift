import Foundation

/// What graph-ics needs to know about one event before deleting, changing or answering it: who organises
/// it and who else is in it, since that decides whom Graph mails.
public struct EventStanding: Sendable, Equatable {
    public var id: String
    public var subject: String
    /// `start.dateTime` and `start.timeZone` as Graph sent them (UTC unless asked otherwise).
    public var start: String?
    public var startZone: String?
    /// `end.dateTime` and `end.timeZone` as Graph sent them.
    public var end: String?
    public var endZone: String?
    public var isAllDay: Bool
    /// Whether the mailbox's owner organises the event; nil when Graph did not say (``MailingRule`` reads
    /// that as organising).
    public var isOrganizer: Bool?
    /// The organizer's name and address, as Graph gives them.
    public var organizerName: String?
    public var organizerAddress: String?
    /// The attendees' addresses (the organizer is not among them).
    public var attendees: [String]
    /// `singleInstance`, `occurrence`, `exception` or `seriesMaster`.
    public var type: String
    /// The mailbox owner's answer: `none`, `organizer`, `accepted`, `tentativelyAccepted`, `declined`,
    /// `notResponded`.
    public var response: String?
    /// Whether the event is an online meeting (Teams, Skype): its body holds the meeting's blob, and a new
    /// body without it disables the meeting (`api/event-update.md`).
    public var isOnlineMeeting: Bool

    public init(
        id: String, subject: String, start: String? = nil, startZone: String? = nil, end: String? = nil,
        endZone: String? = nil, isAllDay: Bool = false,
        isOrganizer: Bool?, organizerName: String? = nil, organizerAddress: String? = nil, attendees: [String] = [],
        type: String = "singleInstance", response: String? = nil, isOnlineMeeting: Bool = false
    ) {
        self.id = id
        self.subject = subject
        self.start = start
        self.startZone = startZone
        self.end = end
        self.endZone = endZone
        self.isAllDay = isAllDay
        self.isOrganizer = isOrganizer
        self.organizerName = organizerName
        self.organizerAddress = organizerAddress
        self.attendees = attendees
        self.type = type
        self.response = response
        self.isOnlineMeeting = isOnlineMeeting
    }

    /// `Ann Lee <ann@contoso.com>`, the address alone, or nil.
    public var organizer: String? {
        switch (organizerName, organizerAddress) {
        case (let name?, let address?) where !name.isEmpty && name != address: "\(name) <\(address)>"
        case (_, let address?): address
        case (let name?, nil): name
        default: nil
        }
    }

    /// Reads the fields from an event's JSON; nil when it has no `id`.
    public init?(json: Data) {
        guard let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any] else { return nil }
        self.init(object: object)
    }

    /// Reads the fields from an event's JSON object; nil when it has no `id`. The one reader of who
    /// organises an event and who attends it: every caller's `$select` includes ``GraphClient/standingFields``'
    /// `isOrganizer`, `organizer` and `attendees`.
    public init?(object: [String: Any]) {
        guard let id = object["id"] as? String else { return nil }
        let start = object["start"] as? [String: Any]
        let end = object["end"] as? [String: Any]
        let organizer = (object["organizer"] as? [String: Any])?["emailAddress"] as? [String: Any]
        let attendees = (object["attendees"] as? [[String: Any]] ?? []).compactMap {
            ($0["emailAddress"] as? [String: Any])?["address"] as? String
        }
        self.init(
            id: id, subject: object["subject"] as? String ?? "", start: start?["dateTime"] as? String,
            startZone: start?["timeZone"] as? String, end: end?["dateTime"] as? String,
            endZone: end?["timeZone"] as? String, isAllDay: object["isAllDay"] as? Bool ?? false,
            isOrganizer: object["isOrganizer"] as? Bool, organizerName: organizer?["name"] as? String,
            organizerAddress: organizer?["address"] as? String,
            attendees: attendees.filter { $0.lowercased() != (organizer?["address"] as? String)?.lowercased() },
            type: object["type"] as? String ?? "singleInstance",
            response: (object["responseStatus"] as? [String: Any])?["response"] as? String,
            isOnlineMeeting: object["isOnlineMeeting"] as? Bool ?? false)
    }
}

/// An answer to a meeting invitation: Graph's `accept`, `tentativelyAccept` and `decline` actions.
public enum EventResponse: String, Sendable, CaseIterable {
    case accept
    case tentative
    case decline

    /// The action's name in the request path.
    public var action: String {
        switch self {
        case .accept: "accept"
        case .tentative: "tentativelyAccept"
        case .decline: "decline"
        }
    }
}

// Deleting, changing and answering one event (`delete`, `edit`, `respond`).
extension GraphClient {
    public static let standingFields =
        "id,subject,start,end,isAllDay,isOrganizer,organizer,attendees,type,seriesMasterId,responseStatus,"
        + "isOnlineMeeting"

    /// Who organises the event and who is in it (`GET …/events/{id}?$select=…`); a ``GraphError`` of kind
    /// `notFound` when there is no such event.
    public func standing(ofEvent id: String) throws -> EventStanding {
        let operation = "reading event \(id)"
        let response = try get(
            mailbox.path + "/events/" + GraphQuery.encodePathSegment(id), query: [("$select", Self.standingFields)],
            operation: operation)
        guard let standing = EventStanding(json: response.body) else {
            throw GraphError.malformed("no event \"id\"", operation: operation, response: response)
        }
        return standing
    }

    /// Answers an invitation (`POST …/events/{id}/accept`, `tentativelyAccept` or `decline`, documented to
    /// answer 202); `sendResponse` false answers without mailing the organizer.
    public func respond(toEvent id: String, with answer: EventResponse, comment: String?, sendResponse: Bool) throws {
        var object: [String: Any] = ["sendResponse": sendResponse]
        if let comment { object["comment"] = comment }
        let body = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        _ = try send(
            "POST", url(mailbox.path + "/events/" + GraphQuery.encodePathSegment(id) + "/" + answer.action),
            body: body, operation: "answering event \(id)")
    }
}
