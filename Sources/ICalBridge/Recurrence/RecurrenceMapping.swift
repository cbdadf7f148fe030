import Foundation

/// Maps a series' recurrence between iCalendar (an RFC 5545 `RRULE` value) and Microsoft Graph
/// (`patternedRecurrence`), in both directions, exactly or not at all.
///
/// Graph holds six shapes: `daily`, `weekly` (one or several weekdays), `absoluteMonthly` (day *n* of the
/// month), `relativeMonthly` (the first…fourth or last of a set of weekdays), `absoluteYearly` and
/// `relativeYearly` (the same inside one month), each with an interval and a range that ends after a
/// number of occurrences, on a date, or never. A recurrence maps only when both sides produce the same
/// occurrences; anything else is ``Unsupported`` with a reason naming the offending RRULE part or Graph
/// property, so that the caller expands the series into single events (or refuses with `--strict`). Nothing
/// is approximated.
///
/// Semantics the mapping relies on, with the places where the two standards differ:
/// - **DTSTART is an occurrence.** iCalendar always counts DTSTART (RFC 5545 §3.8.5.3, and calls a
///   DTSTART outside the RRULE undefined); Graph's first occurrence is the first date on or after
///   `range.startDate` that fits the pattern. A series maps only when its start fits the pattern, and
///   `range.startDate` must be the start's date.
/// - **Month ends.** Graph moves `dayOfMonth` 29–31 to the last day of a shorter month (documented for
///   Exchange's `DayOfMonth`); iCalendar skips months that lack the day. So `BYMONTHDAY=31` maps only when
///   the series never reaches a shorter month (every six months from January 31, a `COUNT` or `UNTIL`
///   that ends in time), and Graph's day 31 is written `BYMONTHDAY=-1`, day 29/30
///   `BYMONTHDAY=28,29,30;BYSETPOS=-1` ("the last of these that exists") when the series reaches a
///   shorter month. Both written forms map back. The same holds for February 29 in yearly series.
/// - **Week start.** RFC 5545's default `WKST` is Monday and Graph's default `firstDayOfWeek` is Sunday.
///   Weekly patterns always carry an explicit `firstDayOfWeek`, and weekly RRULEs an explicit `WKST`.
/// - **Several days with a position.** Graph's `index` over several `daysOfWeek` picks the *n*-th day of
///   the month that is one of them, which is exactly `BYDAY=…;BYSETPOS=n`.
///
/// The parts: ``RecurrenceRule`` (an RRULE as libical reads it, and its expansion), ``RRuleReader``
/// (RRULE → ``GraphShape``), ``RRuleWriter`` (Graph → RRULE), ``Pattern`` and Graph's semantics
/// (`RecurrenceMapping+Pattern.swift`).
///
/// Pure functions of their arguments: no I/O, no state of their own. libical parses and iterates each
/// RRULE in values the call owns (its error number is per thread), so calls may run concurrently.
public enum RecurrenceMapping {
    /// Why a recurrence cannot be held by the other side (the caller then expands it into single events, or
    /// refuses with `--strict`).
    public struct Unsupported: Error, Equatable, Sendable, CustomStringConvertible {
        /// The recurrence as the caller gave it: the RRULE value, or a compact rendering of Graph's recurrence
        /// (`weekly interval=1 daysOfWeek=monday … | endDate 2026-06-30`).
        public var rule: String
        /// What Graph (or iCalendar) cannot hold, naming the RRULE part or Graph property, for example
        /// `BYHOUR=9,17: Graph repeats a series at its start's time of day only`.
        public var reason: String

        public init(rule: String, reason: String) {
            self.rule = rule
            self.reason = reason
        }

        public var description: String { "recurrence \(rule) cannot be mapped exactly: \(reason)" }
    }

    // MARK: - iCalendar → Graph

    /// RRULE value of a series that starts at `start` → Graph's `patternedRecurrence`.
    ///
    /// - Parameters:
    ///   - rrule: the text after `RRULE:` (a leading `RRULE:` is tolerated), for example
    ///     `FREQ=MONTHLY;BYDAY=TU;BYSETPOS=2;COUNT=10`. Parsed by libical (``RecurrenceRule``); an RRULE
    ///     libical refuses is ``Unsupported`` naming the part.
    ///   - start: DTSTART as wall-clock time in the event's zone (which should be the recurrence zone);
    ///     for all-day events the date (the time is ignored).
    ///   - isAllDay: DTSTART is a `DATE`.
    ///   - recurrenceTimeZone: put into `range.recurrenceTimeZone` as given (the caller passes a Windows
    ///     zone name); nil leaves it out.
    ///   - untilToLocal: turns a UTC `UNTIL` (`…Z`, given as seconds since 1970-01-01T00:00:00Z) into the
    ///     wall-clock date **and time** in the recurrence zone. Called only for timed events whose UNTIL
    ///     ends in `Z`. Return the full local time, not midnight: the time decides whether the start's
    ///     time of day on that date is still inside the range.
    /// - Returns: Graph's recurrence with every property Graph needs for the shape set explicitly
    ///   (`interval`, `firstDayOfWeek` for weekly patterns and whenever `WKST` is written, `index` for
    ///   relative ones, `daysOfWeek` in Graph's Sunday-first order), `range.startDate` = the start's
    ///   date, or why Graph cannot hold the RRULE.
    ///
    /// `UNTIL` becomes the last date on which an occurrence can fall (Graph's `endDate` is inclusive):
    /// - a timed event with a UTC or floating UNTIL: the local date of UNTIL, or the day before when the
    ///   start's time of day is later than UNTIL's local time;
    /// - a timed event with a DATE UNTIL (RFC 5545 forbids the mix): the day before, as libical
    ///   expands it (an occurrence on that date is later than the date);
    /// - an all-day event: the date of UNTIL as written.
    public static func graphRecurrence(
        rrule: String, start: CivilDateTime, isAllDay: Bool, recurrenceTimeZone: String?,
        untilToLocal: (_ utcSecondsSinceEpoch: Int64) -> CivilDateTime
    ) -> Result<GraphPatternedRecurrence, Unsupported> {
        do throws(Unsupported) {
            let shape = try RRuleReader.read(rrule, start: start, isAllDay: isAllDay, untilToLocal: untilToLocal)
            return .success(shape.graphRecurrence(start: start, recurrenceTimeZone: recurrenceTimeZone))
        } catch {
            return .failure(error)
        }
    }

    // MARK: - Graph → iCalendar

    /// Graph's `patternedRecurrence` of a series starting at `start` → RRULE value (without `RRULE:`).
    ///
    /// - Parameters:
    ///   - recurrence: as Graph sends it. Properties a pattern type does not use may carry Graph's fillers
    ///     (`index` "first", `month` 0, `dayOfMonth` 0, empty `daysOfWeek`, `endDate` "0001-01-01" when
    ///     the range is not `endDate`); any other value there is ``Unsupported`` (for example an `index`
    ///     of "second" on a weekly pattern). Missing `interval` is 1, missing `index` "first", missing
    ///     `firstDayOfWeek` on a weekly pattern "sunday" (Graph's defaults).
    ///   - start: the series master's start, wall-clock time in the recurrence zone (for all-day events
    ///     the date). It must be an occurrence of the pattern, and `range.startDate` (when present) its
    ///     date; otherwise the series is ``Unsupported``, because DTSTART always counts in iCalendar.
    ///   - isAllDay: the event is all-day: UNTIL is then written as a DATE.
    ///   - endOfDayToUTC: for timed events with an `endDate` range: receives `endDate` at 23:59:59,
    ///     wall-clock time in the recurrence zone, and returns that instant as seconds since 1970 UTC;
    ///     UNTIL is written as that instant in UTC (RFC 5545: UNTIL must be UTC when DTSTART has a TZID).
    /// - Returns: the RRULE as `FREQ`, `INTERVAL` (when not 1), `BYDAY`, `BYMONTHDAY`, `BYMONTH`,
    ///   `BYSETPOS`, `WKST` (always for weekly patterns, otherwise when `firstDayOfWeek` is given), then
    ///   `COUNT` or `UNTIL`; or why it cannot be written exactly.
    public static func rrule(
        from recurrence: GraphPatternedRecurrence, start: CivilDateTime, isAllDay: Bool,
        endOfDayToUTC: (_ localEndOfDay: CivilDateTime) -> Int64
    ) -> Result<String, Unsupported> {
        do throws(Unsupported) {
            return .success(
                try RRuleWriter.write(
                    recurrence, start: start.date, isAllDay: isAllDay, endOfDayToUTC: endOfDayToUTC))
        } catch {
            return .failure(error)
        }
    }

    // MARK: - libical's expansion (for callers that expand, and for tests)

    /// The first `count` occurrences libical's iterator (`icalrecur_iterator_new`/`_next`) generates for
    /// `rrule` from a floating DTSTART `start` (a DATE when `isAllDay`); empty when libical cannot parse
    /// the RRULE or refuses to iterate it. A UTC UNTIL is compared with the floating times as if they were
    /// UTC, as libical does.
    ///
    /// - Parameter horizon: when given, no occurrence after it is generated (it becomes the RRULE's UNTIL
    ///   when it has none or a later one), which bounds libical's work (see `RecurrenceRule+Expansion.swift`).
    static func occurrences(
        rrule: String, start: CivilDateTime, isAllDay: Bool = false, count: Int, horizon: CivilDateTime? = nil
    ) -> [CivilDateTime] {
        expansion(rrule: rrule, start: start, isAllDay: isAllDay, count: count, horizon: horizon).occurrences
    }

    /// ``occurrences(rrule:start:isAllDay:count:horizon:)``, and whether the horizon ended them: the RRULE
    /// would have gone on (no UNTIL or a later one, COUNT not reached) but `horizon` stopped it.
    static func expansion(
        rrule: String, start: CivilDateTime, isAllDay: Bool = false, count: Int, horizon: CivilDateTime?
    ) -> (occurrences: [CivilDateTime], cutAtHorizon: Bool) {
        RecurrenceRule(rrule).expansion(start: start, isAllDay: isAllDay, count: count, horizon: horizon)
    }
}
