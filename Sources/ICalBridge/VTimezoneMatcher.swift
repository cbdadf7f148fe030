internal import CLibical
import Foundation

/// The step of the import time-zone ladder for a TZID that no name table knows: the IANA zone whose UTC
/// offsets agree with the VTIMEZONE the `.ics` file carries for it.
///
/// The VTIMEZONE is read by libical into a zone of its own, so its RRULEs, RDATEs and UNTILs mean what they
/// mean to libical everywhere else in graph-ics. The candidates are the IANA ids of the CLDR table
/// (``WindowsZones``), normalised through tzdata's links. They are narrowed with offsets read straight from
/// their TZif files (``TZifZone``: a few milliseconds for all 440, where libical needs 0.3 s to load them),
/// and the chosen zone is confirmed with libical's built-in rules (``ICalZone``), with which graph-ics
/// converts the times afterwards.
///
/// Thread-safety: every call into libical's zone code holds ``ICalZone/lock``; the candidates' offsets (per
/// year) and the answers (per VTIMEZONE text and year) are kept in lock-protected statics, so any thread
/// may call in, and a second lookup costs a dictionary hit. A first lookup in a process costs about 25 ms
/// (release build: reading tzdata, CLDR and the TZif files), a first lookup of another VTIMEZONE or year
/// 3–5 ms.
public enum VTimezoneMatcher {
    /// The IANA zone (tzdata-canonical name) whose UTC offsets agree with `vtimezone` (the text of one
    /// VTIMEZONE component, BEGIN:VTIMEZONE…END:VTIMEZONE) at every offset change of `year` and the year
    /// after, and at their midpoints; nil when no zone agrees or the VTIMEZONE cannot be used.
    ///
    /// Zones agree when they give the same offsets at the instants of a fixed grid over both years (every
    /// 3½ days, the fingerprint kept per year), just before and at each change of the VTIMEZONE, and
    /// midway between its changes: first by tzdata's TZif files, then (for the best-ranked zone, and the
    /// next ones only if libical disagrees) by libical. Among several agreeing zones (Europe/Berlin, Europe/Paris and many more
    /// keep the same clocks) the choice is deterministic, best first:
    /// 1. for a VTIMEZONE that is UTC all along, a zero-offset `Etc` zone;
    /// 2. a zone CLDR lists as the territory-001 default of its Windows zone;
    /// 3. the zone sharing the most words with the VTIMEZONE's TZID, X-LIC-LOCATION and TZNAMEs, where a
    ///    zone's words are its IANA name, its Windows name, its Outlook display name and its abbreviations
    ///    (so `(UTC+01:00) Amsterdam, Berlijn, Bern, Rome, Stockholm, Wenen` picks Europe/Berlin, `IST`
    ///    picks Asia/Kolkata over Asia/Colombo);
    /// 4. the zone whose Windows zone covers the most places (CLDR ids plus display-name cities), so that
    ///    an anonymous US Eastern copy is America/New_York rather than America/Grand_Turk;
    /// 5. alphabetical order.
    ///
    /// A VTIMEZONE is refused (nil) when libical reports errors in it, when it has no TZID, no STANDARD or
    /// DAYLIGHT, a STANDARD/DAYLIGHT without DTSTART or TZOFFSETTO, an offset that is not `±hhmm[ss]` or is
    /// a day or more, an RRULE
    /// that is not yearly or uses BYHOUR/BYMINUTE/BYSECOND/BYWEEKNO/BYYEARDAY, or rules that would make
    /// libical expand more than 20,000 changes: bad input never hangs. `year` must be in 1900…2198 (the
    /// span of ``ICalZone/supportedInstants``).
    public static func ianaZone(matching vtimezone: String, year: Int) -> String? {
        answer(vtimezone, year: year)
    }

    /// The UTC offsets of `vtimezone` itself over `[from, to]`, as libical reads its rules: the offset in
    /// force at `from` (with `instant` = `from`), then each change of offset in `(from, to]` with the new
    /// offset, in seconds east of UTC. A caller that finds no matching zone can convert local times with
    /// the file's own rules from this. Nil when the VTIMEZONE cannot be used (see
    /// ``ianaZone(matching:year:)``).
    ///
    /// The range is clipped to ``ICalZone/supportedInstants``. Changes are found by stepping six hours at a
    /// time and bisecting to the second, as ``ICalZone`` does; two changes less than six hours apart that
    /// cancel each other out are not seen. The cost grows with the range (about 1,500 libical calls a year).
    public static func offsets(of vtimezone: String, from: Int64, to: Int64) -> [(instant: Int64, offset: Int)]? {
        let supported = ICalZone.supportedInstants
        let start = min(max(from, supported.lowerBound), supported.upperBound - 1)
        let end = min(max(to, start), supported.upperBound - 1)
        let lastYear = CivilDateTime(secondsSinceEpoch: end).year
        guard let zone = EmbeddedZone(text: vtimezone, throughYear: lastYear) else { return nil }
        return zone.changes(from: start, to: end)
    }

    /// The years whose two-year windows stay inside ``ICalZone/supportedInstants``.
    static let supportedYears = 1900...2198

    struct AnswerKey: Hashable {
        var year: Int
        var text: String
    }

    private static let answerLock = NSLock()
    nonisolated(unsafe) private static var answers: [AnswerKey: String?] = [:]

    /// ``ianaZone(matching:year:)``, remembered per VTIMEZONE text and year.
    static func answer(_ vtimezone: String, year: Int) -> String? {
        let key = AnswerKey(year: year, text: vtimezone)
        answerLock.lock()
        if let cached = answers[key] {
            answerLock.unlock()
            return cached
        }
        answerLock.unlock()
        // The best-ranked candidate that libical confirms: usually the first, so only it is loaded.
        let answer = shortlist(vtimezone, year: year).flatMap { list in
            list.ranked.lazy.map { candidates[$0].zone }.first { $0.libicalOffsets(at: list.probes) == list.expected }
        }
        answerLock.lock()
        // A file brings a handful of zones; a hostile one cannot make the cache grow without bound.
        if answers.count >= 1024 { answers.removeAll() }
        answers[key] = answer?.name
        answerLock.unlock()
        return answer?.name
    }

    /// Every zone that agrees with `vtimezone` over `year` and the year after, confirmed by libical, best
    /// first; empty when none does or the VTIMEZONE cannot be used. Not remembered (it loads every
    /// agreeing zone into libical): for tests and diagnostics.
    static func rank(_ vtimezone: String, year: Int) -> [String] {
        guard let list = shortlist(vtimezone, year: year) else { return [] }
        return list.ranked.map { candidates[$0].zone }.filter { $0.libicalOffsets(at: list.probes) == list.expected }
            .map(\.name)
    }

    /// The candidates whose tzdata offsets agree with `vtimezone` on the year's grid and at the probes,
    /// ranked; the probes (the grid, just before and at each change of the VTIMEZONE, midway between
    /// changes) and the VTIMEZONE's offsets there, against which libical confirms a candidate. Nil when the
    /// VTIMEZONE cannot be used or the year is out of range.
    static func shortlist(_ vtimezone: String, year: Int) -> (ranked: [Int], probes: [Int64], expected: [Int])? {
        guard supportedYears.contains(year), let embedded = EmbeddedZone(text: vtimezone, throughYear: year + 1)
        else { return nil }
        let table = YearTable.forYear(year)
        let (start, end) = window(of: year)
        let changes = embedded.changes(from: start, to: end)
        var probes = table.instants
        var boundaries = [start]
        for change in changes.dropFirst() {
            probes += [change.instant - 1, change.instant]
            boundaries.append(change.instant)
        }
        boundaries.append(end)
        for (low, high) in zip(boundaries, boundaries.dropFirst()) { probes.append(low + (high - low) / 2) }
        let expected = embedded.offsets(at: probes)

        let width = table.instants.count
        let grid = expected.prefix(width)
        var agreeing: [Int] = []
        for index in candidates.indices {
            let row = table.offsets[(index * width)..<(index * width + width)]
            guard zip(row, grid).allSatisfy({ Int($0) == $1 }) else { continue }
            let candidate = candidates[index]
            let offsets = probes[width...].map { candidate.tzif?.offset(at: $0) }
            if zip(offsets, expected[width...]).allSatisfy({ $0 == nil || $0 == $1 }) { agreeing.append(index) }
        }
        let isUTC = changes.allSatisfy { $0.offset == 0 }
        let ranked = agreeing.map { index in
            let candidate = candidates[index]
            return (
                index: index,
                utc: isUTC && candidate.zone.isUTC,
                isDefault: candidate.isDefault,
                shared: candidate.words(from: start, to: end).intersection(embedded.words).count,
                prominence: candidate.prominence
            )
        }
        .sorted { lhs, rhs in
            if lhs.utc != rhs.utc { return lhs.utc }
            if lhs.isDefault != rhs.isDefault { return lhs.isDefault }
            if lhs.shared != rhs.shared { return lhs.shared > rhs.shared }
            if lhs.prominence != rhs.prominence { return lhs.prominence > rhs.prominence }
            return candidates[lhs.index].zone.name < candidates[rhs.index].zone.name
        }
        return (ranked.map(\.index), probes, expected)
    }

    /// `[1 January of year, 1 January of year + 2)` in UTC.
    static func window(of year: Int) -> (start: Int64, end: Int64) {
        (
            CivilDateTime(year: year, month: 1, day: 1).secondsSinceEpoch,
            CivilDateTime(year: year + 2, month: 1, day: 1).secondsSinceEpoch
        )
    }

    // MARK: - Candidates

    /// One IANA zone of the CLDR table.
    struct Candidate: Sendable {
        var zone: ICalZone
        /// The territory-001 zone of its Windows zone.
        var isDefault: Bool
        var windows: String?
        /// Distinct IANA ids of its Windows zone in CLDR plus the places of its display name.
        var prominence: Int
        /// Its offsets straight from tzdata, for the first filter; nil when the file cannot be read.
        var tzif: TZifZone?

        /// The words of its IANA name, Windows name, display name and of its abbreviations in `[from, to)`
        /// (such as `EST`, `EDT`).
        func words(from: Int64, to: Int64) -> Set<String> {
            var text = zone.name + " " + (windows ?? "")
            if let windows, let display = WindowsZones.table.displayNames[windows] { text += " " + display }
            text += " " + (tzif?.abbreviations(from: from, to: to) ?? []).joined(separator: " ")
            return VTimezoneMatcher.words(in: text)
        }
    }

    /// Every IANA id of the CLDR table that libical has rules for, once under its canonical name, sorted,
    /// with its TZif file read (about 440 files of a few KB).
    static let candidates: [Candidate] = {
        let tz = TZData.system
        let table = WindowsZones.table
        let defaults = Set(table.toIANA.values.map(\.iana))
        var idsByWindows: [String: Set<String>] = [:]
        var names = Set<String>()
        for fields in WindowsZones.fields(of: WindowsZones.cldrRows) where fields.count == 3 {
            for id in fields[2].split(separator: " ") {
                let canonical = tz.canonical(String(id))
                idsByWindows[fields[0], default: []].insert(canonical)
                names.insert(canonical)
            }
        }
        var result: [Candidate] = []
        for name in names.sorted() {
            guard let zone = ICalZone.named(name) else { continue }
            let windows = WindowsZones.windows(forIANA: name)
            var prominence = 0
            if let windows {
                prominence = idsByWindows[windows]?.count ?? 0
                if let display = table.displayNames[windows], let close = display.firstIndex(of: ")") {
                    prominence += display[close...].split(separator: ",").count
                }
            }
            result.append(
                Candidate(
                    zone: zone, isDefault: defaults.contains(name), windows: windows, prominence: prominence,
                    tzif: TZifZone(path: tz.directory + "/" + name)))
        }
        return result
    }()

    /// The offsets of every candidate at fixed instants of a two-year window, from the candidates' TZif
    /// files: the first filter, which libical then confirms for the few zones that pass.
    ///
    /// libical needs about 0.7 ms to load one built-in zone (it turns the TZif file into a VTIMEZONE and
    /// expands it), 0.3 s for all candidates; reading the same files directly takes a few milliseconds.
    struct YearTable: Sendable {
        /// Every 3½ days from 1 January of the year, 12:00 UTC, to the end of the next year.
        var instants: [Int64]
        /// Row-major: candidate `i`'s offsets are `offsets[i * instants.count ..< (i + 1) * instants.count]`.
        var offsets: [Int32]

        /// The table of `year`, computed on first use and kept. A candidate whose file could not be read is
        /// asked of libical.
        static func forYear(_ year: Int) -> YearTable {
            lock.lock()
            defer { lock.unlock() }
            if let table = tables[year] { return table }
            let (start, end) = window(of: year)
            let instants = Array(stride(from: start + 43_200, to: end, by: 302_400))
            var offsets: [Int32] = []
            offsets.reserveCapacity(candidates.count * instants.count)
            for candidate in candidates {
                if let tzif = candidate.tzif {
                    offsets += instants.map { Int32(clamping: tzif.offset(at: $0)) }
                } else {
                    offsets += candidate.zone.libicalOffsets(at: instants).map { Int32(clamping: $0) }
                }
            }
            let table = YearTable(instants: instants, offsets: offsets)
            // Events of a file span a few years; far more than that only happens with hostile input.
            if tables.count >= 8 { tables.removeAll() }
            tables[year] = table
            return table
        }

        private static let lock = NSLock()
        nonisolated(unsafe) private static var tables: [Int: YearTable] = [:]
    }

    // MARK: - Words

    /// Words that say nothing about where a zone is.
    static let stopWords: Set<String> = [
        "standard", "daylight", "summer", "winter", "time", "zone", "utc", "gmt", "custom", "customized", "and",
        "the", "of", "de", "du", "des", "la", "le", "el", "et", "und",
    ]

    /// The lower-cased runs of letters of `text` (two letters or more), without ``stopWords``.
    static func words(in text: String) -> Set<String> {
        var result = Set<String>()
        var current = ""
        func flush() {
            if current.count >= 2, !stopWords.contains(current) { result.insert(current) }
            current = ""
        }
        for character in text.lowercased() {
            if character.isLetter { current.append(character) } else { flush() }
        }
        flush()
        return result
    }
}

extension ICalZone {
    /// libical's offsets of this zone at `instants` (`icaltimezone_get_utc_offset_of_utc_time`, the answer
    /// ``utcOffset(at:)`` remembers), under one hold of ``lock``. Unlike ``utcOffset(at:)`` it does not load
    /// whole spans of changes, which makes sampling hundreds of zones at a few instants cheap.
    func libicalOffsets(at instants: [Int64]) -> [Int] {
        Self.lock.lock()
        defer { Self.lock.unlock() }
        return instants.map { instant in
            var time = icaltimetype.make(CivilDateTime(secondsSinceEpoch: instant))
            return Int(icaltimezone_get_utc_offset_of_utc_time(pointer, &time, nil))
        }
    }
}

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

    /// Whether libical can read `vtimezone` into the rules it states, within bounded work up to `lastYear`.
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
                let recurrence = icalproperty_get_rrule(property)
                guard let yearly = occurrencesPerYear(recurrence) else { return false }
                let interval = max(1, Int(recurrence.interval))
                var occurrences = yearly * (max(0, endYear - Int(start.year)) / interval + 1)
                if recurrence.count > 0 { occurrences = min(occurrences, Int(recurrence.count)) }
                changes += occurrences
                rrule = icalcomponent_get_next_property(part, ICAL_RRULE_PROPERTY)
            }
            if changes > changeLimit { return false }
        }
        return true
    }

    /// At most how many changes a yearly RRULE makes in a year; nil for any other rule, and for yearly
    /// rules with parts that can make hundreds of thousands (BYSECOND, BYMINUTE, BYHOUR, BYWEEKNO,
    /// BYYEARDAY), which no real VTIMEZONE uses.
    static func occurrencesPerYear(_ rule: icalrecurrencetype) -> Int? {
        guard rule.freq == ICAL_YEARLY_RECURRENCE, rule.interval >= 0,
            RecurrenceMapping.values(of: rule.by_second).isEmpty, RecurrenceMapping.values(of: rule.by_minute).isEmpty,
            RecurrenceMapping.values(of: rule.by_hour).isEmpty,
            RecurrenceMapping.values(of: rule.by_week_no).isEmpty,
            RecurrenceMapping.values(of: rule.by_year_day).isEmpty
        else { return nil }
        let byMonth = RecurrenceMapping.values(of: rule.by_month)
        let byMonthDay = RecurrenceMapping.values(of: rule.by_month_day)
        let byDay = RecurrenceMapping.values(of: rule.by_day)
        var perYear: Int
        if !byMonthDay.isEmpty {
            perYear = (byMonth.isEmpty ? 12 : byMonth.count) * byMonthDay.count
        } else if !byDay.isEmpty {
            // `-1SU` is one day a month (a year without BYMONTH), plain `SU` up to five a month (53 a year).
            let plain = byDay.filter { icalrecurrencetype_day_position(Int16(truncatingIfNeeded: $0)) == 0 }.count
            let numbered = byDay.count - plain
            perYear = byMonth.isEmpty ? plain * 53 + numbered : byMonth.count * (plain * 5 + numbered)
        } else {
            perYear = max(1, byMonth.count)
        }
        let bySetPos = RecurrenceMapping.values(of: rule.by_set_pos)
        if !bySetPos.isEmpty { perYear = min(perYear, bySetPos.count) }
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

/// The UTC offsets of one zone read from its TZif file (RFC 8536) in the system's tzdata, the data libical
/// reads too: the transitions of the 64-bit block, then the POSIX TZ rule of the footer.
///
/// Only a filter for ``VTimezoneMatcher``; libical's answer is the one graph-ics converts times with.
struct TZifZone: Sendable {
    /// Transition instants, ascending.
    var transitions: [Int64]
    /// The offset in force from each transition on, and its abbreviation.
    var offsets: [Int32]
    var abbreviations: [String]
    /// The offset before the first transition (time type 0), and its abbreviation.
    var initial: Int32
    var initialAbbreviation: String
    /// The rule after the last transition, when the file has one.
    var footer: PosixTZRule?

    /// Reads the file at `path`; nil when it is missing or not a well-formed TZif file.
    init?(path: String) {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        self.init(bytes: [UInt8](data))
    }

    init?(bytes: [UInt8]) {
        func integer(_ at: Int, _ size: Int) -> Int64? {
            guard at >= 0, at + size <= bytes.count else { return nil }
            var value: Int64 = 0
            for index in at..<(at + size) { value = value << 8 | Int64(bytes[index]) }
            // Sign-extend 32-bit values.
            return size == 4 ? Int64(Int32(truncatingIfNeeded: value)) : value
        }
        /// isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt of the header at `at`.
        func counts(_ at: Int) -> [Int]? {
            guard bytes.count >= at + 44, bytes[at..<(at + 4)].elementsEqual("TZif".utf8) else { return nil }
            let values = (0..<6).compactMap { integer(at + 20 + 4 * $0, 4) }.map { Int($0) }
            guard values.count == 6, values.allSatisfy({ $0 >= 0 && $0 < 1 << 20 }) else { return nil }
            return values
        }
        func blockSize(_ c: [Int], timeSize: Int) -> Int {
            c[3] * timeSize + c[3] + c[4] * 6 + c[5] + c[2] * (timeSize + 4) + c[1] + c[0]
        }
        guard var header = counts(0), bytes.count > 4 else { return nil }
        var base = 0
        var timeSize = 4
        if bytes[4] >= UInt8(ascii: "2") {
            base = 44 + blockSize(header, timeSize: 4)
            guard let second = counts(base) else { return nil }
            header = second
            timeSize = 8
        }
        let timeCount = header[3]
        let typeCount = header[4]
        let data = base + 44
        let end = data + blockSize(header, timeSize: timeSize)
        guard typeCount > 0, end <= bytes.count else { return nil }
        let typesAt = data + timeCount * (timeSize + 1)
        let charactersAt = typesAt + typeCount * 6
        var typeOffsets: [Int32] = []
        var typeNames: [String] = []
        for type in 0..<typeCount {
            guard let offset = integer(typesAt + 6 * type, 4) else { return nil }
            typeOffsets.append(Int32(truncatingIfNeeded: offset))
            // An index past the designations gives an empty name, not a trap.
            let charactersEnd = charactersAt + header[5]
            let from = min(charactersAt + Int(bytes[typesAt + 6 * type + 5]), charactersEnd)
            let characters = bytes[from..<charactersEnd]
            typeNames.append(String(decoding: characters.prefix { $0 != 0 }, as: UTF8.self))
        }
        var transitions: [Int64] = []
        var offsets: [Int32] = []
        var abbreviations: [String] = []
        for index in 0..<timeCount {
            let type = Int(bytes[data + timeCount * timeSize + index])
            guard let instant = integer(data + index * timeSize, timeSize), type < typeCount else { return nil }
            transitions.append(instant)
            offsets.append(typeOffsets[type])
            abbreviations.append(typeNames[type])
        }
        guard zip(transitions, transitions.dropFirst()).allSatisfy({ $0 < $1 }) else { return nil }
        self.transitions = transitions
        self.offsets = offsets
        self.abbreviations = abbreviations
        initial = typeOffsets[0]
        initialAbbreviation = typeNames[0]
        footer = nil
        if timeSize == 8, end < bytes.count, bytes[end] == 0x0A,
            let close = bytes[(end + 1)...].firstIndex(of: 0x0A), close > end + 1
        {
            guard let rule = PosixTZRule(Array(bytes[(end + 1)..<close])) else { return nil }
            footer = rule
        }
    }

    /// Seconds east of UTC at `instant`.
    func offset(at instant: Int64) -> Int {
        guard let index = transitionIndex(atOrBefore: instant) else { return Int(initial) }
        if let footer, index == transitions.count - 1 { return footer.offset(at: instant) }
        return Int(offsets[index])
    }

    /// The abbreviations in use in `[from, to)` (`CET`, `CEST`; tzdata writes `+0530` where a zone has none).
    func abbreviations(from: Int64, to: Int64) -> [String] {
        let first = transitionIndex(atOrBefore: from)
        var result = [first.map { abbreviations[$0] } ?? initialAbbreviation]
        var index = (first ?? -1) + 1
        while index < transitions.count, transitions[index] < to {
            result.append(abbreviations[index])
            index += 1
        }
        if let footer, transitions.last.map({ $0 < to }) ?? true { result += footer.names }
        return result
    }

    /// The last transition at or before `instant`, by bisection.
    private func transitionIndex(atOrBefore instant: Int64) -> Int? {
        guard let first = transitions.first, instant >= first else { return nil }
        var low = 0
        var high = transitions.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if transitions[middle] <= instant { low = middle } else { high = middle - 1 }
        }
        return low
    }
}

/// A POSIX TZ string as TZif footers hold it (`CET-1CEST,M3.5.0,M10.5.0/3`, `<+0530>-5:30`,
/// `<-02>2<-01>,M3.5.0/-1,M10.5.0/0`), with RFC 8536's extensions (hours up to 167, negative times).
struct PosixTZRule: Sendable {
    /// A day of the year in one of POSIX's three forms.
    enum Day: Sendable {
        /// `Mm.w.d`: weekday `d` (0 = Sunday) of week `w` (5 = last) of month `m`.
        case monthWeekDay(month: Int, week: Int, weekday: Int)
        /// `Jn`: day 1…365, 29 February never counted.
        case julian(Int)
        /// `n`: day 0…365, 29 February counted.
        case zeroBased(Int)
    }

    /// The abbreviations of standard time and, when there is one, of daylight time.
    var names: [String] = []
    /// Seconds east of UTC in standard time and in daylight time (nil without daylight time).
    var standard: Int
    var daylight: Int?
    /// When daylight time starts (in local standard time) and ends (in local daylight time): the day and
    /// the seconds after its midnight.
    var start: (day: Day, time: Int) = (.julian(1), 0)
    var end: (day: Day, time: Int) = (.julian(1), 0)

    init?(_ text: [UInt8]) {
        var position = 0
        func peek() -> UInt8? { position < text.count ? text[position] : nil }
        func eat(_ character: Character) -> Bool {
            guard let ascii = character.asciiValue, peek() == ascii else { return false }
            position += 1
            return true
        }
        func isDigit(_ byte: UInt8?) -> Bool { byte.map { $0 >= 0x30 && $0 <= 0x39 } ?? false }
        func number() -> Int? {
            var value = 0
            var digits = 0
            while isDigit(peek()), digits < 6, let byte = peek() {
                value = value * 10 + Int(byte - 0x30)
                position += 1
                digits += 1
            }
            return digits > 0 ? value : nil
        }
        func name() -> String? {
            if eat("<") {
                let from = position
                while let byte = peek(), byte != UInt8(ascii: ">") { position += 1 }
                let name = String(decoding: text[from..<position], as: UTF8.self)
                return position > from && eat(">") ? name : nil
            }
            let from = position
            while let byte = peek(), (byte | 0x20) >= 0x61, (byte | 0x20) <= 0x7A { position += 1 }
            return position - from >= 3 ? String(decoding: text[from..<position], as: UTF8.self) : nil
        }
        /// `[+-]hh[:mm[:ss]]` in seconds.
        func duration() -> Int? {
            let negative = eat("-")
            if !negative { _ = eat("+") }
            guard let hours = number(), hours <= 167 else { return nil }
            var seconds = hours * 3600
            if eat(":") {
                guard let minutes = number(), minutes < 60 else { return nil }
                seconds += minutes * 60
                if eat(":") {
                    guard let rest = number(), rest < 60 else { return nil }
                    seconds += rest
                }
            }
            return negative ? -seconds : seconds
        }
        func day() -> Day? {
            if eat("M") {
                guard let month = number(), (1...12).contains(month), eat("."), let week = number(),
                    (1...5).contains(week), eat("."), let weekday = number(), weekday <= 6
                else { return nil }
                return .monthWeekDay(month: month, week: week, weekday: weekday)
            }
            if eat("J") {
                guard let day = number(), (1...365).contains(day) else { return nil }
                return .julian(day)
            }
            guard let day = number(), day <= 365 else { return nil }
            return .zeroBased(day)
        }
        func transition() -> (Day, Int)? {
            guard let day = day() else { return nil }
            guard eat("/") else { return (day, 7200) }
            guard let time = duration() else { return nil }
            return (day, time)
        }
        // POSIX offsets count west of UTC.
        guard let standardName = name(), let west = duration() else { return nil }
        standard = -west
        names = [standardName]
        guard peek() != nil else { return }
        guard let daylightName = name() else { return nil }
        names.append(daylightName)
        var daylightWest = west - 3600
        if let byte = peek(), byte != UInt8(ascii: ",") {
            guard let value = duration() else { return nil }
            daylightWest = value
        }
        daylight = -daylightWest
        guard eat(","), let start = transition(), eat(","), let end = transition(), peek() == nil else {
            return nil
        }
        self.start = start
        self.end = end
    }

    /// Seconds east of UTC at `instant`: the state set by the latest start or end at or before it, looked
    /// for in the year before, the year and the year after (a rule's times may cross a new year).
    func offset(at instant: Int64) -> Int {
        guard let daylight else { return standard }
        let year = CivilDateTime(secondsSinceEpoch: instant).year
        var latest: (instant: Int64, isDaylight: Bool)?
        for candidateYear in (year - 1)...(year + 1) {
            let starts = Self.midnight(of: start.day, in: candidateYear) + Int64(start.time - standard)
            let ends = Self.midnight(of: end.day, in: candidateYear) + Int64(end.time - daylight)
            for (change, isDaylight) in [(starts, true), (ends, false)] where change <= instant {
                if latest.map({ change > $0.instant }) ?? true { latest = (change, isDaylight) }
            }
        }
        return latest?.isDaylight == true ? daylight : standard
    }

    /// Midnight (as if UTC) of `day` in `year`.
    static func midnight(of day: Day, in year: Int) -> Int64 {
        let january1 = CivilDateTime.days(fromYear: year, month: 1, day: 1)
        switch day {
        case .monthWeekDay(let month, let week, let weekday):
            let first = CivilDateTime(year: year, month: month, day: 1)
            var dayOfMonth = 1 + (weekday - first.isoWeekday % 7 + 7) % 7 + (week - 1) * 7
            while dayOfMonth > CivilDateTime.daysInMonth(year: year, month: month) { dayOfMonth -= 7 }
            return CivilDateTime.days(fromYear: year, month: month, day: dayOfMonth) * 86_400
        case .julian(let number):
            let index = CivilDateTime.isLeap(year) && number >= 60 ? number : number - 1
            return (january1 + Int64(index)) * 86_400
        case .zeroBased(let number):
            return (january1 + Int64(number)) * 86_400
        }
    }
}
