internal import CLibical

/// The hand-off of a VEVENT's recurrence: EXDATEs and overrides as follow-ups of a series Graph holds, or the
/// occurrences of a recurrence Graph cannot hold as single events.
extension EventDecoder {
    /// EXDATEs → cancel follow-ups; overrides → patch follow-ups, or events of their own for an override of
    /// no occurrence of the series (`rrule` from `start`).
    mutating func followUps(
        _ component: OpaquePointer,
        start: TimeValue,
        rrule: String,
        overrides: [ICSDocument.Event],
        context: inout Context
    ) -> (steps: [FollowUp], separate: [PlannedEvent]) {
        var steps: [FollowUp] = []
        var separate: [PlannedEvent] = []
        for exdate in Self.properties(ICAL_EXDATE_PROPERTY, in: component) {
            guard let value = seriesValue(exdate, start: start) else { continue }
            if let text = originalStart(value, context: &context) {
                steps.append(.cancelOccurrence(originalStart: text))
            }
        }
        let recurrenceIDs = overrides.map { recurrenceID(of: $0, start: start, context: &context) }
        let strays = noOccurrences(
            among: recurrenceIDs.compactMap { $0?.key }, start: start, rrule: rrule, context: &context)
        for (override, recurrenceID) in zip(overrides, recurrenceIDs) {
            guard let recurrenceID else { continue }
            guard !strays.contains(recurrenceID.key) else {
                separate += separateEvent(override, recurrenceID: recurrenceID.value)
                continue
            }
            var overrideContext = Context(event: override, file: options.file)
            defer { diagnostics += overrideContext.diagnostics }
            guard let text = originalStart(recurrenceID.value, context: &overrideContext),
                let changes = payload(&overrideContext)
            else { continue }
            if ICalComponent.value(of: "STATUS", in: override.pointer).map({
                ICalText.equalsIgnoringASCIICase($0, "CANCELLED")
            }) == true {
                steps.append(.cancelOccurrence(originalStart: text))
            } else {
                steps.append(.patchOccurrence(originalStart: text, changes: changes))
            }
        }
        steps += exactOccurrences(start: start, rrule: rrule, taken: steps, context: &context)
        return (steps, separate)
    }

    /// A recurrence Graph cannot hold, as single events (bounded), each with its own identity; an override of
    /// no occurrence as an event of its own.
    mutating func expand(
        _ base: GraphEvent,
        start: TimeValue,
        rrules: [String],
        overrides: [ICSDocument.Event],
        context: inout Context
    ) -> [PlannedEvent] {
        let set = recurrenceSet(start: start, rrules: rrules, context: &context)
        let sorted = set.sorted
        let imported = sorted.prefix(options.expansionLimit)
        // Past the last occurrence of a cut expansion, an override may name an occurrence not expanded.
        let known = set.isCut || sorted.count > imported.count ? imported.last?.key : nil
        var overrideByKey: [Int64: ICSDocument.Event] = [:]
        var separate: [PlannedEvent] = []
        for override in overrides {
            guard let recurrenceID = recurrenceID(of: override, start: start, context: &context) else { continue }
            if set.occurrences[recurrenceID.key] != nil {
                overrideByKey[recurrenceID.key] = override
            } else if known.map({ recurrenceID.key <= $0 }) ?? true {
                separate += separateEvent(override, recurrenceID: recurrenceID.value)
            }
        }
        var result: [PlannedEvent] = []
        for occurrence in imported {
            var payload = base
            if let override = overrideByKey[occurrence.key] {
                var overrideContext = Context(event: override, file: options.file)
                if let changed = self.payload(&overrideContext) { payload = changed }
                diagnostics += overrideContext.diagnostics
            } else if !place(occurrence, start: start, in: &payload, context: &context) {
                continue
            }
            let recurrenceID = Self.identityText(
                TimeValue(civil: occurrence.civil, isDate: start.isDate, isUTC: start.isUTC, tzid: start.tzid))
            result.append(plannedOccurrence(payload, recurrenceID: recurrenceID, context: context))
        }
        return result + separate
    }

    /// Sets the start and end of `payload` to those of `occurrence` (of the series starting at `start`);
    /// false when it cannot be placed.
    private mutating func place(
        _ occurrence: Occurrence, start: TimeValue, in payload: inout GraphEvent, context: inout Context
    ) -> Bool {
        if start.isDate {
            let date = occurrence.civil.date
            payload.start = GraphDateTimeTimeZone(dateTime: date.description, timeZone: payload.start?.timeZone)
            payload.end = GraphDateTimeTimeZone(
                dateTime: date.adding(days: context.allDayLength).description, timeZone: payload.end?.timeZone)
            return true
        }
        guard let placed = place(occurrence.value, context: &context) else { return false }
        payload.start = placed.graph
        payload.end = GraphDateTimeTimeZone(
            instant: placed.instant + (occurrence.duration ?? context.durationSeconds), graphZone: placed.graphZone)
        return true
    }

    /// One occurrence of the series `context` decodes, as a single event.
    private func plannedOccurrence(_ payload: GraphEvent, recurrenceID: String, context: Context) -> PlannedEvent {
        let component = context.event.pointer
        return PlannedEvent(
            payload: payload,
            sourceUID: context.uid,
            recurrenceID: recurrenceID,
            sequence: ICalComponent.value(of: "SEQUENCE", in: component).flatMap { Int($0) },
            timestamp: ICalComponent.value(of: "DTSTAMP", in: component),
            method: context.event.method,
            isCancelled: false,
            followUps: [],
            settings: settings
        )
    }

    /// Adds the occurrences of `recurrenceRule` to `starts`: at most the expansion limit, within the RRULE's share of the
    /// file's stepping budget, each cut warned about; none, with a warning, for an RRULE graph-ics does not expand or that adds nothing.
    /// Returns whether the occurrences were cut (by the limit or the budget).
    @discardableResult
    func addOccurrences(
        of recurrenceRule: RecurrenceRule, start: TimeValue, to starts: inout Set<CivilDateTime>, context: inout Context
    ) -> Bool {
        let limit = options.expansionLimit
        if let scale = recurrenceRule.nonGregorianScale {
            // libical steps through such RRULEs with ICU's calendars, seconds per rule; Graph cannot hold
            // them either.
            context.warning(
                "RRULE:\(recurrenceRule.text) repeats in the \(scale) calendar, which graph-ics does not expand; only"
                    + " the first occurrence is imported")
            return false
        }
        if start.isDate, recurrenceRule.isFinerThanDaily {
            // Every occurrence would be the event's own day again (and libical would step through
            // every second or minute of the days it compares).
            context.warning(
                "RRULE:\(recurrenceRule.text) repeats within a day, but the event is all-day; it adds no days")
            return false
        }
        if let reason = recurrenceRule.neverOccurs(from: start.civil) {
            context.warning("RRULE:\(recurrenceRule.text) never occurs (\(reason)); it adds no occurrences")
            return false
        }
        let horizon = recurrenceRule.expansionHorizon(start: start.civil, budget: options.expansionBudget)
        let zone: any ZoneOffsets = context.startSource ?? ResolvedZone.utc
        let (occurrences, cut) = recurrenceRule.expansion(
            start: start.civil, isAllDay: start.isDate, count: limit + 1, horizon: horizon,
            untilToLocal: { zone.localTime(at: $0) })
        let isCut = occurrences.count > limit || cut
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
        return isCut
    }

    /// The original start of an occurrence as `import` needs it: UTC instant, or a date for all-day events.
    mutating func originalStart(_ value: TimeValue, context: inout Context) -> String? {
        if value.isDate { return value.civil.date.dateString }
        guard let placed = place(value, context: &context) else { return nil }
        return CivilDateTime(secondsSinceEpoch: placed.instant).description + "Z"
    }
}
