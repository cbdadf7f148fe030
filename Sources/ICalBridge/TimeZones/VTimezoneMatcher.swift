internal import CLibical
import Foundation
import Synchronization

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

    private static let answers = Mutex<[AnswerKey: String?]>([:])

    /// ``ianaZone(matching:year:)``, remembered per VTIMEZONE text and year.
    static func answer(_ vtimezone: String, year: Int) -> String? {
        let key = AnswerKey(year: year, text: vtimezone)
        if let cached = answers.withLock({ $0[key] }) { return cached }
        // The best-ranked candidate that libical confirms: usually the first, so only it is loaded.
        let answer = shortlist(vtimezone, year: year).flatMap { list in
            list.ranked.lazy.map { candidates[$0].zone }.first { $0.libicalOffsets(at: list.probes) == list.expected }
        }
        answers.withLock { answers in
            // A file brings a handful of zones; a hostile one cannot make the cache grow without bound.
            if answers.count >= 1024 { answers.removeAll() }
            answers[key] = answer?.name
        }
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
            tables.withLock { tables in
                if let table = tables[year] { return table }
                let table = compute(year)
                // Events of a file span a few years; far more than that only happens with hostile input.
                if tables.count >= 8 { tables.removeAll() }
                tables[year] = table
                return table
            }
        }

        private static func compute(_ year: Int) -> YearTable {
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
            return YearTable(instants: instants, offsets: offsets)
        }

        private static let tables = Mutex<[Int: YearTable]>([:])
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
