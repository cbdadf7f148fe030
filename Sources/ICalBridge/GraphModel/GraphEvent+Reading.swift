/// Reading the Graph models with ``JSONReader``: one `switch` per object over the keys graph-ics knows;
/// unknown keys are skipped, `null` reads as absent.
extension GraphEvent {
    /// The event properties graph-ics reads; the raw value is Graph's JSON name.
    enum Field: String, CaseIterable, Sendable {
        case id, iCalUId, subject, body, bodyPreview, start, end, originalStartTimeZone, originalEndTimeZone,
            originalStart, isAllDay, isCancelled, showAs, sensitivity, importance, categories, location, locations,
            organizer, attendees, isReminderOn, reminderMinutesBeforeStart, createdDateTime, lastModifiedDateTime,
            webLink, isOnlineMeeting, onlineMeeting, onlineMeetingUrl, onlineMeetingProvider, type, seriesMasterId,
            recurrence, responseStatus, transactionId, singleValueExtendedProperties
    }

    static let fields = JSONFieldTable<Field>()

    /// Reads one event object; nil for `null`.
    static func read(_ reader: inout JSONReader) throws(JSONReader.Failure) -> GraphEvent? {
        try reader.model(GraphEvent()) { (value, reader, key) throws(JSONReader.Failure) in
            switch fields[key] {
            case .id?: value.id = try reader.string()
            case .iCalUId?: value.iCalUId = try reader.string()
            case .subject?: value.subject = try reader.string()
            case .body?: value.body = try GraphItemBody.read(&reader)
            case .bodyPreview?: value.bodyPreview = try reader.string()
            case .start?: value.start = try GraphDateTimeTimeZone.read(&reader)
            case .end?: value.end = try GraphDateTimeTimeZone.read(&reader)
            case .originalStartTimeZone?: value.originalStartTimeZone = try reader.string()
            case .originalEndTimeZone?: value.originalEndTimeZone = try reader.string()
            case .originalStart?: value.originalStart = try reader.string()
            case .isAllDay?: value.isAllDay = try reader.bool()
            case .isCancelled?: value.isCancelled = try reader.bool()
            case .showAs?: value.showAs = try reader.string()
            case .sensitivity?: value.sensitivity = try reader.string()
            case .importance?: value.importance = try reader.string()
            case .categories?: value.categories = try reader.strings()
            case .location?: value.location = try GraphLocation.read(&reader)
            case .locations?: value.locations = try reader.objects(GraphLocation.read)
            case .organizer?: value.organizer = try GraphRecipient.read(&reader)
            case .attendees?: value.attendees = try reader.objects(GraphAttendee.read)
            case .isReminderOn?: value.isReminderOn = try reader.bool()
            case .reminderMinutesBeforeStart?: value.reminderMinutesBeforeStart = try reader.int()
            case .createdDateTime?: value.createdDateTime = try reader.string()
            case .lastModifiedDateTime?: value.lastModifiedDateTime = try reader.string()
            case .webLink?: value.webLink = try reader.string()
            case .isOnlineMeeting?: value.isOnlineMeeting = try reader.bool()
            case .onlineMeeting?: value.onlineMeeting = try GraphOnlineMeetingInfo.read(&reader)
            case .onlineMeetingUrl?: value.onlineMeetingUrl = try reader.string()
            case .onlineMeetingProvider?: value.onlineMeetingProvider = try reader.string()
            case .type?: value.type = try reader.string()
            case .seriesMasterId?: value.seriesMasterId = try reader.string()
            case .recurrence?: value.recurrence = try GraphPatternedRecurrence.read(&reader)
            case .responseStatus?: value.responseStatus = try GraphResponseStatus.read(&reader)
            case .transactionId?: value.transactionId = try reader.string()
            case .singleValueExtendedProperties?:
                value.singleValueExtendedProperties = try reader.objects(GraphSingleValueExtendedProperty.read)
            case nil: return false
            }
            return true
        }
    }
}

extension GraphItemBody {
    static func read(_ reader: inout JSONReader) throws(JSONReader.Failure) -> GraphItemBody? {
        try reader.model(GraphItemBody()) { (value, reader, key) throws(JSONReader.Failure) in
            switch key.string {
            case "contentType": value.contentType = try reader.string()
            case "content": value.content = try reader.string()
            default: return false
            }
            return true
        }
    }
}

extension GraphDateTimeTimeZone {
    static func read(_ reader: inout JSONReader) throws(JSONReader.Failure) -> GraphDateTimeTimeZone? {
        try reader.model(GraphDateTimeTimeZone()) { (value, reader, key) throws(JSONReader.Failure) in
            switch key.string {
            case "dateTime": value.dateTime = try reader.string()
            case "timeZone": value.timeZone = try reader.string()
            default: return false
            }
            return true
        }
    }
}

extension GraphLocation {
    static func read(_ reader: inout JSONReader) throws(JSONReader.Failure) -> GraphLocation? {
        try reader.model(GraphLocation()) { (value, reader, key) throws(JSONReader.Failure) in
            switch key.string {
            case "displayName": value.displayName = try reader.string()
            case "locationUri": value.locationUri = try reader.string()
            case "locationType": value.locationType = try reader.string()
            case "address": value.address = try GraphPhysicalAddress.read(&reader)
            case "coordinates": value.coordinates = try GraphOutlookGeoCoordinates.read(&reader)
            default: return false
            }
            return true
        }
    }
}

extension GraphPhysicalAddress {
    static func read(_ reader: inout JSONReader) throws(JSONReader.Failure) -> GraphPhysicalAddress? {
        try reader.model(GraphPhysicalAddress()) { (value, reader, key) throws(JSONReader.Failure) in
            switch key.string {
            case "street": value.street = try reader.string()
            case "city": value.city = try reader.string()
            case "state": value.state = try reader.string()
            case "countryOrRegion": value.countryOrRegion = try reader.string()
            case "postalCode": value.postalCode = try reader.string()
            default: return false
            }
            return true
        }
    }
}

extension GraphOutlookGeoCoordinates {
    static func read(_ reader: inout JSONReader) throws(JSONReader.Failure) -> GraphOutlookGeoCoordinates? {
        try reader.model(GraphOutlookGeoCoordinates()) { (value, reader, key) throws(JSONReader.Failure) in
            switch key.string {
            case "latitude": value.latitude = try reader.double()
            case "longitude": value.longitude = try reader.double()
            case "altitude": value.altitude = try reader.double()
            case "accuracy": value.accuracy = try reader.double()
            default: return false
            }
            return true
        }
    }
}

extension GraphEmailAddress {
    static func read(_ reader: inout JSONReader) throws(JSONReader.Failure) -> GraphEmailAddress? {
        try reader.model(GraphEmailAddress()) { (value, reader, key) throws(JSONReader.Failure) in
            switch key.string {
            case "name": value.name = try reader.string()
            case "address": value.address = try reader.string()
            default: return false
            }
            return true
        }
    }
}

extension GraphRecipient {
    static func read(_ reader: inout JSONReader) throws(JSONReader.Failure) -> GraphRecipient? {
        try reader.model(GraphRecipient()) { (value, reader, key) throws(JSONReader.Failure) in
            switch key.string {
            case "emailAddress": value.emailAddress = try GraphEmailAddress.read(&reader)
            default: return false
            }
            return true
        }
    }
}

extension GraphResponseStatus {
    static func read(_ reader: inout JSONReader) throws(JSONReader.Failure) -> GraphResponseStatus? {
        try reader.model(GraphResponseStatus()) { (value, reader, key) throws(JSONReader.Failure) in
            switch key.string {
            case "response": value.response = try reader.string()
            case "time": value.time = try reader.string()
            default: return false
            }
            return true
        }
    }
}

extension GraphAttendee {
    static func read(_ reader: inout JSONReader) throws(JSONReader.Failure) -> GraphAttendee? {
        try reader.model(GraphAttendee()) { (value, reader, key) throws(JSONReader.Failure) in
            switch key.string {
            case "type": value.type = try reader.string()
            case "status": value.status = try GraphResponseStatus.read(&reader)
            case "emailAddress": value.emailAddress = try GraphEmailAddress.read(&reader)
            default: return false
            }
            return true
        }
    }
}

extension GraphOnlineMeetingInfo {
    static func read(_ reader: inout JSONReader) throws(JSONReader.Failure) -> GraphOnlineMeetingInfo? {
        try reader.model(GraphOnlineMeetingInfo()) { (value, reader, key) throws(JSONReader.Failure) in
            switch key.string {
            case "joinUrl": value.joinUrl = try reader.string()
            case "conferenceId": value.conferenceId = try reader.string()
            case "tollNumber": value.tollNumber = try reader.string()
            default: return false
            }
            return true
        }
    }
}

extension GraphSingleValueExtendedProperty {
    static func read(_ reader: inout JSONReader) throws(JSONReader.Failure) -> GraphSingleValueExtendedProperty? {
        try reader.model(GraphSingleValueExtendedProperty()) { (value, reader, key) throws(JSONReader.Failure) in
            switch key.string {
            case "id": value.id = try reader.string()
            case "value": value.value = try reader.string()
            default: return false
            }
            return true
        }
    }
}

extension GraphPatternedRecurrence {
    static func read(_ reader: inout JSONReader) throws(JSONReader.Failure) -> GraphPatternedRecurrence? {
        try reader.model(GraphPatternedRecurrence()) { (value, reader, key) throws(JSONReader.Failure) in
            switch key.string {
            case "pattern": value.pattern = try GraphRecurrencePattern.read(&reader)
            case "range": value.range = try GraphRecurrenceRange.read(&reader)
            default: return false
            }
            return true
        }
    }
}

extension GraphRecurrencePattern {
    static func read(_ reader: inout JSONReader) throws(JSONReader.Failure) -> GraphRecurrencePattern? {
        try reader.model(GraphRecurrencePattern()) { (value, reader, key) throws(JSONReader.Failure) in
            switch key.string {
            case "type": value.type = try reader.string()
            case "interval": value.interval = try reader.int()
            case "month": value.month = try reader.int()
            case "dayOfMonth": value.dayOfMonth = try reader.int()
            case "daysOfWeek": value.daysOfWeek = try reader.strings()
            case "firstDayOfWeek": value.firstDayOfWeek = try reader.string()
            case "index": value.index = try reader.string()
            default: return false
            }
            return true
        }
    }
}

extension GraphRecurrenceRange {
    static func read(_ reader: inout JSONReader) throws(JSONReader.Failure) -> GraphRecurrenceRange? {
        try reader.model(GraphRecurrenceRange()) { (value, reader, key) throws(JSONReader.Failure) in
            switch key.string {
            case "type": value.type = try reader.string()
            case "startDate": value.startDate = try reader.string()
            case "endDate": value.endDate = try reader.string()
            case "recurrenceTimeZone": value.recurrenceTimeZone = try reader.string()
            case "numberOfOccurrences": value.numberOfOccurrences = try reader.int()
            default: return false
            }
            return true
        }
    }
}
