internal import CLibical
import Foundation

/// The state of one import conversion: resolved zones per TZID, diagnostics.
struct EventDecoder {
    let options: ImportOptions
    let settings: ImportSettings
    var diagnostics: [Diagnostic] = []
    var zoneResolutions: [String: String] = [:]
    var readsFloatingTimes = false
    var zones: [String: SourceZone] = [:]
    /// The Windows zone found for a series' zone over a span of years (``placeSeries``), by TZID and years.
    var seriesZones: [String: ICalZone?] = [:]

    init(options: ImportOptions, settings: ImportSettings) {
        self.options = options
        self.settings = settings
    }

    /// A time value of a property: the civil time, and how to read it.
    struct TimeValue {
        var civil: CivilDateTime
        var isDate: Bool
        var isUTC: Bool
        var tzid: String?
    }

    // MARK: Planning one VEVENT

    /// The planned events for one VEVENT (several when its recurrence is expanded), finished for
    /// ``settings``; empty with an error when it cannot be imported.
    mutating func plan(_ event: ICSDocument.Event, overrides: [ICSDocument.Event]) -> [PlannedEvent] {
        var context = Context(event: event, file: options.file)
        var planned = plan(&context, overrides: overrides)
        diagnostics += context.diagnostics
        for index in planned.indices { ImportIdentity.identify(&planned[index]) }
        return planned
    }

    /// The planned events for the VEVENT `context` decodes, before their identity is written.
    mutating func plan(_ context: inout Context, overrides: [ICSDocument.Event]) -> [PlannedEvent] {
        let component = context.event.pointer
        for problem in ICSDocument.errors(in: component) {
            context.warning("libical: \(problem)")
        }
        guard let base = payload(&context) else { return [] }
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
            followUps: [],
            settings: settings
        )
        let rrules = ICalComponent.values(of: "RRULE", in: component)
        let hasRDate = icalcomponent_get_first_property(component, ICAL_RDATE_PROPERTY) != nil
        guard !rrules.isEmpty || hasRDate, recurrenceID == nil else { return [planned] }
        guard let start = time(ICAL_DTSTART_PROPERTY, in: component) else { return [] }
        let zone: any ZoneOffsets = context.startSource ?? ResolvedZone.utc
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
                planned.payload.recurrence = recurrence
                guard placeSeries(&planned.payload, start: start, rrule: rrules[0], context: &context) else {
                    if options.strict { return [] }
                    break
                }
                let (steps, separate) = followUps(
                    component, start: start, rrule: rrules[0], overrides: overrides, context: &context)
                planned.followUps = steps
                return [planned] + separate
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

    // MARK: The payload of one VEVENT

    /// Everything but recurrence and identity; nil (with an error) when the event cannot be placed in time.
    mutating func payload(_ context: inout Context) -> GraphEvent? {
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
        if settings.notifiesAttendees { event.attendees = attendees(component) }
        return event
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
        /// A timed DTSTART's instant, the zone it was written in (nil for UTC) and the zone Graph gets for it
        /// (nil: UTC, because the zone has no Windows name).
        var startInstant: Int64 = 0
        var startSource: (any ZoneOffsets)?
        var startGraphZone: ICalZone?
        /// The end is told to Graph in the start's zone: DTEND has DTSTART's TZID, or there is no DTEND.
        var endFollowsStart = true
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
