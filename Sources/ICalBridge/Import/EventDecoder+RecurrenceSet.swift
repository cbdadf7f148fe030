internal import CLibical

/// The occurrences of a series: what graph-ics expands (DTSTART, RRULEs, RDATEs, less EXDATEs) and which
/// occurrence an EXDATE or a RECURRENCE-ID names. Values are matched by instant (by day in an all-day
/// series), whatever zone or form each is written in.
extension EventDecoder {
    /// One occurrence of a series graph-ics expands.
    struct Occurrence {
        /// Its start in DTSTART's form (DTSTART's wall clock, or UTC): the occurrence's identity.
        var civil: CivilDateTime
        /// Its start as written (an RDATE in its own zone), as it is told to Graph.
        var value: TimeValue
        /// Its ``EventDecoder/occurrenceKey(_:start:context:)``.
        var key: Int64
        /// Its own length in seconds (an RDATE given as a PERIOD); nil: the series' length.
        var duration: Int64?
    }

    /// The occurrences of a series graph-ics expands, by key, and whether the expansion of an RRULE was cut
    /// (with a warning), so that later occurrences are missing.
    struct RecurrenceSet {
        var occurrences: [Int64: Occurrence] = [:]
        var isCut = false

        /// The occurrences in order.
        var sorted: [Occurrence] { occurrences.values.sorted { $0.key < $1.key } }
    }

    /// The occurrences of a series graph-ics expands: DTSTART, the occurrences of each RRULE, the RDATEs
    /// (each in its own zone, a PERIOD with its own length), less the EXDATEs (an all-day EXDATE removes
    /// its whole day).
    mutating func recurrenceSet(start: TimeValue, rrules: [String], context: inout Context) -> RecurrenceSet {
        let component = context.event.pointer
        var set = RecurrenceSet()
        var starts: Set = [start.civil]
        for recurrenceRule in rrules.map(RecurrenceRule.init) {
            let cut = addOccurrences(of: recurrenceRule, start: start, to: &starts, context: &context)
            set.isCut = set.isCut || cut
        }
        for civil in starts.sorted() {
            let value = TimeValue(civil: civil, isDate: start.isDate, isUTC: start.isUTC, tzid: start.tzid)
            add(value, duration: nil, to: &set, start: start, context: &context)
        }
        for property in Self.properties(ICAL_RDATE_PROPERTY, in: component) {
            guard let value = seriesValue(property, start: start) else { continue }
            let duration = periodLength(property, start: value, context: &context)
            add(value, duration: duration, to: &set, start: start, context: &context)
        }
        for property in Self.properties(ICAL_EXDATE_PROPERTY, in: component) {
            guard let value = seriesValue(property, start: start) else { continue }
            if value.isDate, !start.isDate {
                set.occurrences = set.occurrences.filter { $0.value.civil.date != value.civil.date }
            } else if let key = occurrenceKey(value, start: start, context: &context) {
                set.occurrences[key] = nil
            }
        }
        return set
    }

    /// Adds the occurrence starting at `value` to `set`, unless one starts at the same instant.
    private mutating func add(
        _ value: TimeValue, duration: Int64?, to set: inout RecurrenceSet, start: TimeValue, context: inout Context
    ) {
        guard let key = occurrenceKey(value, start: start, context: &context), set.occurrences[key] == nil else {
            return
        }
        var civil = value.civil
        if !start.isDate, value.isUTC != start.isUTC || value.tzid != start.tzid {
            civil = (context.startSource ?? ResolvedZone.utc).localTime(at: key)
        }
        set.occurrences[key] = Occurrence(civil: civil, value: value, key: key, duration: duration)
    }

    /// Where `value` (a start, RDATE, EXDATE or RECURRENCE-ID of the series starting at `start`) falls: its
    /// instant, or for an all-day series its day (days since 1970); nil when it cannot be placed.
    mutating func occurrenceKey(_ value: TimeValue, start: TimeValue, context: inout Context) -> Int64? {
        if start.isDate { return value.civil.date.daysSinceEpoch }
        return place(value, context: &context)?.instant
    }

    /// The value of a series' RDATE, EXDATE or RECURRENCE-ID: one with neither TZID nor Z is read in
    /// DTSTART's form (its zone, or UTC).
    func seriesValue(_ property: OpaquePointer, start: TimeValue) -> TimeValue? {
        guard var value = timeValue(property, defaultTZID: start.tzid) else { return nil }
        if value.tzid == nil, start.isUTC { value.isUTC = true }
        return value
    }

    /// The length in seconds of a timed RDATE given as a PERIOD starting at `value`; nil for a date or a
    /// date-time, and in an all-day series.
    mutating func periodLength(_ property: OpaquePointer, start value: TimeValue, context: inout Context) -> Int64? {
        guard !value.isDate, let period = Self.period(property), let start = place(value, context: &context) else {
            return nil
        }
        guard var end = Self.timeValue(period.end, tzid: value.tzid) else {
            return instant(period.duration, after: value, at: start.instant, context: &context) - start.instant
        }
        end.isUTC = end.isUTC || value.isUTC
        return place(end, context: &context).map { max(0, $0.instant - start.instant) }
    }

    /// The key of the occurrence an override's RECURRENCE-ID names in the series starting at `start`, and
    /// the RECURRENCE-ID as read.
    mutating func recurrenceID(
        of override: ICSDocument.Event, start: TimeValue, context: inout Context
    ) -> (key: Int64, value: TimeValue)? {
        guard let property = icalcomponent_get_first_property(override.pointer, ICAL_RECURRENCEID_PROPERTY),
            let value = seriesValue(property, start: start),
            let key = occurrenceKey(value, start: start, context: &context)
        else { return nil }
        return (key, value)
    }

    /// Those of `keys` that are no occurrence of the series Graph holds (DTSTART and `rrule`, no RDATE): before
    /// DTSTART, or not among the rule's occurrences. A key past what the file's expansion budget lets libical
    /// reach counts as an occurrence (graph-ics cannot tell). The rule is expanded once, up to the latest key.
    mutating func noOccurrences(
        among keys: [Int64], start: TimeValue, rrule: String, context: inout Context
    ) -> Set<Int64> {
        let zone: any ZoneOffsets = context.startSource ?? ResolvedZone.utc
        let locals = keys.map { start.isDate ? CivilDateTime(secondsSinceEpoch: $0 * 86_400) : zone.localTime(at: $0) }
        var occurrences: Set = [start.civil]
        var through = start.civil
        if let last = locals.max(), last > start.civil {
            let recurrenceRule = RecurrenceRule(rrule)
            let horizon = recurrenceRule.expansionHorizon(start: start.civil, budget: options.expansionBudget)
            through = min(last, horizon ?? start.civil)
            let (expanded, _) = recurrenceRule.expansion(
                start: start.civil, isAllDay: start.isDate, count: .max, horizon: through,
                untilToLocal: { zone.localTime(at: $0) })
            occurrences.formUnion(expanded)
        }
        let strays = zip(keys, locals).filter { $0.1 <= through && !occurrences.contains($0.1) }.map(\.0)
        guard !start.isDate, !strays.isEmpty else { return Set(strays) }
        // An occurrence whose wall-clock start is in a spring-forward gap is at an instant whose wall-clock
        // time is another (02:30 is 03:30): a RECURRENCE-ID in UTC names it by that instant.
        let instants = Set(occurrences.map { WallClock.instant(forLocal: $0, utcOffset: zone.utcOffset(at:)) })
        return Set(strays.filter { !instants.contains($0) })
    }

    /// An override whose RECURRENCE-ID (`recurrenceID`) is no occurrence of its series, as an event of its own
    /// with a warning: Graph could not apply it to the series.
    mutating func separateEvent(_ override: ICSDocument.Event, recurrenceID: TimeValue) -> [PlannedEvent] {
        var overrideContext = Context(event: override, file: options.file)
        overrideContext.warning(
            "RECURRENCE-ID \(Self.identityText(recurrenceID)) is no occurrence of its series; imported as an"
                + " event of its own")
        let planned = plan(&overrideContext, overrides: [])
        diagnostics += overrideContext.diagnostics
        return planned
    }
}
