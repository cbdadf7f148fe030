internal import CLibical
import Foundation

/// The state of one import conversion: resolved zones per TZID, diagnostics.
struct EventDecoder {
    let options: ImportOptions
    var diagnostics: [Diagnostic] = []
    /// How each TZID was resolved (``ImportPlan/zoneResolutions``).
    var zoneResolutions: [String: String] = [:]
    private var zones: [String: SourceZone] = [:]

    init(options: ImportOptions) {
        self.options = options
    }

    /// How a TZID of the file is understood.
    enum SourceZone {
        /// A zone whose offsets graph-ics knows (IANA or UTC).
        case known(ResolvedZone)
        /// Only the file's own VTIMEZONE describes it: instants come from its STANDARD and DAYLIGHT parts,
        /// Graph gets UTC.
        case embedded(FileTimeZone)
        /// Nothing knows it.
        case unknown
    }

    /// A time value of a property: the civil time, and how to read it.
    struct TimeValue {
        var civil: CivilDateTime
        var isDate: Bool
        var isUTC: Bool
        var tzid: String?
    }

    // MARK: Planning one VEVENT

    /// The planned events for one VEVENT (several when its recurrence is expanded); empty with an error
    /// when it cannot be imported.
    mutating func plan(_ event: ICSDocument.Event, overrides: [ICSDocument.Event]) -> [PlannedEvent] {
        var context = Context(event: event, file: options.file)
        let planned = plan(&context, overrides: overrides)
        diagnostics += context.diagnostics
        return planned
    }

    private mutating func plan(_ context: inout Context, overrides: [ICSDocument.Event]) -> [PlannedEvent] {
        let component = context.event.pointer
        for problem in ICSDocument.errors(in: component) {
            context.warning("libical: \(problem)")
        }
        guard var base = payload(&context) else { return [] }
        let uid = context.uid
        let recurrenceID = time(ICAL_RECURRENCEID_PROPERTY, in: component).map(Self.identityText)
        var planned = PlannedEvent(
            payload: base,
            sourceUID: uid,
            recurrenceID: recurrenceID,
            sequence: ICalComponent.value(of: "SEQUENCE", in: component).flatMap { Int($0) },
            timestamp: ICalComponent.value(of: "DTSTAMP", in: component),
            method: context.event.method,
            isCancelled: ICalComponent.value(of: "STATUS", in: component).map({
                ICalText.equalsIgnoringASCIICase($0, "CANCELLED")
            }) == true,
            followUps: []
        )
        let rrules = ICalComponent.values(of: "RRULE", in: component)
        let hasRDate = icalcomponent_get_first_property(component, ICAL_RDATE_PROPERTY) != nil
        guard !rrules.isEmpty || hasRDate, recurrenceID == nil else {
            planned.payload = identify(base, key: ImportIdentity.key(uid: uid, recurrenceID: recurrenceID))
            return [planned]
        }
        guard let start = time(ICAL_DTSTART_PROPERTY, in: component) else { return [] }
        let zone = context.zoneForRecurrence
        if rrules.count == 1, !hasRDate {
            let mapped = RecurrenceMapping.graphRecurrence(
                rrule: rrules[0],
                start: start.civil,
                isAllDay: start.isDate,
                recurrenceTimeZone: base.start?.timeZone,
                untilToLocal: { zone.localTime(at: $0) }
            )
            switch mapped {
            case .success(let recurrence):
                base.recurrence = recurrence
                planned.payload = identify(base, key: ImportIdentity.key(uid: uid, recurrenceID: nil))
                planned.followUps = followUps(component, start: start, overrides: overrides, context: &context)
                return [planned]
            case .failure(let unsupported):
                if options.strict {
                    context.error(
                        "RRULE:\(rrules[0]) cannot be held by Graph (\(unsupported.reason)); refused (--strict)")
                    return []
                }
                context.warning(
                    "RRULE:\(rrules[0]) cannot be held by Graph (\(unsupported.reason)); expanded into single events")
            }
        } else if options.strict {
            context.error("\(hasRDate ? "RDATE" : "several RRULEs") cannot be held by Graph; refused (--strict)")
            return []
        } else {
            context.warning(
                "\(hasRDate ? "RDATE" : "several RRULEs") cannot be held by Graph; expanded into single events")
        }
        return expand(base, start: start, rrules: rrules, overrides: overrides, context: &context)
    }

    /// EXDATEs → cancel follow-ups; overrides → patch follow-ups.
    private mutating func followUps(
        _ component: OpaquePointer,
        start: TimeValue,
        overrides: [ICSDocument.Event],
        context: inout Context
    ) -> [FollowUp] {
        var steps: [FollowUp] = []
        for exdate in Self.properties(ICAL_EXDATE_PROPERTY, in: component) {
            guard let value = timeValue(exdate, defaultTZID: start.tzid) else { continue }
            if let text = originalStart(value, context: &context) {
                steps.append(.cancelOccurrence(originalStart: text))
            }
        }
        for override in overrides {
            var overrideContext = Context(event: override, file: options.file)
            guard let recurrenceID = time(ICAL_RECURRENCEID_PROPERTY, in: override.pointer),
                let text = originalStart(recurrenceID, context: &overrideContext),
                let changes = payload(&overrideContext)
            else {
                diagnostics += overrideContext.diagnostics
                continue
            }
            diagnostics += overrideContext.diagnostics
            if ICalComponent.value(of: "STATUS", in: override.pointer).map({
                ICalText.equalsIgnoringASCIICase($0, "CANCELLED")
            }) == true {
                steps.append(.cancelOccurrence(originalStart: text))
            } else {
                steps.append(.patchOccurrence(originalStart: text, changes: changes))
            }
        }
        return steps
    }

    /// DTSTART and the occurrences each RRULE adds: at most ``ImportOptions/expansionLimit`` and none past
    /// the RRULE's expansion horizon, with a warning for each RRULE not expanded, or expanded only in part.
    private func recurrenceStarts(of rrules: [String], from start: TimeValue, context: inout Context)
        -> Set<CivilDateTime>
    {
        let limit = options.expansionLimit
        var starts: Set<CivilDateTime> = [start.civil]
        for recurrenceRule in rrules.map(RecurrenceRule.init) {
            if let scale = recurrenceRule.nonGregorianScale {
                // libical steps through such RRULEs with ICU's calendars, seconds each; Graph cannot hold
                // them either.
                context.warning(
                    "RRULE:\(recurrenceRule.text) repeats in the \(scale) calendar, which graph-ics does not"
                        + " expand; only the first occurrence is imported")
                continue
            }
            if start.isDate, recurrenceRule.isFinerThanDaily {
                // Every occurrence would be the event's own day again (and libical would step through
                // every second or minute of the days it compares).
                context.warning(
                    "RRULE:\(recurrenceRule.text) repeats within a day, but the event is all-day; it adds no days")
                continue
            }
            if let reason = recurrenceRule.neverOccurs(from: start.civil) {
                context.warning("RRULE:\(recurrenceRule.text) never occurs (\(reason)); it adds no occurrences")
                continue
            }
            let horizon = recurrenceRule.expansionHorizon(start: start.civil, budget: options.expansionBudget)
            let (occurrences, cut) = recurrenceRule.expansion(
                start: start.civil, isAllDay: start.isDate, count: limit + 1, horizon: horizon)
            if occurrences.count > limit {
                context.warning(
                    "RRULE:\(recurrenceRule.text) has more than \(limit) occurrences; only the first \(limit)"
                        + " are imported")
            } else if cut, let horizon {
                context.warning(
                    "RRULE:\(recurrenceRule.text) is expanded only up to"
                        + " \(start.isDate ? horizon.dateString : horizon.description)"
                        + ": stepping through a rule whose filters match this seldom takes too long;"
                        + " later occurrences are not imported")
            }
            starts.formUnion(occurrences.prefix(limit))
        }
        return starts
    }

    /// A recurrence Graph cannot hold, as single events (bounded), each with its own identity.
    private mutating func expand(
        _ base: GraphEvent,
        start: TimeValue,
        rrules: [String],
        overrides: [ICSDocument.Event],
        context: inout Context
    ) -> [PlannedEvent] {
        let component = context.event.pointer
        let limit = options.expansionLimit
        var starts = recurrenceStarts(of: rrules, from: start, context: &context)
        for property in Self.properties(ICAL_RDATE_PROPERTY, in: component) {
            if let value = timeValue(property, defaultTZID: start.tzid) { starts.insert(value.civil) }
        }
        for property in Self.properties(ICAL_EXDATE_PROPERTY, in: component) {
            if let value = timeValue(property, defaultTZID: start.tzid) {
                starts.remove(value.civil)
                if !value.isDate { continue }
                starts = starts.filter { $0.date != value.civil.date }
            }
        }
        var overrideByStart: [CivilDateTime: ICSDocument.Event] = [:]
        for override in overrides {
            if let id = time(ICAL_RECURRENCEID_PROPERTY, in: override.pointer) { overrideByStart[id.civil] = override }
        }
        let duration = context.durationSeconds
        let dayCount = context.allDayLength
        var result: [PlannedEvent] = []
        for occurrence in starts.sorted().prefix(limit) {
            let recurrenceID = Self.identityText(
                TimeValue(civil: occurrence, isDate: start.isDate, isUTC: start.isUTC, tzid: start.tzid))
            var payload = base
            if let override = overrideByStart[occurrence] {
                var overrideContext = Context(event: override, file: options.file)
                if let changed = self.payload(&overrideContext) { payload = changed }
                diagnostics += overrideContext.diagnostics
            } else if start.isDate {
                payload.start = GraphDateTimeTimeZone(
                    dateTime: occurrence.date.description, timeZone: base.start?.timeZone)
                payload.end = GraphDateTimeTimeZone(
                    dateTime: occurrence.date.adding(days: dayCount).description, timeZone: base.end?.timeZone)
            } else {
                let value = TimeValue(civil: occurrence, isDate: false, isUTC: start.isUTC, tzid: start.tzid)
                guard let placed = place(value, context: &context) else { continue }
                payload.start = placed.graph
                payload.end = Self.graphTime(placed.instant + duration, zone: placed.graphZone)
            }
            result.append(
                PlannedEvent(
                    payload: identify(payload, key: ImportIdentity.key(uid: context.uid, recurrenceID: recurrenceID)),
                    sourceUID: context.uid,
                    recurrenceID: recurrenceID,
                    sequence: ICalComponent.value(of: "SEQUENCE", in: component).flatMap { Int($0) },
                    timestamp: ICalComponent.value(of: "DTSTAMP", in: component),
                    method: context.event.method,
                    isCancelled: false,
                    followUps: []
                ))
        }
        return result
    }

    /// The payload with the identity property and transactionId set.
    private func identify(_ event: GraphEvent, key: String) -> GraphEvent {
        var event = event
        event.singleValueExtendedProperties = [
            GraphSingleValueExtendedProperty(id: ImportIdentity.propertyID, value: key)
        ]
        event.transactionId = ImportIdentity.transactionID(for: key)
        return event
    }

    // MARK: The payload of one VEVENT

    /// Everything but recurrence and identity; nil (with an error) when the event cannot be placed in time.
    private mutating func payload(_ context: inout Context) -> GraphEvent? {
        let component = context.event.pointer
        var event = GraphEvent()
        event.subject = ICalComponent.value(of: "SUMMARY", in: component)
        guard let start = time(ICAL_DTSTART_PROPERTY, in: component) else {
            context.error("DTSTART is missing")
            return nil
        }
        if start.isDate {
            guard placeAllDay(&event, start: start, context: &context) else { return nil }
        } else {
            guard placeTimed(&event, start: start, context: &context) else { return nil }
        }
        writeBody(&event, component: component)
        if let location = ICalComponent.value(of: "LOCATION", in: component), !location.isEmpty {
            event.location = GraphLocation(displayName: location)
        }
        if let geo = icalcomponent_get_first_property(component, ICAL_GEO_PROPERTY) {
            let value = icalproperty_get_geo(geo)
            var location = event.location ?? GraphLocation()
            location.coordinates = GraphOutlookGeoCoordinates(latitude: value.lat, longitude: value.lon)
            event.location = location
        }
        mapStatusProperties(&event, component: component)
        writeReminder(&event, component: component, context: &context)
        if options.asMeeting { event.attendees = attendees(component) }
        return event
    }

    private func mapStatusProperties(_ event: inout GraphEvent, component: OpaquePointer) {
        if let busy = ICalComponent.value(of: "X-MICROSOFT-CDO-BUSYSTATUS", in: component)?.uppercased(),
            let showAs = GraphMappings.busyStatusToShowAs[busy]
        {
            event.showAs = showAs
        } else {
            let transparent =
                ICalComponent.value(of: "TRANSP", in: component).map({
                    ICalText.equalsIgnoringASCIICase($0, "TRANSPARENT")
                }) == true
            event.showAs = transparent ? "free" : "busy"
        }
        if let personal = ICalComponent.value(of: "X-GRAPH-ICS-SENSITIVITY", in: component), personal == "personal" {
            event.sensitivity = "personal"
        } else if let value = ICalComponent.value(of: "CLASS", in: component)?.uppercased() {
            event.sensitivity = GraphMappings.classToSensitivity[value] ?? "private"
        }
        switch ICalComponent.value(of: "X-MICROSOFT-CDO-IMPORTANCE", in: component) {
        case "0": event.importance = "low"
        case "1": event.importance = "normal"
        case "2": event.importance = "high"
        default:
            if let priority = ICalComponent.value(of: "PRIORITY", in: component).flatMap({ Int($0) }), priority > 0 {
                event.importance = GraphMappings.importance(fromPriority: priority)
            }
        }
        let categories = Self.properties(ICAL_CATEGORIES_PROPERTY, in: component).flatMap(Self.categoryValues)
        if !categories.isEmpty { event.categories = categories }
    }

    /// The value of one CATEGORIES property (libical's parser already splits a multi-valued CATEGORIES
    /// into one property per value and unescapes it).
    static func categoryValues(_ property: OpaquePointer) -> [String] {
        guard let value = icalproperty_get_categories(property) else { return [] }
        let text = String(cString: value).trimmingSpaces()
        return text.isEmpty ? [] : [text]
    }

    /// DESCRIPTION, URL, and — unless `--as-meeting` — ORGANIZER and ATTENDEEs as text; X-ALT-DESC as HTML.
    private func writeBody(_ event: inout GraphEvent, component: OpaquePointer) {
        var parts: [String] = []
        if let description = ICalComponent.value(of: "DESCRIPTION", in: component)?.trimmingSpaces(),
            !description.isEmpty
        {
            parts.append(description)
        }
        if let url = ICalComponent.value(of: "URL", in: component), !url.isEmpty,
            !parts.contains(where: { ICalText.contains($0, url) })
        {
            parts.append(url)
        }
        if !options.asMeeting {
            var people: [String] = []
            if let organizer = icalcomponent_get_first_property(component, ICAL_ORGANIZER_PROPERTY) {
                people.append("Organizer: " + Self.person(organizer))
            }
            let attendees = Self.properties(ICAL_ATTENDEE_PROPERTY, in: component).map(Self.person)
            if !attendees.isEmpty { people.append("Attendees: " + attendees.joined(separator: ", ")) }
            if !people.isEmpty { parts.append(people.joined(separator: "\n")) }
        }
        let text = parts.joined(separator: "\n\n")
        if let html = Self.altDescriptionHTML(component) {
            let extra = parts.dropFirst().map { "<p>" + Self.escapeHTML($0, lineBreak: "<br>") + "</p>" }
            event.body = GraphItemBody(contentType: "html", content: html + extra.joined())
        } else if !text.isEmpty {
            event.body = GraphItemBody(contentType: "text", content: text)
        }
    }

    static func altDescriptionHTML(_ component: OpaquePointer) -> String? {
        for property in properties(ICAL_X_PROPERTY, in: component) {
            guard let name = icalproperty_get_x_name(property), strcasecmp(name, "X-ALT-DESC") == 0,
                let value = icalproperty_get_value(property), let raw = icalvalue_as_ical_string(value)
            else { continue }
            let text = ICalText.unescaped(String(cString: raw))
            return text.isEmpty ? nil : text
        }
        return nil
    }

    /// `text` as HTML text: `&`, `<` and `>` escaped, each line feed replaced by `lineBreak` when given.
    static func escapeHTML(_ text: String, lineBreak: StaticString? = nil) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count + 16)
        func append(_ replacement: StaticString) {
            output.append(
                contentsOf: UnsafeBufferPointer(start: replacement.utf8Start, count: replacement.utf8CodeUnitCount))
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): append("&amp;")
            case UInt8(ascii: "<"): append("&lt;")
            case UInt8(ascii: ">"): append("&gt;")
            case UInt8(ascii: "\n"):
                if let lineBreak { append(lineBreak) } else { output.append(byte) }
            default: output.append(byte)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// `Name <address>` of an ORGANIZER or ATTENDEE.
    static func person(_ property: OpaquePointer) -> String {
        let address = mailAddress(property)
        guard let parameter = icalproperty_get_first_parameter(property, ICAL_CN_PARAMETER),
            let name = icalparameter_get_cn(parameter).map({ String(cString: $0) }), !name.isEmpty
        else { return address }
        return address.isEmpty ? name : "\(name) <\(address)>"
    }

    /// The address of an ORGANIZER or ATTENDEE without its `mailto:`.
    static func mailAddress(_ property: OpaquePointer) -> String {
        let value = icalproperty_get_value_as_string(property).map { String(cString: $0) } ?? ""
        guard value.utf8.count >= 7, ICalText.equalsIgnoringASCIICase(String(value.prefix(7)), "mailto:") else {
            return value
        }
        return String(value.dropFirst(7))
    }

    /// `--as-meeting`: ATTENDEEs as Graph attendees (type from CUTYPE and ROLE).
    private func attendees(_ component: OpaquePointer) -> [GraphAttendee] {
        Self.properties(ICAL_ATTENDEE_PROPERTY, in: component).compactMap { property in
            let address = Self.mailAddress(property)
            guard !address.isEmpty else { return nil }
            let name = icalproperty_get_first_parameter(property, ICAL_CN_PARAMETER)
                .flatMap { icalparameter_get_cn($0) }.map { String(cString: $0) }
            let cutype = icalproperty_get_first_parameter(property, ICAL_CUTYPE_PARAMETER).map {
                icalparameter_get_cutype($0)
            }
            let role = icalproperty_get_first_parameter(property, ICAL_ROLE_PARAMETER).map {
                icalparameter_get_role($0)
            }
            let type: String
            if cutype == ICAL_CUTYPE_RESOURCE || cutype == ICAL_CUTYPE_ROOM {
                type = "resource"
            } else if role == ICAL_ROLE_OPTPARTICIPANT || role == ICAL_ROLE_NONPARTICIPANT {
                type = "optional"
            } else {
                type = "required"
            }
            return GraphAttendee(type: type, emailAddress: GraphEmailAddress(name: name, address: address))
        }
    }

    /// The first DISPLAY or AUDIO alarm that fires before (or at) the start becomes the reminder.
    private func writeReminder(_ event: inout GraphEvent, component: OpaquePointer, context: inout Context) {
        event.isReminderOn = false
        var used = false
        for alarm in ICalComponent.children(of: component, ICAL_VALARM_COMPONENT) {
            let action = ICalComponent.value(of: "ACTION", in: alarm)?.uppercased() ?? ""
            guard let triggerProperty = icalcomponent_get_first_property(alarm, ICAL_TRIGGER_PROPERTY) else { continue }
            let trigger = icalproperty_get_trigger(triggerProperty)
            let related = icalproperty_get_first_parameter(triggerProperty, ICAL_RELATED_PARAMETER)
                .map { icalparameter_get_related($0) }
            let relative = icaltime_is_null_time(trigger.time) != 0 && related != ICAL_RELATED_END
            let seconds = Int(icaldurationtype_as_int(trigger.duration))
            if !used, action == "DISPLAY" || action == "AUDIO", relative, seconds <= 0 {
                event.isReminderOn = true
                event.reminderMinutesBeforeStart = -seconds / 60
                used = true
            } else {
                context.warning(
                    "an alarm (\(action.isEmpty ? "no ACTION" : action)) was not imported: Graph keeps one reminder before the start"
                )
            }
        }
    }

    // MARK: Times

    private mutating func placeAllDay(_ event: inout GraphEvent, start: TimeValue, context: inout Context) -> Bool {
        let component = context.event.pointer
        var endDate = start.civil.date.adding(days: 1)
        if let end = time(ICAL_DTEND_PROPERTY, in: component) {
            endDate = end.civil.date
        } else if let duration = icalcomponent_get_first_property(component, ICAL_DURATION_PROPERTY) {
            let value = icalproperty_get_duration(duration)
            let days = Int(value.weeks) * 7 + Int(value.days) + (Int(value.hours) + 23) / 24
            endDate = start.civil.date.adding(days: max(1, days) * (value.is_neg != 0 ? -1 : 1))
        }
        if endDate <= start.civil.date {
            if endDate < start.civil.date {
                context.error("ends (\(endDate.dateString)) before it starts (\(start.civil.dateString))")
                return false
            }
            endDate = start.civil.date.adding(days: 1)
        }
        let zone = options.userZone.flatMap(Self.windowsName) ?? "UTC"
        event.isAllDay = true
        event.start = GraphDateTimeTimeZone(dateTime: start.civil.date.description, timeZone: zone)
        event.end = GraphDateTimeTimeZone(dateTime: endDate.description, timeZone: zone)
        context.allDayLength = (Int(endDate.daysSinceEpoch - start.civil.date.daysSinceEpoch))
        return true
    }

    private mutating func placeTimed(_ event: inout GraphEvent, start: TimeValue, context: inout Context) -> Bool {
        let component = context.event.pointer
        guard let placedStart = place(start, context: &context) else { return false }
        var endInstant = placedStart.instant
        var endZone = placedStart.graphZone
        if let end = time(ICAL_DTEND_PROPERTY, in: component), !end.isDate {
            guard let placedEnd = place(end, context: &context) else { return false }
            endInstant = placedEnd.instant
            endZone = placedEnd.graphZone
        } else if var end = time(ICAL_DTEND_PROPERTY, in: component) {
            // RFC 5545 wants DTEND of DTSTART's type; a date here means the midnight that starts that day,
            // in the start's zone.
            context.warning("DTEND is a date but DTSTART has a time; the event ends at midnight starting that day")
            end.isDate = false
            end.isUTC = start.isUTC
            end.tzid = start.tzid
            guard let placedEnd = place(end, context: &context) else { return false }
            endInstant = placedEnd.instant
        } else if let durationProperty = icalcomponent_get_first_property(component, ICAL_DURATION_PROPERTY) {
            let duration = icalproperty_get_duration(durationProperty)
            let sign = duration.is_neg != 0 ? -1 : 1
            // Days and weeks are nominal (same wall-clock time), hours and less exact (RFC 5545 §3.3.6).
            let days = (Int(duration.weeks) * 7 + Int(duration.days)) * sign
            let exact = Int64((Int(duration.hours) * 3600 + Int(duration.minutes) * 60 + Int(duration.seconds)) * sign)
            var endLocal = start
            endLocal.civil = start.civil.adding(days: days)
            let dayShifted =
                days == 0 ? placedStart.instant : (place(endLocal, context: &context)?.instant ?? placedStart.instant)
            endInstant = dayShifted + exact
        }
        if endInstant < placedStart.instant {
            context.error("ends before it starts")
            return false
        }
        event.isAllDay = false
        event.start = placedStart.graph
        event.end = Self.graphTime(endInstant, zone: endZone)
        context.durationSeconds = endInstant - placedStart.instant
        context.zoneForRecurrence = placedStart.graphZone.map { ResolvedZone.zone($0) } ?? .utc
        return true
    }

    /// A placed time: its instant, the zone Graph gets (nil for UTC), and the Graph value.
    struct Placed {
        var instant: Int64
        var graphZone: ICalZone?
        var graph: GraphDateTimeTimeZone
    }

    /// The exact instant of a DATE-TIME value, and how to tell Graph: local time in the Windows zone of
    /// its zone (re-derived from the instant, so the instant stays exact), or UTC.
    private mutating func place(_ value: TimeValue, context: inout Context) -> Placed? {
        let instant: Int64
        var graphZone: ICalZone?
        if value.isUTC {
            instant = value.civil.secondsSinceEpoch
        } else if let tzid = value.tzid {
            switch sourceZone(tzid, context: &context) {
            case .known(let zone):
                instant = zone.instant(forLocal: value.civil)
                if case .zone(let ical) = zone { graphZone = Self.graphZone(for: ical) }
            case .embedded(let embedded):
                instant = embedded.instant(forLocal: value.civil)
            case .unknown:
                context.error("unknown time zone TZID=\(tzid): not a known name, and the file has no VTIMEZONE for it")
                return nil
            }
        } else if let user = options.userZone {
            instant = user.instant(forLocal: value.civil)
            if case .zone(let ical) = user { graphZone = Self.graphZone(for: ical) }
        } else {
            context.warningOnce("floating time (no TZID, no Z) read as UTC; give your zone with --tz")
            instant = value.civil.secondsSinceEpoch
        }
        return Placed(instant: instant, graphZone: graphZone, graph: Self.graphTime(instant, zone: graphZone))
    }

    /// The zone whose Windows name Graph will get: the CLDR default zone of the zone's Windows name, or
    /// nil (UTC) when the zone has no Windows name.
    static func graphZone(for zone: ICalZone) -> ICalZone? {
        guard let windows = WindowsZones.windows(forIANA: zone.name), let iana = WindowsZones.iana(forWindows: windows)
        else { return nil }
        return ICalZone.named(iana)
    }

    static func windowsName(_ zone: ResolvedZone) -> String? {
        switch zone {
        case .utc: return "UTC"
        case .zone(let ical): return WindowsZones.windows(forIANA: ical.name)
        }
    }

    /// Graph's form of an instant in a zone: local time there with the zone's Windows name, or UTC.
    static func graphTime(_ instant: Int64, zone: ICalZone?) -> GraphDateTimeTimeZone {
        guard let zone, let windows = WindowsZones.windows(forIANA: zone.name) else {
            return GraphDateTimeTimeZone(
                dateTime: CivilDateTime(secondsSinceEpoch: instant).description, timeZone: "UTC")
        }
        return GraphDateTimeTimeZone(dateTime: zone.localTime(at: instant).description, timeZone: windows)
    }

    /// The time-zone ladder of DESIGN.md for one TZID, remembered per file.
    private mutating func sourceZone(_ tzid: String, context: inout Context) -> SourceZone {
        if let known = zones[tzid] { return known }
        let resolved: SourceZone
        let resolution: String
        switch ZoneResolver.resolve(tzid) {
        case .resolved(let zone, let how):
            resolved = .known(zone)
            resolution = how
        case .sentinel where tzid.lowercased() == "tzone://microsoft/utc":
            resolved = .known(.utc)
            resolution = "tzone://Microsoft/Utc"
        case .sentinel, .unknown:
            let year = time(ICAL_DTSTART_PROPERTY, in: context.event.pointer)?.civil.year ?? 2026
            if let text = context.event.timezones[tzid],
                let embedded = FileTimeZone(vtimezone: text, throughYear: year + 10)
            {
                if let iana = embedded.matchingIANAZone(year: year), let zone = ResolvedZone.iana(iana) {
                    resolved = .known(zone)
                    resolution = "VTIMEZONE rules match \(iana)"
                } else {
                    resolved = .embedded(embedded)
                    resolution = "the file's VTIMEZONE (no IANA zone matches; sent to Graph in UTC)"
                }
            } else {
                resolved = .unknown
                resolution = "unknown"
            }
        }
        zones[tzid] = resolved
        if case .known(let zone) = resolved {
            zoneResolutions[tzid] = "\(zone.name) (\(resolution))"
        } else {
            zoneResolutions[tzid] = resolution
        }
        return resolved
    }

    // MARK: Reading values

    /// The first property of `kind` as a time value.
    func time(_ kind: icalproperty_kind, in component: OpaquePointer) -> TimeValue? {
        guard let property = icalcomponent_get_first_property(component, kind) else { return nil }
        return timeValue(property, defaultTZID: nil)
    }

    /// A DATE or DATE-TIME property's value with its TZID.
    func timeValue(_ property: OpaquePointer, defaultTZID: String?) -> TimeValue? {
        guard let value = icalproperty_get_value(property) else { return nil }
        let kind = icalvalue_isa(value)
        guard kind == ICAL_DATETIME_VALUE || kind == ICAL_DATE_VALUE || kind == ICAL_DATETIMEPERIOD_VALUE else {
            return nil
        }
        let time =
            kind == ICAL_DATETIMEPERIOD_VALUE ? icalvalue_get_datetimeperiod(value).time : icalvalue_get_datetime(value)
        guard icaltime_is_null_time(time) == 0, icaltime_is_valid_time(time) != 0 else { return nil }
        let tzid = icalproperty_get_first_parameter(property, ICAL_TZID_PARAMETER)
            .flatMap { icalparameter_get_tzid($0) }.map { String(cString: $0) }
        let civil = CivilDateTime(
            year: Int(time.year), month: Int(time.month), day: Int(time.day),
            hour: time.is_date != 0 ? 0 : Int(time.hour), minute: time.is_date != 0 ? 0 : Int(time.minute),
            second: time.is_date != 0 ? 0 : Int(time.second))
        guard civil.isValid else { return nil }
        return TimeValue(
            civil: civil, isDate: time.is_date != 0, isUTC: icaltime_is_utc(time) != 0, tzid: tzid ?? defaultTZID)
    }

    /// RECURRENCE-ID text for the identity key: `20261201T090000Z`, local `20261201T090000`, or a date.
    static func identityText(_ value: TimeValue) -> String {
        let date =
            CivilDateTime.pad(value.civil.year, 4) + CivilDateTime.pad(value.civil.month, 2)
            + CivilDateTime.pad(value.civil.day, 2)
        if value.isDate { return date }
        let time =
            "T" + CivilDateTime.pad(value.civil.hour, 2) + CivilDateTime.pad(value.civil.minute, 2)
            + CivilDateTime.pad(value.civil.second, 2)
        return date + time + (value.isUTC ? "Z" : "")
    }

    /// The original start of an occurrence as `import` needs it: UTC instant, or a date for all-day events.
    private mutating func originalStart(_ value: TimeValue, context: inout Context) -> String? {
        if value.isDate { return value.civil.date.dateString }
        guard let placed = place(value, context: &context) else { return nil }
        return CivilDateTime(secondsSinceEpoch: placed.instant).description + "Z"
    }

    static func properties(_ kind: icalproperty_kind, in component: OpaquePointer) -> [OpaquePointer] {
        ICalComponent.properties(of: component, kind)
    }
}

extension EventDecoder {
    /// The state of decoding one VEVENT.
    struct Context {
        let event: ICSDocument.Event
        let file: String
        let uid: String
        let subject: String?
        var diagnostics: [Diagnostic] = []
        var durationSeconds: Int64 = 0
        var allDayLength = 1
        var zoneForRecurrence: ResolvedZone = .utc
        private var warned = Set<String>()

        init(event: ICSDocument.Event, file: String) {
            self.event = event
            self.file = file
            let uid = ICalComponent.value(of: "UID", in: event.pointer)?.trimmingSpaces() ?? ""
            self.subject = ICalComponent.value(of: "SUMMARY", in: event.pointer)
            if uid.isEmpty {
                // RFC 5545 requires a UID; without one, one derived from the content keeps re-imports idempotent.
                let seed = [subject ?? "", ICalComponent.value(of: "DTSTART", in: event.pointer) ?? ""].joined(
                    separator: "\u{1F}")
                self.uid = "graph-ics-" + ImportIdentity.transactionID(for: seed).dropFirst(10)
            } else {
                self.uid = uid
            }
        }

        mutating func error(_ message: String) {
            diagnostics.append(
                Diagnostic(.error, message, file: file, eventID: uid, subject: subject, line: event.line))
        }

        mutating func warning(_ message: String) {
            diagnostics.append(
                Diagnostic(.warning, message, file: file, eventID: uid, subject: subject, line: event.line))
        }

        mutating func warningOnce(_ message: String) {
            guard warned.insert(message).inserted else { return }
            warning(message)
        }
    }
}
