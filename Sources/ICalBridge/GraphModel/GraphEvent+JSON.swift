import Foundation

/// The Graph models written straight into a ``JSONStreamEncoder/Sink``, field by field in declaration order
/// and with `nil` left out: byte for byte what their synthesized `Encodable` conformance gives through the
/// stream encoder (a test holds the two together), without the protocol's boxing per nested value. An
/// import writes one of these per event, so this is its hot path.
protocol JSONFieldWritable {
    func writeFields(_ fields: inout JSONFields) throws
}

/// Writes the members of one JSON object.
struct JSONFields {
    let sink: JSONStreamEncoder.Sink
    /// The sink's depth inside the object.
    let level: Int
    private(set) var count = 0

    /// Opens an object in `sink`; ``close()`` ends it.
    init(opening sink: JSONStreamEncoder.Sink) {
        self.sink = sink
        sink.open(UInt8(ascii: "{"))
        level = sink.depth
    }

    /// Continues an object another writer opened, after `count` members.
    init(continuing sink: JSONStreamEncoder.Sink, count: Int) {
        self.sink = sink
        level = sink.depth
        self.count = count
    }

    func close() {
        sink.close(UInt8(ascii: "}"), count: count)
    }

    private mutating func key(_ name: StaticString) {
        sink.separate(after: count)
        count += 1
        sink.bytes.append(UInt8(ascii: "\""))
        sink.bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        sink.bytes.append(UInt8(ascii: "\""))
        sink.bytes.append(UInt8(ascii: ":"))
        if sink.pretty { sink.bytes.append(UInt8(ascii: " ")) }
    }

    mutating func string(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        key(name)
        sink.string(value)
    }

    mutating func bool(_ name: StaticString, _ value: Bool?) {
        guard let value else { return }
        key(name)
        sink.literal(value ? "true" : "false")
    }

    mutating func int(_ name: StaticString, _ value: Int?) {
        guard let value else { return }
        key(name)
        sink.literal(String(value))
    }

    mutating func double(_ name: StaticString, _ value: Double?) throws {
        guard let value else { return }
        key(name)
        try sink.double(value)
    }

    mutating func strings(_ name: StaticString, _ values: [String]?) {
        guard let values else { return }
        key(name)
        sink.open(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            sink.separate(after: index)
            sink.string(value)
        }
        sink.close(UInt8(ascii: "]"), count: values.count)
    }

    mutating func object<Value: JSONFieldWritable>(_ name: StaticString, _ value: Value?) throws {
        guard let value else { return }
        key(name)
        try Self.write(value, to: sink)
    }

    mutating func objects<Value: JSONFieldWritable>(_ name: StaticString, _ values: [Value]?) throws {
        guard let values else { return }
        key(name)
        sink.open(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            sink.separate(after: index)
            try Self.write(value, to: sink)
        }
        sink.close(UInt8(ascii: "]"), count: values.count)
    }

    /// Any `Encodable` value, through the stream encoder (for the rare, small parts such as annotations).
    mutating func value<Value: Encodable>(_ name: StaticString, _ value: Value?) throws {
        guard let value else { return }
        key(name)
        try sink.write(value)
    }

    static func write<Value: JSONFieldWritable>(_ value: Value, to sink: JSONStreamEncoder.Sink) throws {
        var fields = JSONFields(opening: sink)
        try value.writeFields(&fields)
        fields.close()
    }
}

extension GraphEvent: JSONFieldWritable {
    func writeFields(_ fields: inout JSONFields) throws {
        fields.string("id", id)
        fields.string("iCalUId", iCalUId)
        fields.string("subject", subject)
        try fields.object("body", body)
        fields.string("bodyPreview", bodyPreview)
        try fields.object("start", start)
        try fields.object("end", end)
        fields.string("originalStartTimeZone", originalStartTimeZone)
        fields.string("originalEndTimeZone", originalEndTimeZone)
        fields.string("originalStart", originalStart)
        fields.bool("isAllDay", isAllDay)
        fields.bool("isCancelled", isCancelled)
        fields.string("showAs", showAs)
        fields.string("sensitivity", sensitivity)
        fields.string("importance", importance)
        fields.strings("categories", categories)
        try fields.object("location", location)
        try fields.objects("locations", locations)
        try fields.object("organizer", organizer)
        try fields.objects("attendees", attendees)
        fields.bool("isReminderOn", isReminderOn)
        fields.int("reminderMinutesBeforeStart", reminderMinutesBeforeStart)
        fields.string("createdDateTime", createdDateTime)
        fields.string("lastModifiedDateTime", lastModifiedDateTime)
        fields.string("webLink", webLink)
        fields.bool("isOnlineMeeting", isOnlineMeeting)
        try fields.object("onlineMeeting", onlineMeeting)
        fields.string("onlineMeetingUrl", onlineMeetingUrl)
        fields.string("onlineMeetingProvider", onlineMeetingProvider)
        fields.string("type", type)
        fields.string("seriesMasterId", seriesMasterId)
        try fields.object("recurrence", recurrence)
        try fields.object("responseStatus", responseStatus)
        fields.string("transactionId", transactionId)
        try fields.objects("singleValueExtendedProperties", singleValueExtendedProperties)
    }
}

extension GraphItemBody: JSONFieldWritable {
    func writeFields(_ fields: inout JSONFields) throws {
        fields.string("contentType", contentType)
        fields.string("content", content)
    }
}

extension GraphDateTimeTimeZone: JSONFieldWritable {
    func writeFields(_ fields: inout JSONFields) throws {
        fields.string("dateTime", dateTime)
        fields.string("timeZone", timeZone)
    }
}

extension GraphLocation: JSONFieldWritable {
    func writeFields(_ fields: inout JSONFields) throws {
        fields.string("displayName", displayName)
        fields.string("locationUri", locationUri)
        fields.string("locationType", locationType)
        try fields.object("address", address)
        try fields.object("coordinates", coordinates)
    }
}

extension GraphPhysicalAddress: JSONFieldWritable {
    func writeFields(_ fields: inout JSONFields) throws {
        fields.string("street", street)
        fields.string("city", city)
        fields.string("state", state)
        fields.string("countryOrRegion", countryOrRegion)
        fields.string("postalCode", postalCode)
    }
}

extension GraphOutlookGeoCoordinates: JSONFieldWritable {
    func writeFields(_ fields: inout JSONFields) throws {
        try fields.double("latitude", latitude)
        try fields.double("longitude", longitude)
        try fields.double("altitude", altitude)
        try fields.double("accuracy", accuracy)
    }
}

extension GraphEmailAddress: JSONFieldWritable {
    func writeFields(_ fields: inout JSONFields) throws {
        fields.string("name", name)
        fields.string("address", address)
    }
}

extension GraphRecipient: JSONFieldWritable {
    func writeFields(_ fields: inout JSONFields) throws {
        try fields.object("emailAddress", emailAddress)
    }
}

extension GraphResponseStatus: JSONFieldWritable {
    func writeFields(_ fields: inout JSONFields) throws {
        fields.string("response", response)
        fields.string("time", time)
    }
}

extension GraphAttendee: JSONFieldWritable {
    func writeFields(_ fields: inout JSONFields) throws {
        fields.string("type", type)
        try fields.object("status", status)
        try fields.object("emailAddress", emailAddress)
    }
}

extension GraphOnlineMeetingInfo: JSONFieldWritable {
    func writeFields(_ fields: inout JSONFields) throws {
        fields.string("joinUrl", joinUrl)
        fields.string("conferenceId", conferenceId)
        fields.string("tollNumber", tollNumber)
    }
}

extension GraphSingleValueExtendedProperty: JSONFieldWritable {
    func writeFields(_ fields: inout JSONFields) throws {
        fields.string("id", id)
        fields.string("value", value)
    }
}

extension GraphPatternedRecurrence: JSONFieldWritable {
    func writeFields(_ fields: inout JSONFields) throws {
        try fields.object("pattern", pattern)
        try fields.object("range", range)
    }
}

extension GraphRecurrencePattern: JSONFieldWritable {
    func writeFields(_ fields: inout JSONFields) throws {
        fields.string("type", type)
        fields.int("interval", interval)
        fields.int("month", month)
        fields.int("dayOfMonth", dayOfMonth)
        fields.strings("daysOfWeek", daysOfWeek)
        fields.string("firstDayOfWeek", firstDayOfWeek)
        fields.string("index", index)
    }
}

extension GraphRecurrenceRange: JSONFieldWritable {
    func writeFields(_ fields: inout JSONFields) throws {
        fields.string("type", type)
        fields.string("startDate", startDate)
        fields.string("endDate", endDate)
        fields.string("recurrenceTimeZone", recurrenceTimeZone)
        fields.int("numberOfOccurrences", numberOfOccurrences)
    }
}
