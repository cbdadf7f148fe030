/// A recurrence rule's occurrences as libical expands them, and the bound on libical's work.
///
/// libical 3.0 steps through every second, minute, hour or day of a rule's frequency until one passes all
/// BY filters, up to the year 2582: a rule whose filters never or seldom match
/// (`FREQ=HOURLY;BYMONTH=2;BYMONTHDAY=30`) takes minutes without a bound, but an UNTIL stops the stepping.
/// graph-ics gives each expansion a horizon, its UNTIL when it has none or a later one.
extension RecurrenceRule {
    /// How far from `start` graph-ics lets libical step through the rule for `budget` units of work (one
    /// unit: one step of a secondly … weekly rule, a few microseconds; a monthly step costs about 20, a
    /// yearly one 30). Nil when the rule cannot be read.
    func expansionHorizon(start: CivilDateTime, budget: Int) -> CivilDateTime? {
        guard let frequency else { return nil }
        let secondsPerUnit: Int64
        switch frequency {
        case .secondly: secondsPerUnit = 1
        case .minutely: secondsPerUnit = 60
        case .hourly: secondsPerUnit = 3_600
        case .daily, .weekly: secondsPerUnit = 86_400
        case .monthly: secondsPerUnit = 30 * 86_400 / 20
        case .yearly: secondsPerUnit = 365 * 86_400 / 30
        }
        let interval = Int64(max(1, min(interval, 1_000)))
        let seconds = Int64(max(1, budget)) * secondsPerUnit * interval
        return CivilDateTime(secondsSinceEpoch: start.secondsSinceEpoch + seconds)
    }

    /// The first `count` occurrences libical generates from a floating DTSTART `start` (a DATE when
    /// `isAllDay`), none after `horizon`; and whether the horizon ended them: the rule would have gone on
    /// (no UNTIL or a later one, COUNT not reached) but `horizon` stopped it. Empty when libical cannot read
    /// the rule or refuses to iterate it. A timed rule's UTC UNTIL is read in `start`'s wall clock through
    /// `untilToLocal` when given (see ``libicalOccurrences(start:isAllDay:count:notAfter:untilToLocal:)``).
    func expansion(
        start: CivilDateTime, isAllDay: Bool = false, count: Int, horizon: CivilDateTime?,
        untilToLocal: ((Int64) -> CivilDateTime)? = nil
    ) -> (occurrences: [CivilDateTime], cutAtHorizon: Bool) {
        guard isReadable, count > 0 else { return ([], false) }
        let (occurrences, horizonIsUntil) = libicalOccurrences(
            start: start, isAllDay: isAllDay, count: count, notAfter: horizon, untilToLocal: untilToLocal)
        let countReached = self.count > 0 && occurrences.count >= self.count
        return (occurrences, horizonIsUntil && occurrences.count < count && !countReached)
    }
}
