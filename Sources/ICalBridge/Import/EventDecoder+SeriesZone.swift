/// The zone a series is sent to Graph in. Graph repeats a pattern in wall-clock time of the range's
/// `recurrenceTimeZone`, so a series whose zone has no Windows name (`CET`, `EST`, a file's VTIMEZONE that
/// matches no IANA zone) cannot go as a local pattern in UTC: after a change of daylight saving time its
/// occurrences would be an hour off, and the pattern's days could be the wrong ones.
extension EventDecoder {
    /// How many years a series without an end must keep the same clocks as the zone it is sent in.
    static let openSeriesYears = 10

    /// For a timed series that Graph would get in UTC although its zone is not UTC: places the start (and an
    /// end in the same zone) and the recurrence in the Windows zone whose offsets equal the series' zone over
    /// the series' span (its first ten years when it has no end). False, with a warning (an error with
    /// `--strict`), when no Windows zone does: the caller then expands the series into single events.
    mutating func placeSeries(
        _ event: inout GraphEvent, start: TimeValue, rrule: String, context: inout Context
    ) -> Bool {
        guard !start.isDate, context.startGraphZone == nil, let source = context.startSource,
            let range = event.recurrence?.range
        else { return true }
        let span = seriesSpan(range, start: start, rrule: rrule)
        let tzid = start.tzid ?? "--tz"
        let key = "\(tzid)\n\(span.firstYear)\n\(span.lastYear)"
        let found: ICalZone?
        if let known = seriesZones[key] {
            found = known
        } else {
            found = WindowsZones.graphZone(matching: source, from: span.from, to: span.to)
            seriesZones[key] = .some(found)
        }
        guard let zone = found, let windows = WindowsZones.windows(forIANA: zone.name) else {
            let years =
                span.firstYear == span.lastYear ? "in \(span.firstYear)" : "over \(span.firstYear)–\(span.lastYear)"
            let reason = "TZID=\(tzid) has no Windows name, and no Windows zone keeps its clocks \(years)"
            if options.strict {
                context.error("\(reason): Graph cannot hold the series in its wall-clock time; refused (--strict)")
            } else {
                context.warning("\(reason): the series is expanded into single events")
            }
            return false
        }
        event.start = GraphDateTimeTimeZone(instant: context.startInstant, graphZone: zone)
        if context.endFollowsStart {
            event.end = GraphDateTimeTimeZone(instant: context.startInstant + context.durationSeconds, graphZone: zone)
        }
        event.recurrence?.range?.recurrenceTimeZone = windows
        return true
    }

    /// The instants a series covers, widened to whole years (UTC) so that series of one zone share their
    /// answer: from 1 January of the start's year to the end of the year of its last occurrence (of the
    /// tenth year after the start for a series without an end).
    func seriesSpan(_ range: GraphRecurrenceRange, start: TimeValue, rrule: String)
        -> (from: Int64, to: Int64, firstYear: Int, lastYear: Int)
    {
        var lastYear = start.civil.year + Self.openSeriesYears
        switch range.type {
        case "endDate":
            if let year = range.endDate.flatMap({ Int($0.prefix(4)) }) { lastYear = year }
        case "numbered":
            let count = range.numberOfOccurrences ?? 1
            let horizon = start.civil.adding(days: 366 * 100)
            let occurrences = RecurrenceRule(rrule).expansion(
                start: start.civil, isAllDay: false, count: count, horizon: horizon
            ).occurrences
            lastYear = (occurrences.last ?? horizon).year
        default:
            break
        }
        // One day either side: the years are UTC, the series' dates local.
        let from = CivilDateTime(year: start.civil.year, month: 1, day: 1).secondsSinceEpoch - 86_400
        let to = CivilDateTime(year: lastYear + 1, month: 1, day: 1).secondsSinceEpoch + 86_400
        return (from, to, start.civil.year, lastYear)
    }
}
