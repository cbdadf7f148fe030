internal import CLibical
import Foundation

/// A VTIMEZONE read by libical as a zone of its own (`icaltimezone_new`, then `icaltimezone_set_component`
/// with a clone, which the zone owns from then on); `icaltimezone_free(zone, 1)` frees both in `deinit`.
///
/// Not thread-safe: use one instance from one task (every libical call holds ``ICalZone/lock``).
final class EmbeddedZone {
    /// The `icaltimezone *`.
    private let pointer: OpaquePointer
    /// The words of its TZID, X-LIC-LOCATION and TZNAMEs.
    let words: Set<String>

    /// The most changes libical may have to expand for one VTIMEZONE (real ones, even with their whole
    /// history since 1601, stay in the low thousands).
    static let changeLimit = 20_000

    /// Reads the first VTIMEZONE of `text`; nil when there is none or it cannot be used (see
    /// ``VTimezoneMatcher/ianaZone(matching:year:)``). `lastYear` is the last year it will be asked about,
    /// for the bound on libical's work.
    init?(text: String, throughYear lastYear: Int) {
        guard Self.offsetsAreWellFormed(text), let parsed = ICalComponent.parse(text) else { return nil }
        let made: (OpaquePointer, Set<String>)? = withExtendedLifetime(parsed) {
            guard let vtimezone = Self.firstVTimezone(in: parsed.pointer, depth: 0),
                Self.isUsable(vtimezone, throughYear: lastYear)
            else { return nil }
            var names = ICalComponent.value(of: "TZID", in: vtimezone) ?? ""
            names += " " + (ICalComponent.value(of: "X-LIC-LOCATION", in: vtimezone) ?? "")
            for part in Self.parts(of: vtimezone) {
                names += " " + ICalComponent.values(of: "TZNAME", in: part).joined(separator: " ")
            }
            ICalZone.lock.lock()
            defer { ICalZone.lock.unlock() }
            guard let zone = icaltimezone_new() else { return nil }
            guard let clone = icalcomponent_new_clone(vtimezone) else {
                icaltimezone_free(zone, 1)
                return nil
            }
            guard icaltimezone_set_component(zone, clone) != 0 else {
                icalcomponent_free(clone)
                icaltimezone_free(zone, 1)
                return nil
            }
            return (zone, VTimezoneMatcher.words(in: names))
        }
        guard let made else { return nil }
        pointer = made.0
        words = made.1
    }

    deinit {
        ICalZone.lock.lock()
        icaltimezone_free(pointer, 1)
        ICalZone.lock.unlock()
    }

    /// The offsets at `instants` (`icaltimezone_get_utc_offset_of_utc_time`).
    func offsets(at instants: [Int64]) -> [Int] {
        ICalZone.lock.lock()
        defer { ICalZone.lock.unlock() }
        return instants.map(offsetLocked)
    }

    /// The offset at `from`, then every change of offset in `(from, to]`: six-hour steps, bisected to the
    /// second.
    func changes(from: Int64, to: Int64) -> [(instant: Int64, offset: Int)] {
        ICalZone.lock.lock()
        defer { ICalZone.lock.unlock() }
        var previous = offsetLocked(at: from)
        var result = [(instant: from, offset: previous)]
        var time = from
        while time < to {
            let next = min(time + 6 * 3600, to)
            let current = offsetLocked(at: next)
            if current == previous {
                time = next
                continue
            }
            var low = time
            var high = next
            while high - low > 1 {
                let middle = low + (high - low) / 2
                if offsetLocked(at: middle) == previous { low = middle } else { high = middle }
            }
            previous = offsetLocked(at: high)
            result.append((high, previous))
            time = high
        }
        return result
    }

    /// One offset; the caller holds ``ICalZone/lock``.
    private func offsetLocked(at instant: Int64) -> Int {
        var time = icaltimetype.make(CivilDateTime(secondsSinceEpoch: instant))
        return Int(icaltimezone_get_utc_offset_of_utc_time(pointer, &time, nil))
    }

    // MARK: Checking the component

    /// Whether every TZOFFSETFROM and TZOFFSETTO of `text` is `±hhmm` or `±hhmmss` (RFC 5545 §3.3.14):
    /// libical reads `+01x0` as one minute without complaint.
    static func offsetsAreWellFormed(_ text: String) -> Bool {
        var lines: [Substring] = []
        for line in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let line = line.hasSuffix("\r") ? line.dropLast() : line
            if let first = line.first, first == " " || first == "\t", !lines.isEmpty {
                lines[lines.count - 1] += line.dropFirst()
            } else {
                lines.append(line)
            }
        }
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].prefix { $0 != ";" }.uppercased()
            guard name == "TZOFFSETFROM" || name == "TZOFFSETTO" else { continue }
            var value = line[line.index(after: colon)...].utf8
            while let last = value.last, last == 0x20 || last == 0x09 { value = value.dropLast() }
            guard let sign = value.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"),
                value.count == 5 || value.count == 7,
                value.dropFirst().allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
            else { return false }
        }
        return true
    }

    /// The component itself when it is a VTIMEZONE, else the first VTIMEZONE within three levels.
    static func firstVTimezone(in component: OpaquePointer, depth: Int) -> OpaquePointer? {
        if icalcomponent_isa(component) == ICAL_VTIMEZONE_COMPONENT { return component }
        guard depth < 3 else { return nil }
        for child in ICalComponent.children(of: component, ICAL_ANY_COMPONENT) {
            if let found = firstVTimezone(in: child, depth: depth + 1) { return found }
        }
        return nil
    }

    /// The STANDARD and DAYLIGHT components.
    static func parts(of vtimezone: OpaquePointer) -> [OpaquePointer] {
        ICalComponent.children(of: vtimezone, ICAL_XSTANDARD_COMPONENT)
            + ICalComponent.children(of: vtimezone, ICAL_XDAYLIGHT_COMPONENT)
    }

    /// Whether libical can read `vtimezone` into the offset changes it states, within bounded work up to
    /// `lastYear`.
    ///
    /// libical silently skips a STANDARD/DAYLIGHT without DTSTART or TZOFFSETTO (a missing TZOFFSETFROM
    /// means no change, as Outlook for Mac writes it) and expands every RRULE from its DTSTART to five
    /// years past the year asked for, with no limit of its own.
    static func isUsable(_ vtimezone: OpaquePointer, throughYear lastYear: Int) -> Bool {
        guard !hasParserErrors(vtimezone),
            icalcomponent_get_first_property(vtimezone, ICAL_TZID_PROPERTY) != nil
        else { return false }
        let parts = parts(of: vtimezone)
        guard !parts.isEmpty, parts.count <= 1000 else { return false }
        // libical expands at least to the current year, and five years beyond.
        let currentYear = CivilDateTime(secondsSinceEpoch: Int64(Date().timeIntervalSince1970)).year
        let endYear = max(lastYear, currentYear) + 5
        var changes = 0
        for part in parts {
            guard let dtstart = icalcomponent_get_first_property(part, ICAL_DTSTART_PROPERTY),
                let offsetTo = icalcomponent_get_first_property(part, ICAL_TZOFFSETTO_PROPERTY),
                abs(icalproperty_get_tzoffsetto(offsetTo)) < 86_400
            else { return false }
            if let offsetFrom = icalcomponent_get_first_property(part, ICAL_TZOFFSETFROM_PROPERTY),
                abs(icalproperty_get_tzoffsetfrom(offsetFrom)) >= 86_400
            {
                return false
            }
            let start = icalproperty_get_dtstart(dtstart)
            guard icaltime_is_null_time(start) == 0, start.year > 0 else { return false }
            changes += 1 + count(part, ICAL_RDATE_PROPERTY)
            var rrule = icalcomponent_get_first_property(part, ICAL_RRULE_PROPERTY)
            while let property = rrule {
                let recurrenceRule = RecurrenceRule(copying: icalproperty_get_rrule(property))
                guard let yearly = occurrencesPerYear(recurrenceRule) else { return false }
                let interval = max(1, recurrenceRule.interval)
                var occurrences = yearly * (max(0, endYear - Int(start.year)) / interval + 1)
                if recurrenceRule.count > 0 { occurrences = min(occurrences, recurrenceRule.count) }
                changes += occurrences
                rrule = icalcomponent_get_next_property(part, ICAL_RRULE_PROPERTY)
            }
            if changes > changeLimit { return false }
        }
        return true
    }

    /// At most how many changes a yearly RRULE makes in a year; nil for any other RRULE, and for yearly
    /// ones with parts that can make hundreds of thousands (BYSECOND, BYMINUTE, BYHOUR, BYWEEKNO,
    /// BYYEARDAY), which no real VTIMEZONE uses.
    static func occurrencesPerYear(_ recurrenceRule: RecurrenceRule) -> Int? {
        guard recurrenceRule.frequency == .yearly, recurrenceRule.interval >= 0, recurrenceRule.bySecond.isEmpty,
            recurrenceRule.byMinute.isEmpty, recurrenceRule.byHour.isEmpty, recurrenceRule.byWeekNo.isEmpty,
            recurrenceRule.byYearDay.isEmpty
        else { return nil }
        let byMonth = recurrenceRule.byMonth
        let byDay = recurrenceRule.byDay
        var perYear: Int
        if !recurrenceRule.byMonthDay.isEmpty {
            perYear = (byMonth.isEmpty ? 12 : byMonth.count) * recurrenceRule.byMonthDay.count
        } else if !byDay.isEmpty {
            // `-1SU` is one day a month (a year without BYMONTH), plain `SU` up to five a month (53 a year).
            let plain = byDay.filter { $0.position == 0 }.count
            let numbered = byDay.count - plain
            perYear = byMonth.isEmpty ? plain * 53 + numbered : byMonth.count * (plain * 5 + numbered)
        } else {
            perYear = max(1, byMonth.count)
        }
        if !recurrenceRule.bySetPos.isEmpty { perYear = min(perYear, recurrenceRule.bySetPos.count) }
        return perYear
    }

    /// How many properties of `kind` `component` has.
    static func count(_ component: OpaquePointer, _ kind: icalproperty_kind) -> Int {
        Int(icalcomponent_count_properties(component, kind))
    }

    /// Whether libical put an `X-LIC-ERROR` anywhere in the tree.
    static func hasParserErrors(_ component: OpaquePointer) -> Bool {
        if icalcomponent_get_first_property(component, ICAL_XLICERROR_PROPERTY) != nil { return true }
        return ICalComponent.children(of: component, ICAL_ANY_COMPONENT).contains(where: hasParserErrors)
    }
}
