/// The occurrences of a series whose wall-clock start names no instant or two in the series' zone: a start
/// in a spring-forward gap or in the repeated hour of a fold. Graph repeats the pattern in local time, and
/// how it reads such a local time is on no page, so each of them gets an override with its exact times
/// in UTC, the instants RFC 5545 §3.3.5 gives them; the series keeps its local pattern.
extension EventDecoder {
    /// `.patchOccurrence` follow-ups, in UTC, for the occurrences of `rrule` from `start` (its first ten
    /// years when it has no end) whose start is in a gap or a fold, except those `taken` already names (an
    /// EXDATE, or a RECURRENCE-ID override, which places its own times).
    mutating func exactOccurrences(
        start: TimeValue, rrule: String, taken: [FollowUp], context: inout Context
    ) -> [FollowUp] {
        guard !start.isDate, !start.isUTC, let source = context.startSource else { return [] }
        let recurrenceRule = RecurrenceRule(rrule)
        var horizon = start.civil
        horizon.year += Self.openSeriesYears
        if let budget = recurrenceRule.expansionHorizon(start: start.civil, budget: options.expansionBudget) {
            horizon = min(horizon, budget)
        }
        let span = (start.civil.secondsSinceEpoch - 2 * 86_400, horizon.secondsSinceEpoch + 2 * 86_400)
        // Only a local time within a day of a change of offset can be in a gap or a fold.
        let changes = source.offsetChanges(from: span.0, to: span.1)
        // Graph's patterns repeat DTSTART's time of day: only a change whose skipped or repeated local hours
        // hold that time can touch an occurrence, and nearly always none does (no expansion then).
        let timeOfDay = Int64(start.civil.hour * 3600 + start.civil.minute * 60 + start.civil.second)
        let touching = changes.contains { change in
            let before = Int64(source.utcOffset(at: change - 1))
            let after = Int64(source.utcOffset(at: change))
            let (from, to) = (change + min(before, after), change + max(before, after))
            let day = from >= 0 ? from / 86_400 : (from - 86_399) / 86_400
            return [day, day + 1].contains { local in
                (from..<to).contains(local * 86_400 + timeOfDay)
            }
        }
        guard touching else { return [] }
        let (occurrences, _) = recurrenceRule.expansion(
            start: start.civil, count: Self.openSeriesYears * 366 + 1, horizon: horizon,
            untilToLocal: { source.localTime(at: $0) })
        let takenStarts = Set(
            taken.map { step in
                switch step {
                case .cancelOccurrence(let text), .patchOccurrence(let text, _): text
                }
            })
        var steps: [FollowUp] = []
        for civil in occurrences where civil != start.civil {
            let asUTC = civil.secondsSinceEpoch
            guard changes.contains(where: { abs($0 - asUTC) <= 93_600 }) else { continue }
            let instants = WallClock.instants(forLocal: civil, utcOffset: source.utcOffset(at:))
            guard instants.count != 1 else { continue }
            let instant = WallClock.instant(forLocal: civil, utcOffset: source.utcOffset(at:))
            let originalStart = CivilDateTime(secondsSinceEpoch: instant).description + "Z"
            guard !takenStarts.contains(originalStart) else { continue }
            var changes = GraphEvent()
            changes.start = GraphDateTimeTimeZone(instant: instant, graphZone: nil)
            changes.end = GraphDateTimeTimeZone(instant: instant + context.durationSeconds, graphZone: nil)
            steps.append(.patchOccurrence(originalStart: originalStart, changes: changes))
        }
        return steps
    }
}
