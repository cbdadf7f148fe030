/// A Microsoft Graph `event` resource, as the v1.0 API returns it and accepts it.
///
/// Every property is optional because Graph leaves out what `$select` did not ask for and sends `null`
/// freely; unknown keys are ignored. Enumerations (`showAs`, `sensitivity`, …) stay strings here so that a
/// value Graph adds later decodes; the mapping tables decide what each value means.
/// See https://learn.microsoft.com/graph/api/resources/event.
public struct GraphEvent: Codable, Equatable, Sendable {
    public var id: String?
    public var iCalUId: String?
    public var subject: String?
    public var body: GraphItemBody?
    public var bodyPreview: String?
    public var start: GraphDateTimeTimeZone?
    public var end: GraphDateTimeTimeZone?
    public var originalStartTimeZone: String?
    public var originalEndTimeZone: String?
    /// For an occurrence or exception of a series: the start the pattern gave it (ISO 8601, UTC).
    public var originalStart: String?
    public var isAllDay: Bool?
    public var isCancelled: Bool?
    public var showAs: String?
    public var sensitivity: String?
    public var importance: String?
    public var categories: [String]?
    public var location: GraphLocation?
    public var locations: [GraphLocation]?
    public var organizer: GraphRecipient?
    public var attendees: [GraphAttendee]?
    public var isReminderOn: Bool?
    public var reminderMinutesBeforeStart: Int?
    public var createdDateTime: String?
    public var lastModifiedDateTime: String?
    public var webLink: String?
    public var isOnlineMeeting: Bool?
    public var onlineMeeting: GraphOnlineMeetingInfo?
    public var onlineMeetingUrl: String?
    public var onlineMeetingProvider: String?
    /// `singleInstance`, `occurrence`, `exception` or `seriesMaster`.
    public var type: String?
    public var seriesMasterId: String?
    public var recurrence: GraphPatternedRecurrence?
    public var responseStatus: GraphResponseStatus?
    public var transactionId: String?
    public var singleValueExtendedProperties: [GraphSingleValueExtendedProperty]?

    public init() {}
}

/// `itemBody`: the event's body, text or HTML.
public struct GraphItemBody: Codable, Equatable, Sendable {
    /// `text` or `html`.
    public var contentType: String?
    public var content: String?

    public init(contentType: String? = nil, content: String? = nil) {
        self.contentType = contentType
        self.content = content
    }
}

/// `dateTimeTimeZone`: a local date-time (`2026-12-01T08:00:00.0000000`) and the zone it is in.
public struct GraphDateTimeTimeZone: Codable, Equatable, Sendable {
    public var dateTime: String?
    /// A Windows zone name, an IANA name, `UTC`, or one of Graph's sentinels.
    public var timeZone: String?

    public init(dateTime: String? = nil, timeZone: String? = nil) {
        self.dateTime = dateTime
        self.timeZone = timeZone
    }
}

/// `location`.
public struct GraphLocation: Codable, Equatable, Sendable {
    public var displayName: String?
    public var locationUri: String?
    public var locationType: String?
    public var address: GraphPhysicalAddress?
    public var coordinates: GraphOutlookGeoCoordinates?

    public init(displayName: String? = nil) {
        self.displayName = displayName
    }
}

/// `physicalAddress`.
public struct GraphPhysicalAddress: Codable, Equatable, Sendable {
    public var street: String?
    public var city: String?
    public var state: String?
    public var countryOrRegion: String?
    public var postalCode: String?

    public init() {}
}

/// `outlookGeoCoordinates`.
public struct GraphOutlookGeoCoordinates: Codable, Equatable, Sendable {
    public var latitude: Double?
    public var longitude: Double?
    public var altitude: Double?
    public var accuracy: Double?

    public init(latitude: Double? = nil, longitude: Double? = nil) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// `emailAddress`.
public struct GraphEmailAddress: Codable, Equatable, Sendable {
    public var name: String?
    public var address: String?

    public init(name: String? = nil, address: String? = nil) {
        self.name = name
        self.address = address
    }
}

/// `recipient`: the organizer.
public struct GraphRecipient: Codable, Equatable, Sendable {
    public var emailAddress: GraphEmailAddress?

    public init(emailAddress: GraphEmailAddress? = nil) {
        self.emailAddress = emailAddress
    }
}

/// `responseStatus`.
public struct GraphResponseStatus: Codable, Equatable, Sendable {
    /// `none`, `organizer`, `tentativelyAccepted`, `accepted`, `declined`, `notResponded`.
    public var response: String?
    public var time: String?

    public init(response: String? = nil, time: String? = nil) {
        self.response = response
        self.time = time
    }
}

/// `attendee`.
public struct GraphAttendee: Codable, Equatable, Sendable {
    /// `required`, `optional` or `resource`.
    public var type: String?
    public var status: GraphResponseStatus?
    public var emailAddress: GraphEmailAddress?

    public init(type: String? = nil, status: GraphResponseStatus? = nil, emailAddress: GraphEmailAddress? = nil) {
        self.type = type
        self.status = status
        self.emailAddress = emailAddress
    }
}

/// `onlineMeetingInfo`.
public struct GraphOnlineMeetingInfo: Codable, Equatable, Sendable {
    public var joinUrl: String?
    public var conferenceId: String?
    public var tollNumber: String?

    public init(joinUrl: String? = nil) {
        self.joinUrl = joinUrl
    }
}

/// `singleValueLegacyExtendedProperty`: graph-ics keeps the source UID of imported events in one.
public struct GraphSingleValueExtendedProperty: Codable, Equatable, Sendable {
    public var id: String?
    public var value: String?

    public init(id: String? = nil, value: String? = nil) {
        self.id = id
        self.value = value
    }
}

/// `patternedRecurrence`: how a series repeats and for how long.
public struct GraphPatternedRecurrence: Codable, Equatable, Sendable {
    public var pattern: GraphRecurrencePattern?
    public var range: GraphRecurrenceRange?

    public init(pattern: GraphRecurrencePattern? = nil, range: GraphRecurrenceRange? = nil) {
        self.pattern = pattern
        self.range = range
    }
}

/// `recurrencePattern`.
public struct GraphRecurrencePattern: Codable, Equatable, Sendable {
    /// `daily`, `weekly`, `absoluteMonthly`, `relativeMonthly`, `absoluteYearly`, `relativeYearly`.
    public var type: String?
    public var interval: Int?
    public var month: Int?
    public var dayOfMonth: Int?
    public var daysOfWeek: [String]?
    public var firstDayOfWeek: String?
    /// `first`, `second`, `third`, `fourth`, `last`.
    public var index: String?

    public init(type: String? = nil, interval: Int? = nil) {
        self.type = type
        self.interval = interval
    }
}

/// `recurrenceRange`.
public struct GraphRecurrenceRange: Codable, Equatable, Sendable {
    /// `endDate`, `noEnd` or `numbered`.
    public var type: String?
    public var startDate: String?
    public var endDate: String?
    public var recurrenceTimeZone: String?
    public var numberOfOccurrences: Int?

    public init(type: String? = nil, startDate: String? = nil) {
        self.type = type
        self.startDate = startDate
    }
}
