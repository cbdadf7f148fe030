internal import CLibical

/// The hand-off of a VEVENT's recurrence: EXDATEs and overrides as follow-ups of a series Graph holds, or the
/// occurrences of a recurrence Graph cannot hold as single events.
extension EventDecoder {
    /// EXDATEs → cancel follow-ups; overrides → patch follow-ups.
    mutating func followUps(
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

    /// A recurrence Graph cannot hold, as single events (bounded), each with its own identity.
    mutating func expand(
        _ base: GraphEvent,
        start: TimeValue,
        rrules: [String],
        overrides: [ICSDocument.Event],
        context: inout Context
    ) -> [PlannedEvent] {
        let component = context.event.pointer
        let limit = options.expansionLimit
        let starts = occurrenceStarts(start: start, rrules: rrules, context: &context)
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
                payload.end = GraphDateTimeTimeZone(instant: placed.instant + duration, graphZone: placed.graphZone)
            }
            result.append(
                PlannedEvent(
                    payload: payload,
                    sourceUID: context.uid,
                    recurrenceID: recurrenceID,
                    sequence: ICalComponent.value(of: "SEQUENCE", in: component).flatMap { Int($0) },
                    timestamp: ICalComponent.value(of: "DTSTAMP", in: component),
                    method: context.event.method,
                    isCancelled: false,
                    followUps: [],
                    settings: settings
                ))
        }
        return result
    }

    /// The starts of a recurrence Graph cannot hold: DTSTART, the occurrences of each RRULE, the RDATEs, less the
    /// EXDATEs (an all-day EXDATE removes its whole day).
    func occurrenceStarts(start: TimeValue, rrules: [String], context: inout Context) -> Set<CivilDateTime> {
        let component = context.event.pointer
        var starts = Set<CivilDateTime>()
        starts.insert(start.civil)
        for recurrenceRule in rrules.map(RecurrenceRule.init) {
            addOccurrences(of: recurrenceRule, start: start, to: &starts, context: &context)
        }
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
        return starts
    }

    /// Adds the occurrences of `recurrenceRule` to `starts`: at most the expansion limit, within the RRULE's share of the
    /// file's stepping budget, each cut warned about; none, with a warning, for an RRULE graph-ics does not expand or that adds nothing.
    func addOccurrences(
        of recurrenceRule: RecurrenceRule, start: TimeValue, to starts: inout Set<CivilDateTime>, context: inout Context
    ) {
        let limit = options.expansionLimit
        if let scale = recurrenceRule.nonGregorianScale {
            // libical steps through such RRULEs with ICU's calendars, seconds per rule; Graph cannot hold
            // them either.
            context.warning(
                "RRULE:\(recurrenceRule.text) repeats in the \(scale) calendar, which graph-ics does not expand; only"
                    + " the first occurrence is imported")
            return
        }
        if start.isDate, recurrenceRule.isFinerThanDaily {
            // Every occurrence would be the event's own day again (and libical would step through
            // every second or minute of the days it compares).
            context.warning(
                "RRULE:\(recurrenceRule.text) repeats within a day, but the event is all-day; it adds no days")
            return
        }
        if let reason = recurrenceRule.neverOccurs(from: start.civil) {
            context.warning("RRULE:\(recurrenceRule.text) never occurs (\(reason)); it adds no occurrences")
            return
        }
        let horizon = recurrenceRule.expansionHorizon(start: start.civil, budget: options.expansionBudget)
        let (occurrences, cut) = recurrenceRule.expansion(
            start: start.civil, isAllDay: start.isDate, count: limit + 1, horizon: horizon)
        if occurrences.count > limit {
            context.warning(
                "RRULE:\(recurrenceRule.text) has more than \(limit) occurrences; only the first \(limit) are imported")
        } else if cut, let horizon {
            context.warning(
                "RRULE:\(recurrenceRule.text) is expanded only up to"
                    + " \(start.isDate ? horizon.dateString : horizon.description)"
                    + ": stepping through a rule whose filters match this seldom takes too long;"
                    + " later occurrences are not imported")
        }
        starts.formUnion(occurrences.prefix(limit))
    }

    /// The original start of an occurrence as `import` needs it: UTC instant, or a date for all-day events.
    mutating func originalStart(_ value: TimeValue, context: inout Context) -> String? {
        if value.isDate { return value.civil.date.dateString }
        guard let placed = place(value, context: &context) else { return nil }
        return CivilDateTime(secondsSinceEpoch: placed.instant).description + "Z"
    }
}
