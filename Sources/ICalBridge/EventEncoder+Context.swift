internal import CLibical

extension EventEncoder {
    /// The resolved times of one event.
    struct Times {
        var isAllDay: Bool
        /// All-day: the first day and the day after the last (exclusive end).
        var startDate = CivilDateTime(year: 1970, month: 1, day: 1)
        var endDate = CivilDateTime(year: 1970, month: 1, day: 2)
        /// Timed: the instants, and the zones they are shown in.
        var start: Int64 = 0
        var end: Int64 = 0
        var startZone: ResolvedZone = .utc
        var endZone: ResolvedZone = .utc

        var sortStart: Int64 { isAllDay ? startDate.secondsSinceEpoch : start }
    }

    /// The state of encoding one event: the event, the VEVENT being built and what went wrong.
    struct Context {
        let event: GraphEvent
        let options: ExportOptions
        var component: ICalComponent?
        var times: Times?
        var diagnostics: [Diagnostic] = []
        var zoneUses: [(zone: ICalZone, instant: Int64)] = []
        /// Content lines libical cannot write correctly, added to the VEVENT as they are.
        var extraLines: [String] = []
        let uid: String

        init(event: GraphEvent, options: ExportOptions) {
            self.event = event
            self.options = options
            if let uid = event.iCalUId.map(ICalText.singleLine), !uid.isEmpty {
                self.uid = uid
            } else if let id = event.id.map(ICalText.singleLine), !id.isEmpty {
                self.uid = id
            } else {
                self.uid =
                    "graph-ics-"
                    + Self.stableHash(
                        [event.subject ?? "", event.start?.dateTime ?? "", event.end?.dateTime ?? ""].joined(
                            separator: "\u{1F}")
                    )
            }
        }

        // MARK: Diagnostics

        mutating func error(_ message: String) {
            diagnostics.append(
                Diagnostic(
                    .error, message, file: options.file, eventID: event.id ?? event.iCalUId, subject: event.subject)
            )
        }

        mutating func warning(_ message: String) {
            diagnostics.append(
                Diagnostic(
                    .warning, message, file: options.file, eventID: event.id ?? event.iCalUId, subject: event.subject)
            )
        }

        func add(_ property: OpaquePointer?) {
            component?.add(property)
        }

        // MARK: Times

        /// Reads start and end; nil (with an error) when the event cannot be placed in time.
        mutating func resolveTimes() -> Times? {
            guard let startValue = event.start else {
                error("start is missing")
                return nil
            }
            guard let startText = startValue.dateTime else {
                error("start.dateTime is missing")
                return nil
            }
            guard let start = GraphTimestamp.parse(startText) else {
                error(
                    "start.dateTime '\(startText)' is not a date-time (expected the form 2026-12-01T08:00:00.0000000)")
                return nil
            }
            var end: GraphTimestamp?
            if let endText = event.end?.dateTime {
                guard let parsed = GraphTimestamp.parse(endText) else {
                    error(
                        "end.dateTime '\(endText)' is not a date-time (expected the form 2026-12-01T08:00:00.0000000)")
                    return nil
                }
                end = parsed
            }

            if event.isAllDay == true {
                var times = Times(isAllDay: true)
                times.startDate = start.civil.date
                if start.civil.hour != 0 || start.civil.minute != 0 {
                    warning(
                        "all-day event does not start at midnight (\(startText)); its date \(times.startDate.dateString) is kept"
                    )
                }
                if let end {
                    times.endDate = end.civil.date
                    if end.civil.hour != 0 || end.civil.minute != 0 { times.endDate = times.endDate.adding(days: 1) }
                } else {
                    warning("end is missing; exported as a one-day event")
                    times.endDate = times.startDate.adding(days: 1)
                }
                if times.endDate <= times.startDate {
                    if times.endDate < times.startDate {
                        error("ends (\(times.endDate.dateString)) before it starts (\(times.startDate.dateString))")
                        return nil
                    }
                    times.endDate = times.startDate.adding(days: 1)
                }
                return times
            }

            var times = Times(isAllDay: false)
            guard let startInstant = instant(of: start, zoneName: startValue.timeZone, field: "start") else {
                return nil
            }
            times.start = startInstant
            if let end {
                guard let endInstant = instant(of: end, zoneName: event.end?.timeZone, field: "end") else { return nil }
                times.end = endInstant
            } else {
                warning("end is missing; exported with the same end as start")
                times.end = startInstant
            }
            if times.end < times.start {
                error("ends (\(event.end?.dateTime ?? "")) before it starts (\(startText))")
                return nil
            }
            let timeZoneZone = ZoneResolver.resolve(startValue.timeZone)
            times.startZone = displayZone(
                event.originalStartTimeZone, field: "originalStartTimeZone", timeZone: timeZoneZone)
            if event.originalEndTimeZone == nil || event.originalEndTimeZone == event.originalStartTimeZone {
                times.endZone = times.startZone
            } else {
                times.endZone = displayZone(
                    event.originalEndTimeZone, field: "originalEndTimeZone", timeZone: timeZoneZone)
            }
            return times
        }

        /// The instant of a Graph date-time in its `timeZone`.
        mutating func instant(of timestamp: GraphTimestamp, zoneName: String?, field: String) -> Int64? {
            if let instant = timestamp.instant { return instant }
            switch ZoneResolver.resolve(zoneName) {
            case .resolved(let zone, _):
                return zone.instant(forLocal: timestamp.civil)
            case .sentinel:
                if zoneName?.lowercased() == "tzone://microsoft/utc" { return timestamp.civil.secondsSinceEpoch }
                let fallback = options.fallbackZone ?? .utc
                warning(
                    "\(field).timeZone '\(zoneName ?? "")' names no real zone; its time is read in \(fallback.name)"
                        + (options.fallbackZone == nil ? " (give the mailbox zone with --tz)" : " (--tz)")
                )
                return fallback.instant(forLocal: timestamp.civil)
            case .unknown:
                error("unknown time zone '\(zoneName ?? "")' in \(field).timeZone")
                return nil
            }
        }

        /// The zone an event is shown in: its original zone, else the zone Graph gave the times in, else
        /// `--tz`, else UTC.
        mutating func displayZone(_ name: String?, field: String, timeZone: ZoneResolver.Resolution) -> ResolvedZone {
            let fallback = options.fallbackZone ?? .utc
            let fallbackNote =
                options.fallbackZone == nil ? "UTC (give the mailbox zone with --tz)" : "\(fallback.name) (--tz)"
            guard let name else {
                if case .resolved(let zone, _) = timeZone, zone != .utc { return zone }
                return fallback
            }
            switch ZoneResolver.resolve(name) {
            case .resolved(let zone, _):
                return zone
            case .sentinel:
                warning("\(field) is '\(name)', which names no real zone; shown in \(fallbackNote)")
                return fallback
            case .unknown:
                warning("\(field) '\(name)' is not a zone graph-ics knows; shown in \(fallbackNote)")
                return fallback
            }
        }

        mutating func writeTimes() {
            guard let times else { return }
            if times.isAllDay {
                add(icalproperty_new_dtstart(.make(times.startDate, isDate: true)))
                add(icalproperty_new_dtend(.make(times.endDate, isDate: true)))
                return
            }
            add(timeProperty(icalproperty_new_dtstart, instant: times.start, zone: times.startZone))
            add(timeProperty(icalproperty_new_dtend, instant: times.end, zone: times.endZone))
        }

        /// A DTSTART/DTEND: local time with TZID, or UTC when the zone is UTC or the local time would be
        /// ambiguous (the second copy of a repeated hour).
        mutating func timeProperty(
            _ make: (icaltimetype) -> OpaquePointer?,
            instant: Int64,
            zone: ResolvedZone
        ) -> OpaquePointer? {
            guard case .zone(let ical) = zone, ical.localTimeIsExact(at: instant) else {
                return make(.make(CivilDateTime(secondsSinceEpoch: instant), utc: true))
            }
            let property = make(.make(ical.localTime(at: instant)))
            ICalProperty.addParameter(property, ical.name.withCString { icalparameter_new_tzid($0) })
            zoneUses.append((ical, instant))
            return property
        }

        mutating func writeUTCTimestamp(
            _ keyPath: KeyPath<GraphEvent, String?>,
            _ field: String,
            _ make: (icaltimetype) -> OpaquePointer?
        ) {
            guard let text = event[keyPath: keyPath], !text.isEmpty else { return }
            guard let timestamp = GraphTimestamp.parse(text) else {
                warning("\(field) '\(text)' is not a date-time; left out")
                return
            }
            let instant = timestamp.instant ?? timestamp.civil.secondsSinceEpoch
            add(make(.make(CivilDateTime(secondsSinceEpoch: instant), utc: true)))
        }

        // MARK: Text properties

        mutating func writeBody() {
            var text: String?
            if let body = event.body, let content = body.content, !content.trimmingSpaces().isEmpty {
                if body.contentType?.lowercased() == "html" {
                    text = HTMLText.plainText(fromHTML: content)
                    add(ICalProperty.xText("X-ALT-DESC", content))
                    if let property = lastProperty(named: "X-ALT-DESC") {
                        ICalProperty.addParameter(property, "text/html".withCString { icalparameter_new_fmttype($0) })
                    }
                } else {
                    text = content
                }
            } else if let preview = event.bodyPreview, !preview.trimmingSpaces().isEmpty {
                text = preview
            }
            if let text, !text.trimmingSpaces().isEmpty {
                add(ICalProperty.text(icalproperty_new_description, text.trimmingSpaces()))
            }
        }

        func lastProperty(named name: String) -> OpaquePointer? {
            guard let component else { return nil }
            var found: OpaquePointer?
            var property = icalcomponent_get_first_property(component.pointer, ICAL_X_PROPERTY)
            while let current = property {
                if let xname = icalproperty_get_x_name(current), String(cString: xname) == name { found = current }
                property = icalcomponent_get_next_property(component.pointer, ICAL_X_PROPERTY)
            }
            return found
        }

        mutating func writeLocation() {
            guard let location = event.location else { return }
            let name = ICalText.singleLine(location.displayName ?? "")
            var parts: [String] = []
            if let address = location.address {
                let cityLine = [address.postalCode, address.city].compactMap { $0 }.map(ICalText.singleLine)
                    .filter { !$0.isEmpty }.joined(separator: " ")
                for part in [
                    address.street.map(ICalText.singleLine), cityLine, address.state.map(ICalText.singleLine),
                    address.countryOrRegion.map(ICalText.singleLine),
                ] {
                    if let part, !part.isEmpty { parts.append(part) }
                }
            }
            let address = parts.joined(separator: ", ")
            var value = name
            if !address.isEmpty, !name.contains(address) {
                value = name.isEmpty ? address : name + ", " + address
            }
            if !value.isEmpty { add(ICalProperty.text(icalproperty_new_location, value)) }
            if let latitude = location.coordinates?.latitude, let longitude = location.coordinates?.longitude {
                if (-90...90).contains(latitude), (-180...180).contains(longitude) {
                    add(icalproperty_new_geo(icalgeotype(lat: latitude, lon: longitude)))
                } else {
                    warning("location coordinates \(latitude), \(longitude) are out of range; GEO left out")
                }
            }
        }

        /// `mailto:` address with a CN, or nil when there is no address.
        func calendarAddress(_ email: GraphEmailAddress, make: (UnsafePointer<CChar>?) -> OpaquePointer?)
            -> OpaquePointer?
        {
            let address = ICalText.singleLine(email.address ?? "").replacing(" ", with: "")
            guard !address.isEmpty else { return nil }
            let value = address.lowercased().hasPrefix("mailto:") ? address : "mailto:" + address
            let property = value.withCString { make($0) }
            if let name = email.name.map(ICalProperty.parameterText), !name.isEmpty {
                ICalProperty.addParameter(property, name.withCString { icalparameter_new_cn($0) })
            }
            return property
        }

        mutating func writeAttendees() {
            for attendee in event.attendees ?? [] {
                guard let email = attendee.emailAddress,
                    let property = calendarAddress(email, make: icalproperty_new_attendee)
                else {
                    warning("an attendee without an e-mail address was left out")
                    continue
                }
                let type =
                    GraphMappings.attendeeTypeToICal[attendee.type ?? "required"]
                    ?? GraphMappings.attendeeTypeToICal["required"]
                if let type {
                    ICalProperty.addParameter(
                        property, icalparameter_new_from_value_string(ICAL_CUTYPE_PARAMETER, type.cutype))
                    ICalProperty.addParameter(
                        property, icalparameter_new_from_value_string(ICAL_ROLE_PARAMETER, type.role))
                }
                let partstat = GraphMappings.responseToPartstat[attendee.status?.response ?? "none"] ?? "NEEDS-ACTION"
                ICalProperty.addParameter(
                    property, icalparameter_new_from_value_string(ICAL_PARTSTAT_PARAMETER, partstat))
                add(property)
            }
        }

        mutating func writeOnlineMeeting() {
            let candidates = [event.onlineMeeting?.joinUrl, event.onlineMeetingUrl]
            guard let url = candidates.compactMap({ $0.map(ICalText.singleLine) }).first(where: { !$0.isEmpty }) else {
                return
            }
            add(url.withCString { icalproperty_new_url($0) })
            let conference = url.withCString { icalproperty_new_conference($0) }
            ICalProperty.addParameter(conference, icalparameter_new_value(ICAL_VALUE_URI))
            ICalProperty.addParameter(conference, icalparameter_new_feature(ICAL_FEATURE_VIDEO))
            let label: String
            switch event.onlineMeetingProvider {
            case "teamsForBusiness": label = "Microsoft Teams"
            case "skypeForBusiness": label = "Skype for Business"
            case "skypeForConsumer": label = "Skype"
            default: label = "Online meeting"
            }
            ICalProperty.addParameter(conference, label.withCString { icalparameter_new_label($0) })
            add(conference)
        }

        mutating func writeAlarm() {
            guard event.isReminderOn == true, let component else { return }
            let minutes = max(0, event.reminderMinutesBeforeStart ?? 15)
            guard let alarm = try? ICalComponent(kind: ICAL_VALARM_COMPONENT) else { return }
            alarm.add(icalproperty_new_action(ICAL_ACTION_DISPLAY))
            alarm.add(ICalProperty.text(icalproperty_new_description, "Reminder"))
            var duration = icaldurationtype_null_duration()
            duration.is_neg = minutes > 0 ? 1 : 0
            duration.minutes = UInt32(minutes)
            var trigger = icaltriggertype()
            trigger.time = icaltime_null_time()
            trigger.duration = duration
            alarm.add(icalproperty_new_trigger(trigger))
            component.adopt(alarm)
        }

        /// FNV-1a, for a UID that stays the same across runs when Graph gave none.
        static func stableHash(_ text: String) -> String {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in text.utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x0100_0000_01b3
            }
            return String(hash, radix: 16)
        }
    }
}
