internal import CLibical

/// When a VEVENT takes place: its time values read from libical, placed at exact instants, and told to Graph.
extension EventDecoder {
    mutating func placeAllDay(_ event: inout GraphEvent, start: TimeValue, context: inout Context) -> Bool {
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
        let zone = options.userZone?.windowsName ?? "UTC"
        event.isAllDay = true
        event.start = GraphDateTimeTimeZone(dateTime: start.civil.date.description, timeZone: zone)
        event.end = GraphDateTimeTimeZone(dateTime: endDate.description, timeZone: zone)
        context.allDayLength = (Int(endDate.daysSinceEpoch - start.civil.date.daysSinceEpoch))
        return true
    }

    mutating func placeTimed(_ event: inout GraphEvent, start: TimeValue, context: inout Context) -> Bool {
        let component = context.event.pointer
        guard let placedStart = place(start, context: &context) else { return false }
        var endInstant = placedStart.instant
        var endZone = placedStart.graphZone
        context.endFollowsStart = true
        if let end = time(ICAL_DTEND_PROPERTY, in: component), !end.isDate {
            guard let placedEnd = place(end, context: &context) else { return false }
            endInstant = placedEnd.instant
            endZone = placedEnd.graphZone
            context.endFollowsStart = end.isUTC == start.isUTC && end.tzid == start.tzid
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
            endInstant = instant(duration, after: start, at: placedStart.instant, context: &context)
        }
        if endInstant < placedStart.instant {
            context.error("ends before it starts")
            return false
        }
        event.isAllDay = false
        event.start = placedStart.graph
        event.end = GraphDateTimeTimeZone(instant: endInstant, graphZone: endZone)
        context.durationSeconds = endInstant - placedStart.instant
        context.startInstant = placedStart.instant
        context.startSource = placedStart.source
        context.startGraphZone = placedStart.graphZone
        return true
    }

    /// The instant `duration` after `start` (which is at `instant`): days and weeks are nominal (the same
    /// wall-clock time), hours and less exact (RFC 5545 §3.3.6).
    mutating func instant(
        _ duration: icaldurationtype, after start: TimeValue, at instant: Int64, context: inout Context
    ) -> Int64 {
        let sign = duration.is_neg != 0 ? -1 : 1
        let days = (Int(duration.weeks) * 7 + Int(duration.days)) * sign
        let exact = Int64((Int(duration.hours) * 3600 + Int(duration.minutes) * 60 + Int(duration.seconds)) * sign)
        var endLocal = start
        endLocal.civil = start.civil.adding(days: days)
        let dayShifted = days == 0 ? instant : (place(endLocal, context: &context)?.instant ?? instant)
        return dayShifted + exact
    }

    /// A placed time: its instant, the zone Graph gets (nil for UTC), the Graph value, and the zone the value
    /// was written in (nil for UTC, and for a floating time read as UTC).
    struct Placed {
        var instant: Int64
        var graphZone: ICalZone?
        var graph: GraphDateTimeTimeZone
        var source: (any ZoneOffsets)?
    }

    /// The exact instant of a DATE-TIME value, and how to tell Graph: local time in the Windows zone of
    /// its zone (re-derived from the instant, so the instant stays exact), or UTC. A local time that names
    /// no instant or two (a spring-forward gap, the repeated hour of a fold) goes in UTC: the instant RFC 5545
    /// §3.3.5 gives it, which no local time names exactly, and how Graph reads one is on no page.
    mutating func place(_ value: TimeValue, context: inout Context) -> Placed? {
        let instant: Int64
        var graphZone: ICalZone?
        var source: (any ZoneOffsets)?
        var readings = 1
        if value.isUTC {
            instant = value.civil.secondsSinceEpoch
        } else if let tzid = value.tzid {
            switch sourceZone(tzid, context: &context) {
            case .known(let zone):
                instant = zone.instant(forLocal: value.civil)
                readings = zone.instants(forLocal: value.civil).count
                graphZone = zone.graphZone
                source = zone == .utc ? nil : zone
            case .embedded(let embedded):
                instant = embedded.instant(forLocal: value.civil)
                source = embedded
            case .unknown:
                context.error("unknown time zone TZID=\(tzid): not a known name, and the file has no VTIMEZONE for it")
                return nil
            }
        } else if let user = options.userZone {
            readsFloatingTimes = true
            instant = user.instant(forLocal: value.civil)
            readings = user.instants(forLocal: value.civil).count
            graphZone = user.graphZone
            source = user == .utc ? nil : user
        } else {
            readsFloatingTimes = true
            context.warningOnce("floating time (no TZID, no Z) read as UTC; give your zone with --tz")
            instant = value.civil.secondsSinceEpoch
        }
        if readings != 1 { graphZone = nil }
        return Placed(
            instant: instant, graphZone: graphZone,
            graph: GraphDateTimeTimeZone(instant: instant, graphZone: graphZone),
            source: source)
    }

    // MARK: Reading values

    /// The first property of `kind` as a time value.
    func time(_ kind: icalproperty_kind, in component: OpaquePointer) -> TimeValue? {
        guard let property = icalcomponent_get_first_property(component, kind) else { return nil }
        return timeValue(property, defaultTZID: nil)
    }

    /// A DATE or DATE-TIME property's value with its TZID; for a PERIOD (an RDATE), its start.
    func timeValue(_ property: OpaquePointer, defaultTZID: String?) -> TimeValue? {
        guard let value = icalproperty_get_value(property) else { return nil }
        let kind = icalvalue_isa(value)
        let time: icaltimetype
        if let period = Self.period(property) {
            time = period.start
        } else if kind == ICAL_DATETIMEPERIOD_VALUE {
            time = icalvalue_get_datetimeperiod(value).time
        } else if kind == ICAL_DATETIME_VALUE || kind == ICAL_DATE_VALUE {
            time = icalvalue_get_datetime(value)
        } else {
            return nil
        }
        let tzid = icalproperty_get_first_parameter(property, ICAL_TZID_PARAMETER)
            .flatMap { icalparameter_get_tzid($0) }.map { String(cString: $0) }
        return Self.timeValue(time, tzid: tzid ?? defaultTZID)
    }

    /// One of libical's times as a time value read in `tzid` (unless it is in UTC); nil for a null or invalid time.
    static func timeValue(_ time: icaltimetype, tzid: String?) -> TimeValue? {
        guard icaltime_is_null_time(time) == 0, icaltime_is_valid_time(time) != 0 else { return nil }
        let civil = CivilDateTime(
            year: Int(time.year), month: Int(time.month), day: Int(time.day),
            hour: time.is_date != 0 ? 0 : Int(time.hour), minute: time.is_date != 0 ? 0 : Int(time.minute),
            second: time.is_date != 0 ? 0 : Int(time.second))
        guard civil.isValid else { return nil }
        return TimeValue(civil: civil, isDate: time.is_date != 0, isUTC: icaltime_is_utc(time) != 0, tzid: tzid)
    }

    /// The value of a property given as a PERIOD (`start/end` or `start/duration`); nil for any other value.
    static func period(_ property: OpaquePointer) -> icalperiodtype? {
        guard let value = icalproperty_get_value(property) else { return nil }
        switch icalvalue_isa(value) {
        case ICAL_PERIOD_VALUE:
            return icalvalue_get_period(value)
        case ICAL_DATETIMEPERIOD_VALUE:
            let both = icalvalue_get_datetimeperiod(value)
            return icaltime_is_null_time(both.time) != 0 && icaltime_is_null_time(both.period.start) == 0
                ? both.period : nil
        default:
            return nil
        }
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
}
