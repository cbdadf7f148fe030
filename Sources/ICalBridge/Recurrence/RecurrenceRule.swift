internal import CLibical
import Foundation

/// One RRULE value as libical 3.0 reads it (`struct icalrecurrencetype`), with its parts as Swift values:
/// the one place graph-ics reads libical's recurrence struct.
///
/// Made from RRULE text (`icalrecurrencetype_from_string`) or from the struct a property holds
/// (`icalproperty_get_rrule`). It owns its C memory: the RSCALE text, which libical allocates for the caller
/// of `icalrecurrencetype_from_string` and which a property's struct only lends (the rule keeps a copy of
/// its own), is freed in `deinit` and nowhere else.
///
/// Its questions: the parts (``frequency``, ``interval``, ``count``, ``until``, the BY parts, ``weekStart``,
/// the calendar scale), whether libical expands it by filtering (``isFiltering``), whether it can occur at
/// all (``neverOccurs(from:)``, in `RecurrenceRule+Periods.swift`), its occurrences and how far to let libical
/// look for them (`RecurrenceRule+Expansion.swift`). What Graph holds of it is read by
/// ``RecurrenceMapping/RRuleReader``.
///
/// Not thread-safe: one rule is made and asked on one thread. Rules share nothing, so many can be used on
/// many threads at once (libical's error number is per thread).
final class RecurrenceRule {
    /// How often the rule repeats (`FREQ`), finest first.
    enum Frequency: Int, Comparable {
        case secondly, minutely, hourly, daily, weekly, monthly, yearly

        static func < (lhs: Frequency, rhs: Frequency) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// One BYDAY value: a weekday and its position.
    struct WeekdayPart: Equatable {
        /// 0 (Sunday) … 6 (Saturday), the order of ``GraphMappings/weekdays``; -1 when libical read none.
        var weekday: Int
        /// 0 for every such weekday of the period; *n* > 0 for the *n*-th, *n* < 0 for the *n*-th from its end.
        var position: Int

        /// 1 (Monday) … 7 (Sunday), as ``CivilDateTime/isoWeekday`` counts.
        var isoWeekday: Int { (weekday + 6) % 7 + 1 }
    }

    /// UNTIL as libical read it.
    struct Until: Equatable {
        /// The date, and for a DATE-TIME its time of day, as written (not converted from UTC).
        var time: CivilDateTime
        /// Written as a DATE.
        var isDate: Bool
        /// Written in UTC (`…Z`).
        var isUTC: Bool
    }

    /// `FREQ`; nil when libical could not read the rule at all.
    let frequency: Frequency?
    /// `INTERVAL` as libical holds it (a C `short`: what it read, 1 when absent).
    let interval: Int
    /// `COUNT` as libical holds it; 0 when the rule has none.
    let count: Int
    /// `UNTIL`; nil when the rule has none.
    let until: Until?
    /// `WKST`: 0 (Sunday) … 6 (Saturday); Monday (1) when absent, RFC 5545's default.
    let weekStart: Int
    let bySecond: [Int]
    let byMinute: [Int]
    let byHour: [Int]
    /// `BYDAY` in libical's order (by weekday, Sunday first).
    let byDay: [WeekdayPart]
    let byMonthDay: [Int]
    let byYearDay: [Int]
    let byWeekNo: [Int]
    /// `BYMONTH` as libical holds it: a leap month (RFC 7529's `5L`) carries libical's leap flag, which
    /// puts it outside 1…12 (see ``byMonthNamesLeapMonth``).
    let byMonth: [Int]
    let bySetPos: [Int]
    /// Whether a BYMONTH value is a leap month (`icalrecurrencetype_month_is_leap`).
    let byMonthNamesLeapMonth: Bool
    /// `RSCALE` as written; nil when absent.
    let scale: String?

    /// The struct the iterator is made from. Its `rscale` is this rule's own allocation (or nil).
    private let recurrence: icalrecurrencetype
    private let givenText: String?

    /// Parses `text` (the value after `RRULE:`) with `icalrecurrencetype_from_string`.
    convenience init(_ text: String) {
        self.init(owning: text.withCString { icalrecurrencetype_from_string($0) }, text: text)
    }

    /// A rule from a struct that someone else owns (a property's, from `icalproperty_get_rrule`): its
    /// RSCALE text stays theirs, the rule keeps a copy.
    convenience init(copying borrowed: icalrecurrencetype) {
        var copy = borrowed
        copy.rscale = borrowed.rscale.flatMap { strdup($0) }
        self.init(owning: copy, text: nil)
    }

    /// Takes over `recurrence`, whose `rscale` (when not nil) is an allocation no one else frees.
    private init(owning recurrence: icalrecurrencetype, text: String?) {
        self.recurrence = recurrence
        givenText = text
        frequency =
            recurrence.freq == ICAL_NO_RECURRENCE ? nil : Frequency(rawValue: Int(recurrence.freq.rawValue))
        interval = Int(recurrence.interval)
        count = Int(recurrence.count)
        until =
            icaltime_is_null_time(recurrence.until) != 0
            ? nil
            : Until(
                time: Self.civil(recurrence.until), isDate: recurrence.until.is_date != 0,
                isUTC: icaltime_is_utc(recurrence.until) != 0)
        weekStart = Int(recurrence.week_start.rawValue) - 1
        bySecond = Self.values(of: recurrence.by_second)
        byMinute = Self.values(of: recurrence.by_minute)
        byHour = Self.values(of: recurrence.by_hour)
        byDay = Self.values(of: recurrence.by_day).map { value in
            let day = Int16(truncatingIfNeeded: value)
            return WeekdayPart(
                weekday: Int(icalrecurrencetype_day_day_of_week(day).rawValue) - 1,
                position: Int(icalrecurrencetype_day_position(day)))
        }
        byMonthDay = Self.values(of: recurrence.by_month_day)
        byYearDay = Self.values(of: recurrence.by_year_day)
        byWeekNo = Self.values(of: recurrence.by_week_no)
        byMonth = Self.values(of: recurrence.by_month)
        bySetPos = Self.values(of: recurrence.by_set_pos)
        byMonthNamesLeapMonth = byMonth.contains {
            icalrecurrencetype_month_is_leap(Int16(truncatingIfNeeded: $0)) != 0
        }
        scale = recurrence.rscale.map { String(cString: $0) }
    }

    deinit {
        free(recurrence.rscale)
    }

    /// The rule's text: as given, or as libical writes the struct (`icalrecurrencetype_as_string_r`).
    /// Named in warnings.
    private(set) lazy var text: String = givenText ?? Self.written(recurrence)

    /// Whether libical could read the rule at all.
    var isReadable: Bool { frequency != nil }

    /// Whether the rule repeats more often than daily (`FREQ=SECONDLY`, `MINUTELY` or `HOURLY`).
    var isFinerThanDaily: Bool { frequency.map { $0 < .daily } ?? false }

    /// The calendar scale when it is not Gregorian (RFC 7529 `RSCALE=CHINESE`, `HEBREW`, …).
    var nonGregorianScale: String? {
        guard let scale, !scale.isEmpty, !ICalText.equalsIgnoringASCIICase(scale, "GREGORIAN") else { return nil }
        return scale
    }

    /// Whether libical expands the rule by stepping through every second, minute, hour, day or week and
    /// filtering with BY parts (BYMONTH, BYMONTHDAY, BYYEARDAY, BYWEEKNO, BYDAY, BYSETPOS, BYHOUR,
    /// BYMINUTE): the rules whose expansion can take long without an occurrence.
    var isFiltering: Bool {
        guard let frequency, frequency <= .weekly else { return false }
        let filters = [byMonth, byMonthDay, byYearDay, byWeekNo, bySetPos, byHour, byMinute]
        return !byDay.isEmpty || filters.contains { !$0.isEmpty }
    }

    /// libical's occurrences of the rule from a floating `start` (a DATE when `isAllDay`), at most `count`
    /// (`icalrecur_iterator_new`, then `icalrecur_iterator_next` until it returns a null time). A UTC
    /// UNTIL is compared with the floating times as if they were UTC, as libical does, unless
    /// `untilToLocal` is given.
    ///
    /// - Parameters:
    ///   - end: when given, no occurrence after it; it becomes the rule's UNTIL when the rule has none or a
    ///     later one, and `endIsUntil` says so.
    ///   - untilToLocal: a UTC instant → the wall-clock time of `start`'s zone; a timed rule's UTC UNTIL is
    ///     compared in that wall clock (RFC 5545: UNTIL is an instant).
    func libicalOccurrences(
        start: CivilDateTime, isAllDay: Bool, count: Int, notAfter end: CivilDateTime?,
        untilToLocal: ((Int64) -> CivilDateTime)? = nil
    ) -> (occurrences: [CivilDateTime], endIsUntil: Bool) {
        var recurrence = recurrence
        var endIsUntil = false
        if !isAllDay, let untilToLocal, let until, until.isUTC, !until.isDate {
            recurrence.until = Self.icalTime(untilToLocal(until.time.secondsSinceEpoch), isDate: false)
        }
        if let end {
            let last = Self.icalTime(end, isDate: false)
            if icaltime_is_null_time(recurrence.until) != 0 || icaltime_compare(recurrence.until, last) > 0 {
                recurrence.until = last
                endIsUntil = true
            }
        }
        // The iterator refers to the RSCALE text `self` owns, which outlives it.
        guard let iterator = icalrecur_iterator_new(recurrence, Self.icalTime(start, isDate: isAllDay)) else {
            return ([], false)
        }
        defer { icalrecur_iterator_free(iterator) }
        var result: [CivilDateTime] = []
        while result.count < count {
            let next = icalrecur_iterator_next(iterator)
            if icaltime_is_null_time(next) != 0 { break }
            result.append(Self.civil(next))
        }
        return (result, endIsUntil)
    }

    // MARK: - libical's values

    /// The values of one of libical's `by_*` arrays, up to its `ICAL_RECURRENCE_ARRAY_MAX` end mark.
    private static func values<Storage>(of array: Storage) -> [Int] {
        withUnsafeBytes(of: array) { raw in
            let endMark = Int(ICAL_RECURRENCE_ARRAY_MAX.rawValue)
            var result: [Int] = []
            for offset in stride(from: 0, to: raw.count, by: MemoryLayout<Int16>.stride) {
                let value = Int(raw.load(fromByteOffset: offset, as: Int16.self))
                if value == endMark { break }
                result.append(value)
            }
            return result
        }
    }

    private static func civil(_ time: icaltimetype) -> CivilDateTime {
        CivilDateTime(
            year: Int(time.year), month: Int(time.month), day: Int(time.day), hour: Int(time.hour),
            minute: Int(time.minute), second: Int(time.second))
    }

    /// A floating libical time: the date of `time`, and unless `isDate` its time of day.
    private static func icalTime(_ time: CivilDateTime, isDate: Bool) -> icaltimetype {
        var result = icaltime_null_time()
        result.year = Int32(time.year)
        result.month = Int32(time.month)
        result.day = Int32(time.day)
        if isDate {
            result.is_date = 1
        } else {
            result.hour = Int32(time.hour)
            result.minute = Int32(time.minute)
            result.second = Int32(time.second)
        }
        return result
    }

    /// `icalrecurrencetype_as_string_r`, copied and freed.
    private static func written(_ recurrence: icalrecurrencetype) -> String {
        var recurrence = recurrence
        guard let text = icalrecurrencetype_as_string_r(&recurrence) else { return "" }
        defer { free(text) }
        return String(cString: text)
    }
}
