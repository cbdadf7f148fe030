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
        var lines = ContentLines()
        var times: Times?
        var diagnostics: [Diagnostic] = []
        var zoneUses: [ZoneUse] = []
        let uid: String

        init(event: GraphEvent, options: ExportOptions) {
            self.event = event
            self.options = options
            if let uid = event.iCalUId.map(ICalText.singleLine), !uid.isEmpty {
                self.uid = uid
            } else if let id = event.id.map(ICalText.singleLine), !id.isEmpty {
                self.uid = id
            } else if let key = ImportIdentity.key(of: event).map(ICalText.singleLine), !key.isEmpty {
                // A payload graph-ics planned (`convert --to graph-json`) keeps its source UID.
                self.uid = key
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
            if event.originalStartTimeZone == nil, event.originalEndTimeZone == nil,
                event.end?.timeZone != startValue.timeZone
            {
                // A payload (no original zones): the end is shown in its own zone, as Graph would.
                times.endZone = displayZone(
                    nil, field: "end.timeZone", timeZone: ZoneResolver.resolve(event.end?.timeZone))
            } else if event.originalEndTimeZone == nil || event.originalEndTimeZone == event.originalStartTimeZone {
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
                return place(timestamp.civil, in: zone, field: field)
            case .sentinel:
                if zoneName?.lowercased() == "tzone://microsoft/utc" { return timestamp.civil.secondsSinceEpoch }
                let fallback = options.fallbackZone ?? .utc
                warning(
                    "\(field).timeZone '\(zoneName ?? "")' names no real zone; its time is read in \(fallback.name)"
                        + (options.fallbackZone == nil ? " (give the mailbox zone with --tz)" : " (--tz)")
                )
                return place(timestamp.civil, in: fallback, field: field)
            case .unknown:
                error("unknown time zone '\(zoneName ?? "")' in \(field).timeZone")
                return nil
            }
        }

        /// The instant of a wall-clock time in `zone`, or nil (with an error) when its year is outside the
        /// years graph-ics places in zones.
        mutating func place(_ local: CivilDateTime, in zone: ResolvedZone, field: String) -> Int64? {
            let asUTC = local.secondsSinceEpoch
            if case .zone = zone, !ICalZone.supportedInstants.contains(asUTC) {
                error("\(field).dateTime is in the year \(local.year); graph-ics places local times only in 1900–2199")
                return nil
            }
            return zone.instant(forLocal: local)
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
                lines.time("DTSTART", times.startDate, parameters: ["VALUE": "DATE"], dateOnly: true)
                lines.time("DTEND", times.endDate, parameters: ["VALUE": "DATE"], dateOnly: true)
                return
            }
            writeTime("DTSTART", instant: times.start, zone: times.startZone)
            // RFC 5545 wants DTEND after DTSTART. A timed event without DTEND lasts no time at all, but
            // khal shows it as an hour: DURATION:PT0S says zero length to every reader.
            if times.end > times.start {
                writeTime("DTEND", instant: times.end, zone: times.endZone)
            } else {
                lines.property("DURATION", value: "PT0S")
            }
        }

        /// A DTSTART/DTEND: local time with TZID, or UTC when the zone is UTC or the local time would be
        /// ambiguous (a time in the repeated hour when clocks go back).
        mutating func writeTime(_ name: String, instant: Int64, zone: ResolvedZone) {
            guard case .zone(let ical) = zone, ICalZone.supportedInstants.contains(instant),
                ical.localTimeIsExact(at: instant)
            else {
                lines.time(name, CivilDateTime(secondsSinceEpoch: instant), utc: true)
                return
            }
            lines.time(name, ical.localTime(at: instant), parameters: ["TZID": ical.name])
            zoneUses.append(ZoneUse(zone: ical, from: instant, to: instant))
        }

        /// A series master's `patternedRecurrence` as an RRULE (occurrences and exceptions of a series that
        /// calendarView returns are exported as events of their own).
        mutating func writeRecurrence() {
            guard let recurrence = event.recurrence, recurrence.pattern != nil, let times else { return }
            let zone = times.startZone
            let start = times.isAllDay ? times.startDate : zone.localTime(at: times.start)
            let rule = RecurrenceMapping.rrule(
                from: recurrence,
                start: start,
                isAllDay: times.isAllDay,
                endOfDayToUTC: { zone.instant(forLocal: $0) }
            )
            switch rule {
            case .success(let text):
                lines.property("RRULE", value: text)
                // The VTIMEZONE must cover the whole series, not just its first occurrence.
                if case .zone(let ical) = zone, !times.isAllDay {
                    zoneUses.append(
                        ZoneUse(zone: ical, from: times.start, to: seriesEnd(recurrence, rule: text, zone: zone)))
                }
            case .failure(let unsupported):
                warning("recurrence left out: \(unsupported.reason)")
            }
        }

        /// The last instant of a series: the end of its end date, its last numbered occurrence, or nil
        /// when it never ends.
        func seriesEnd(_ recurrence: GraphPatternedRecurrence, rule: String, zone: ResolvedZone) -> Int64? {
            guard let times else { return nil }
            switch recurrence.range?.type {
            case "endDate":
                guard let text = recurrence.range?.endDate, let date = GraphTimestamp.parse(text)?.civil else {
                    return nil
                }
                var endOfDay = date.date
                endOfDay.hour = 23
                endOfDay.minute = 59
                endOfDay.second = 59
                return zone.instant(forLocal: endOfDay) + (times.end - times.start)
            case "numbered":
                let count = max(1, recurrence.range?.numberOfOccurrences ?? 1)
                let start = zone.localTime(at: times.start)
                guard let last = RecurrenceMapping.occurrences(rrule: rule, start: start, count: count).last else {
                    return nil
                }
                return zone.instant(forLocal: last) + (times.end - times.start)
            default:
                return nil
            }
        }

        /// DTSTAMP: the event's last revision (`lastModifiedDateTime`, else `createdDateTime`, else
        /// ``ExportOptions/timestamp``), never the time of the export, so that exporting unchanged events
        /// again gives the same bytes. Without METHOD, RFC 5545 §3.8.7.2 reads DTSTAMP as exactly that
        /// revision; with METHOD:PUBLISH it is the revision the published copy was made from.
        mutating func writeStamp() {
            for text in [event.lastModifiedDateTime, event.createdDateTime] {
                guard let text, let timestamp = GraphTimestamp.parse(text) else { continue }
                let instant = timestamp.instant ?? timestamp.civil.secondsSinceEpoch
                lines.time("DTSTAMP", CivilDateTime(secondsSinceEpoch: instant), utc: true)
                return
            }
            lines.time("DTSTAMP", CivilDateTime(secondsSinceEpoch: options.timestamp), utc: true)
        }

        mutating func writeUTCTimestamp(_ keyPath: KeyPath<GraphEvent, String?>, _ field: String, _ name: String) {
            guard let text = event[keyPath: keyPath], !text.isEmpty else { return }
            guard let timestamp = GraphTimestamp.parse(text) else {
                warning("\(field) '\(text)' is not a date-time; left out")
                return
            }
            let instant = timestamp.instant ?? timestamp.civil.secondsSinceEpoch
            lines.time(name, CivilDateTime(secondsSinceEpoch: instant), utc: true)
        }

        // MARK: Text properties

        mutating func writeBody() {
            var text: String?
            var html: String?
            if let body = event.body, let content = body.content, !content.trimmingSpaces().isEmpty {
                if let type = body.contentType, ICalText.equalsIgnoringASCIICase(type, "html") {
                    text = HTMLText.plainText(fromHTML: content)
                    // Outlook's empty body is a page of markup around an empty <div>: no X-ALT-DESC then.
                    if let text, !text.trimmingSpaces().isEmpty { html = content }
                } else {
                    text = content
                }
            } else if let preview = event.bodyPreview, !preview.trimmingSpaces().isEmpty {
                text = preview
            }
            if let text, !text.trimmingSpaces().isEmpty { lines.text("DESCRIPTION", text.trimmingSpaces()) }
            if let html { lines.text("X-ALT-DESC", ["FMTTYPE": "text/html"], html) }
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
            // Outlook often puts the street, or the whole address, into displayName: neither is repeated.
            // Addresses and names are short; very long ones are not searched (the search is quadratic).
            func named(_ text: String) -> Bool {
                name.utf8.count < 4096 && text.utf8.count < 1024 && ICalText.contains(name, text)
            }
            if let street = location.address?.street.map(ICalText.singleLine), !street.isEmpty, named(street) {
                parts.removeAll { $0 == street }
            }
            let address = parts.joined(separator: ", ")
            var value = name
            if !address.isEmpty, !named(address) {
                value = name.isEmpty ? address : name + ", " + address
            }
            if !value.isEmpty { lines.text("LOCATION", value) }
            if let latitude = location.coordinates?.latitude, let longitude = location.coordinates?.longitude {
                if (-90...90).contains(latitude), (-180...180).contains(longitude) {
                    lines.property("GEO", value: Self.decimal(latitude) + ";" + Self.decimal(longitude))
                } else {
                    warning("location coordinates \(latitude), \(longitude) are out of range; GEO left out")
                }
            }
        }

        /// A coordinate with six decimals, as libical writes GEO.
        static func decimal(_ value: Double) -> String {
            let scaled = Int64((abs(value) * 1_000_000).rounded())
            let sign = value < 0 && scaled != 0 ? "-" : ""
            return sign + String(scaled / 1_000_000) + "." + CivilDateTime.pad(Int(scaled % 1_000_000), 6)
        }

        /// `mailto:` plus the address, or nil when there is none.
        func mailto(_ email: GraphEmailAddress) -> String? {
            var address = ICalText.singleLine(email.address ?? "")
            if address.utf8.contains(0x20) { address = address.replacing(" ", with: "") }
            guard !address.isEmpty else { return nil }
            return ICalText.equalsIgnoringASCIICase(String(address.utf8.prefix(7)) ?? "", "mailto:")
                ? address : "mailto:" + address
        }

        /// The display name for a CN parameter, or nil.
        func commonName(_ email: GraphEmailAddress) -> String? {
            guard let name = email.name.map(ICalText.singleLine), !name.isEmpty else { return nil }
            return name
        }

        mutating func writeAttendees() {
            for attendee in event.attendees ?? [] {
                guard let email = attendee.emailAddress, let address = mailto(email) else {
                    warning("an attendee without an e-mail address was left out")
                    continue
                }
                let type =
                    GraphMappings.attendeeTypeToICal[attendee.type ?? "required"]
                    ?? ("REQ-PARTICIPANT", "INDIVIDUAL")
                let partstat = GraphMappings.responseToPartstat[attendee.status?.response ?? "none"] ?? "NEEDS-ACTION"
                if let name = commonName(email) {
                    lines.property(
                        "ATTENDEE",
                        ["CN": name, "CUTYPE": type.cutype, "ROLE": type.role, "PARTSTAT": partstat],
                        value: address
                    )
                } else {
                    lines.property(
                        "ATTENDEE",
                        ["CUTYPE": type.cutype, "ROLE": type.role, "PARTSTAT": partstat],
                        value: address
                    )
                }
            }
        }

        mutating func writeOnlineMeeting() {
            let candidates = [event.onlineMeeting?.joinUrl, event.onlineMeetingUrl]
            guard let url = candidates.compactMap({ $0.map(ICalText.singleLine) }).first(where: { !$0.isEmpty }) else {
                return
            }
            lines.property("URL", value: url)
            let label: String
            switch event.onlineMeetingProvider {
            case "teamsForBusiness": label = "Microsoft Teams"
            case "skypeForBusiness": label = "Skype for Business"
            case "skypeForConsumer": label = "Skype"
            default: label = "Online meeting"
            }
            lines.property("CONFERENCE", ["VALUE": "URI", "FEATURE": "VIDEO", "LABEL": label], value: url)
        }

        mutating func writeAlarm() {
            guard event.isReminderOn == true else { return }
            let minutes = max(0, event.reminderMinutesBeforeStart ?? 15)
            lines.begin("VALARM")
            lines.property("ACTION", value: "DISPLAY")
            lines.text("DESCRIPTION", "Reminder")
            lines.property("TRIGGER", value: Self.trigger(minutesBefore: minutes))
            lines.end("VALARM")
        }

        /// A TRIGGER `minutes` before the start, in the largest unit that holds it exactly: `-P1W`, `-P2D`,
        /// `-PT18H`, `-PT90M`; `PT0S` at the start.
        static func trigger(minutesBefore minutes: Int) -> String {
            guard minutes > 0 else { return "PT0S" }
            if minutes % 10_080 == 0 { return "-P\(minutes / 10_080)W" }
            if minutes % 1440 == 0 { return "-P\(minutes / 1440)D" }
            if minutes % 60 == 0 { return "-PT\(minutes / 60)H" }
            return "-PT\(minutes)M"
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
