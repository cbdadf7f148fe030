import Foundation

/// What changed between an event Graph holds and the event graph-ics would send for it now: the minimal PATCH,
/// or nothing when nothing Graph holds changed. The one comparison of `import --on-duplicate update`, of sync's
/// push and of the CalDAV gateway.
///
/// Both events are compared as graph-ics maps them (the Graph payload ``ICSToGraph`` plans), property by
/// property, after normalisation:
/// - text (subject, body, location name) ignores line endings (CRLF, CR and LF are one) and surrounding spaces;
///   a body is compared as plain text when one side is HTML and the other text;
/// - `start` and `end` are compared as instants and zones (a zone named in Windows or IANA form is one zone);
///   all-day events by their dates; when one of them changed both are sent;
/// - the location is compared by its display name only, so that a structured location (address, coordinates)
///   Graph holds is not replaced by a flat name when the name did not change;
/// - categories as a set, attendees as a set by address (case-insensitive) with their type;
/// - the reminder as `isReminderOn` and, when on, its minutes; both are sent when it changed;
/// - enumerations (`showAs`, `sensitivity`, `importance`) ignoring case; the recurrence ignoring the order of
///   its days and the case of its names.
///
/// Only the properties the new event carries are compared (a PATCH leaves the others as they are), and
/// graph-ics's own extended properties and `transactionId` are never part of the change: the caller adds what
/// it writes besides (the import its version property, sync its file property).
public struct EventChange: Sendable, Equatable {
    /// The Graph names of the properties that changed, as ``MailingRule`` (in GraphICS) reads a PATCH.
    public var fields: Set<String>
    /// The PATCH: the new event with only ``fields`` set.
    public var patch: GraphEvent

    /// The properties compared, in the order of the model.
    public static let comparedFields = [
        "subject", "body", "start", "end", "isAllDay", "showAs", "sensitivity", "importance", "categories",
        "location", "attendees", "isReminderOn", "reminderMinutesBeforeStart", "recurrence",
    ]

    /// The change from `baseline` to `new`, both as graph-ics maps them; nil when nothing Graph holds changed.
    ///
    /// A property counts as unchanged when it agrees with one of `baselines` (for example Graph's event as it
    /// reads, and the same event mapped as graph-ics maps it).
    public static func between(_ baselines: [GraphEvent], _ new: GraphEvent) -> EventChange? {
        var fields: Set<String> = []
        func compare(_ names: [String], _ same: (GraphEvent) -> Bool) {
            if !baselines.contains(where: same) { fields.formUnion(names) }
        }
        if let subject = new.subject {
            compare(["subject"]) { text($0.subject) == text(subject) }
        }
        if let body = new.body {
            compare(["body"]) { sameBody($0.body, body) }
        }
        if new.start != nil || new.end != nil || new.isAllDay != nil {
            compare(["start", "end"]) { sameTimes($0, new) }
            // Between all-day and timed, all three go together.
            if let allDay = new.isAllDay { compare(["isAllDay", "start", "end"]) { ($0.isAllDay ?? false) == allDay } }
        }
        if let showAs = new.showAs { compare(["showAs"]) { lower($0.showAs) == lower(showAs) } }
        if let sensitivity = new.sensitivity {
            compare(["sensitivity"]) { lower($0.sensitivity) == lower(sensitivity) }
        }
        if let importance = new.importance {
            compare(["importance"]) { lower($0.importance) == lower(importance) }
        }
        if let categories = new.categories {
            compare(["categories"]) { Set(($0.categories ?? []).map(text)) == Set(categories.map(text)) }
        }
        if let location = new.location {
            compare(["location"]) { text($0.location?.displayName) == text(location.displayName) }
        }
        if let attendees = new.attendees {
            compare(["attendees"]) { attendeeSet($0.attendees ?? []) == attendeeSet(attendees) }
        }
        if new.isReminderOn != nil || new.reminderMinutesBeforeStart != nil {
            var names: [String] = []
            if new.isReminderOn != nil { names.append("isReminderOn") }
            if new.reminderMinutesBeforeStart != nil { names.append("reminderMinutesBeforeStart") }
            compare(names) { sameReminder($0, new) }
        }
        if let recurrence = new.recurrence {
            compare(["recurrence"]) { sameRecurrence($0.recurrence, recurrence) }
        }
        guard !fields.isEmpty else { return nil }
        var patch = GraphEvent()
        if fields.contains("subject") { patch.subject = new.subject }
        if fields.contains("body") { patch.body = new.body }
        if fields.contains("start") { patch.start = new.start }
        if fields.contains("end") { patch.end = new.end }
        if fields.contains("isAllDay") { patch.isAllDay = new.isAllDay }
        if fields.contains("showAs") { patch.showAs = new.showAs }
        if fields.contains("sensitivity") { patch.sensitivity = new.sensitivity }
        if fields.contains("importance") { patch.importance = new.importance }
        if fields.contains("categories") { patch.categories = new.categories }
        if fields.contains("location") { patch.location = new.location }
        if fields.contains("attendees") { patch.attendees = new.attendees }
        if fields.contains("isReminderOn") { patch.isReminderOn = new.isReminderOn }
        if fields.contains("reminderMinutesBeforeStart") {
            patch.reminderMinutesBeforeStart = new.reminderMinutesBeforeStart
        }
        if fields.contains("recurrence") { patch.recurrence = new.recurrence }
        return EventChange(fields: fields, patch: patch)
    }

    /// The change from the event Graph holds, as Graph's JSON of one event (`graphJSON`: as last pulled, or as
    /// read now), to `new`, the event a file maps to; nil when nothing Graph holds changed.
    ///
    /// The baseline is compared both as Graph's JSON reads and as graph-ics maps it: exported as ``GraphToICS``
    /// exports it and read back with `new`'s settings, so that a body graph-ics exported (HTML, with the people
    /// and links the import appends) is the same body when the file did not change it.
    ///
    /// - Throws: ``ICalBridgeError`` (`.badInput`) when `graphJSON` is not one Graph event.
    public static func between(
        graphJSON: Data, _ new: PlannedEvent, options: ImportOptions = ImportOptions()
    ) throws(ICalBridgeError) -> EventChange? {
        let document = try GraphEventDocument.decode(graphJSON, file: options.file)
        guard document.events.count == 1, let graph = document.events.first else {
            throw ICalBridgeError(
                .badInput, "\(options.file): the baseline is not one Graph event (\(document.count) found)")
        }
        var baselines = [graph]
        if let mapped = mapped(graph, settings: new.settings, options: options) { baselines.append(mapped) }
        return between(baselines, new.payload)
    }

    /// `graph` as graph-ics maps it: exported, and the VEVENT read back with `settings`; nil when it does not
    /// map (then the JSON alone is the baseline).
    static func mapped(_ graph: GraphEvent, settings: ImportSettings, options: ImportOptions) -> GraphEvent? {
        var exported = ByteBuffer()
        guard let json = try? JSONStreamEncoder().encode(graph),
            let summary = try? GraphToICS.convert(json, options: ExportOptions(file: options.file), into: &exported),
            summary.written == 1,
            let plan = try? ICSToGraph.plan(Data(exported.bytes), options: options, settings: settings)
        else { return nil }
        return plan.events.first { $0.recurrenceID == nil }?.payload ?? plan.events.first?.payload
    }

    /// The PATCH as the JSON graph-ics sends, with `extendedProperties` (graph-ics's own, which the caller
    /// writes with every change) added.
    public func payload(adding extendedProperties: [GraphSingleValueExtendedProperty] = []) throws(ICalBridgeError)
        -> Data
    {
        var event = patch
        if !extendedProperties.isEmpty { event.singleValueExtendedProperties = extendedProperties }
        return try event.jsonPayload()
    }

    // MARK: Normalisation

    /// Text with its line endings made LF and its surrounding spaces and line breaks removed; nil is "".
    static func text(_ value: String?) -> String {
        guard let value else { return "" }
        return value.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func lower(_ value: String?) -> String {
        (value ?? "").lowercased()
    }

    private static func isHTML(_ body: GraphItemBody) -> Bool {
        body.contentType.map { ICalText.equalsIgnoringASCIICase($0, "html") } ?? false
    }

    /// Whether two bodies say the same: the same content of the same type, or the same plain text.
    static func sameBody(_ old: GraphItemBody?, _ new: GraphItemBody) -> Bool {
        let old = old ?? GraphItemBody(contentType: new.contentType, content: "")
        if isHTML(old) == isHTML(new), text(old.content) == text(new.content) { return true }
        func plain(_ body: GraphItemBody) -> String {
            text(isHTML(body) ? HTMLText.plainText(fromHTML: body.content ?? "") : body.content)
        }
        return plain(old) == plain(new)
    }

    /// An instant and the zone it was given in (the zone's resolved name), or an all-day date.
    private enum Moment: Equatable {
        case instant(Int64, zone: String)
        case date(String)
        case unreadable(String?, String?)
    }

    private static func moment(_ value: GraphDateTimeTimeZone?, allDay: Bool) -> Moment {
        guard let text = value?.dateTime, let timestamp = GraphTimestamp.parse(text) else {
            return .unreadable(value?.dateTime, value?.timeZone)
        }
        if allDay { return .date(timestamp.civil.dateString) }
        let zone: ResolvedZone?
        if case .resolved(let resolved, _) = ZoneResolver.resolve(value?.timeZone) {
            zone = resolved
        } else {
            zone = nil
        }
        guard let instant = timestamp.instant ?? zone?.instant(forLocal: timestamp.civil) else {
            return .unreadable(value?.dateTime, value?.timeZone)
        }
        return .instant(instant, zone: zone?.name ?? lower(value?.timeZone))
    }

    /// Whether `old` has the times `new` gives: all-day or not, and the same start and end.
    private static func sameTimes(_ old: GraphEvent, _ new: GraphEvent) -> Bool {
        let allDay = new.isAllDay ?? old.isAllDay ?? false
        guard (old.isAllDay ?? false) == allDay else { return false }
        if new.start != nil, moment(old.start, allDay: allDay) != moment(new.start, allDay: allDay) { return false }
        if new.end != nil, moment(old.end, allDay: allDay) != moment(new.end, allDay: allDay) { return false }
        return true
    }

    private static func sameReminder(_ old: GraphEvent, _ new: GraphEvent) -> Bool {
        let isOn = new.isReminderOn ?? old.isReminderOn ?? true
        guard (old.isReminderOn ?? true) == isOn else { return false }
        guard isOn, let minutes = new.reminderMinutesBeforeStart else { return true }
        return old.reminderMinutesBeforeStart == minutes
    }

    /// Attendees by lowercased address, each with its type (`required` when none is given).
    private static func attendeeSet(_ attendees: [GraphAttendee]) -> [String: String] {
        var set: [String: String] = [:]
        for attendee in attendees {
            let address = lower(attendee.emailAddress?.address).trimmingCharacters(in: .whitespaces)
            set[address] = lower(attendee.type ?? "required")
        }
        return set
    }

    /// Whether `old` repeats as `new` says; a zone of the pattern `new` does not name is not compared.
    private static func sameRecurrence(_ old: GraphPatternedRecurrence?, _ new: GraphPatternedRecurrence) -> Bool {
        guard var old = old.map(normalized) else { return false }
        let new = normalized(new)
        if new.range?.recurrenceTimeZone == nil { old.range?.recurrenceTimeZone = nil }
        return old == new
    }

    /// A recurrence with its names lowercased, its days sorted and what Graph fills in by default filled in.
    private static func normalized(_ recurrence: GraphPatternedRecurrence) -> GraphPatternedRecurrence {
        var result = recurrence
        if var pattern = result.pattern {
            pattern.type = pattern.type?.lowercased()
            pattern.interval = pattern.interval ?? 1
            pattern.daysOfWeek = pattern.daysOfWeek?.map { $0.lowercased() }.sorted()
            if pattern.daysOfWeek?.isEmpty == true { pattern.daysOfWeek = nil }
            pattern.firstDayOfWeek = (pattern.firstDayOfWeek ?? "sunday").lowercased()
            pattern.index = pattern.index?.lowercased()
            if pattern.month == 0 { pattern.month = nil }
            if pattern.dayOfMonth == 0 { pattern.dayOfMonth = nil }
            result.pattern = pattern
        }
        if var range = result.range {
            range.type = range.type?.lowercased()
            if range.type != "enddate" { range.endDate = nil }
            if range.type != "numbered" { range.numberOfOccurrences = nil }
            range.startDate = range.startDate.map { String($0.prefix(10)) }
            range.endDate = range.endDate.map { String($0.prefix(10)) }
            // Which zone the pattern runs in only counts by the zone it names (Windows or IANA form).
            if case .resolved(let zone, _) = ZoneResolver.resolve(range.recurrenceTimeZone) {
                range.recurrenceTimeZone = zone.name
            } else {
                range.recurrenceTimeZone = nil
            }
            result.range = range
        }
        return result
    }
}
