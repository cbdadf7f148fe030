import Foundation

/// What Outlook should show for one planned event once it is imported, in the terms `import --verify`
/// compares: the start and end instants (for an all-day event its dates), the subject, the location and,
/// for a series, how many occurrences it has in the year from its first start (EXDATEs taken out).
public struct ImportExpectation: Equatable, Sendable {
    /// When an event takes place.
    public enum Times: Equatable, Sendable {
        /// Seconds since 1970 UTC; the end is exclusive.
        case timed(start: Int64, end: Int64)
        /// `YYYY-MM-DD`; the end date is exclusive.
        case allDay(start: String, end: String)
    }

    /// The length of the span whose occurrences are counted: a year from the series' start.
    public static let countedSeconds: Int64 = 365 * 86_400

    public var times: Times?
    public var subject: String?
    public var location: String?
    /// For a series: its occurrences in ``countedSeconds`` from its start, less the EXDATEs among them.
    public var occurrencesInFirstYear: Int?
    /// For a series: the instant its first occurrence starts (an all-day series: its first day's midnight in
    /// the series' zone), where the counted year begins.
    public var countedFrom: Int64?

    /// The expectation of `event` as it was planned.
    public init(of event: PlannedEvent) {
        self.init(payload: event.payload)
        let isAllDay = event.payload.isAllDay ?? false
        let series = Self.occurrences(of: event, isAllDay: isAllDay)
        occurrencesInFirstYear = series?.count
        countedFrom = series?.from
    }

    /// The times, subject and location of a payload (an event's, or a RECURRENCE-ID override's changes); no
    /// occurrence count.
    public init(payload: GraphEvent) {
        times = Self.times(start: payload.start, end: payload.end, isAllDay: payload.isAllDay ?? false)
        subject = payload.subject
        location = Self.location(of: payload)
    }

    /// The location as `import --verify` compares it: the display name, nil when empty.
    public static func location(of event: GraphEvent) -> String? {
        let name = event.location?.displayName ?? ""
        return name.isEmpty ? nil : name
    }

    /// The times of a Graph `start`/`end` pair: instants through the zone each names, or the dates of an
    /// all-day event; nil when a time is missing or its zone is unknown.
    public static func times(
        start: GraphDateTimeTimeZone?, end: GraphDateTimeTimeZone?, isAllDay: Bool
    ) -> Times? {
        guard let first = civil(start), let last = civil(end) else { return nil }
        if isAllDay { return .allDay(start: first.civil.dateString, end: last.civil.dateString) }
        guard let from = instant(first), let to = instant(last) else { return nil }
        return .timed(start: from, end: to)
    }

    private static func civil(_ time: GraphDateTimeTimeZone?) -> (civil: CivilDateTime, zone: String?)? {
        guard let text = time?.dateTime, let parsed = GraphTimestamp.parse(text) else { return nil }
        return (parsed.civil, time?.timeZone)
    }

    private static func instant(_ time: (civil: CivilDateTime, zone: String?)) -> Int64? {
        guard case .resolved(let zone, _) = ZoneResolver.resolve(time.zone) else { return nil }
        return zone.instant(forLocal: time.civil)
    }

    /// The occurrences of a planned series in its first year: the Graph pattern written back as an RRULE and
    /// expanded by libical from the series' start, less the EXDATE occurrences (``FollowUp/cancelOccurrence``)
    /// of the same span.
    private static func occurrences(of event: PlannedEvent, isAllDay: Bool) -> (count: Int, from: Int64)? {
        let payload = event.payload
        guard let recurrence = payload.recurrence, let start = civil(payload.start) else { return nil }
        let zoneName = recurrence.range?.recurrenceTimeZone ?? start.zone
        guard case .resolved(let zone, _) = ZoneResolver.resolve(zoneName) else { return nil }
        let local = isAllDay ? start.civil.date : start.civil
        let rule = RecurrenceMapping.rrule(
            from: recurrence, start: local, isAllDay: isAllDay, endOfDayToUTC: { zone.instant(forLocal: $0) })
        guard case .success(let rrule) = rule else { return nil }
        let horizon = CivilDateTime(secondsSinceEpoch: local.secondsSinceEpoch + countedSeconds - 1)
        let dates = RecurrenceMapping.occurrences(
            rrule: rrule, start: local, isAllDay: isAllDay, count: 2_000, horizon: horizon)
        let cancelled = Set(
            event.followUps.compactMap { step -> String? in
                guard case .cancelOccurrence(let originalStart) = step else { return nil }
                return originalStart
            })
        let count = dates.filter { !cancelled.contains(Self.originalStart(of: $0, isAllDay: isAllDay, zone: zone)) }
            .count
        return (count, zone.instant(forLocal: local))
    }

    /// An occurrence's start as ``FollowUp/cancelOccurrence(originalStart:)`` writes it: UTC
    /// `2026-12-01T09:00:00Z`, or the date of an all-day occurrence.
    private static func originalStart(of local: CivilDateTime, isAllDay: Bool, zone: ResolvedZone) -> String {
        if isAllDay { return local.dateString }
        let utc = CivilDateTime(secondsSinceEpoch: zone.instant(forLocal: local))
        return utc.dateString + "T" + String(utc.description.suffix(8)) + "Z"
    }
}
