internal import CLibical
import Foundation
import Synchronization

/// One of libical's built-in time zones, generated from the system tzdata (`icaltimezone *`).
///
/// libical owns these zones for the life of the process (`icaltimezone_get_builtin_timezone`); this type
/// borrows one and never frees it. libical expands a zone's changes lazily and shares its cache between
/// threads, so every call into it goes through ``lock``.
///
/// Sendable by hand: the pointer is to a zone libical never frees, and every use of it holds ``lock``.
public struct ICalZone: @unchecked Sendable, Equatable {
    /// The tzdata-canonical IANA name, which is also the TZID graph-ics writes.
    public let name: String
    let pointer: OpaquePointer
    /// The zone's offsets, read from libical once per year and then looked up without it.
    let offsets: OffsetTable

    /// Serialises every use of libical's zone code (its lazily built caches are shared globals).
    static let lock = NSLock()
    private static let cache = Mutex<[String: ICalZone]>([:])

    /// The built-in zone for an IANA name (normalised through tzdata's links), or nil when libical has no
    /// rules for it.
    public static func named(_ ianaName: String) -> ICalZone? {
        let name = TZData.system.canonical(ianaName)
        return cache.withLock { cache in
            if let zone = cache[name] { return zone }
            guard TZData.isSafeName(name), let pointer = lock.withLock({ icaltimezone_get_builtin_timezone(name) })
            else { return nil }
            let zone = ICalZone(name: name, pointer: pointer, offsets: OffsetTable())
            cache[name] = zone
            return zone
        }
    }

    public static func == (lhs: ICalZone, rhs: ICalZone) -> Bool { lhs.name == rhs.name }

    /// Seconds to add to UTC to get local time at `instant`: libical's answer
    /// (`icaltimezone_get_utc_offset_of_utc_time`), remembered per year in ``offsets``.
    ///
    /// From 2500 on, libical is asked about the same moment whole 400-year Gregorian cycles earlier: the
    /// calendar repeats exactly after a cycle and so do tzdata's rules after their last change, while
    /// libical computes daylight saving only up to 2582 and past it recomputes the zone's history on every
    /// call (seconds per offset for a year like 4054).
    public func utcOffset(at instant: Int64) -> Int {
        offsets.offset(at: instant) { from, to in
            let shift = Self.cycleShift(from)
            return (
                offsetAndDaylight(at: from - shift).offset,
                transitions(from: from - shift, to: to - shift).map { ($0.instant + shift, $0.after) }
            )
        }
    }

    /// Seconds in 400 Gregorian years (146,097 days).
    static let gregorianCycle: Int64 = 146_097 * 86_400

    /// The whole 400-year cycles, in seconds, that move `instant` into 2100–2499 when it is later than that.
    static func cycleShift(_ instant: Int64) -> Int64 {
        let base: Int64 = 4_102_444_800  // 2100-01-01T00:00:00Z
        guard instant >= base + gregorianCycle else { return 0 }
        return (instant - base) / gregorianCycle * gregorianCycle
    }

    /// The wall-clock time in this zone at `instant`.
    public func localTime(at instant: Int64) -> CivilDateTime {
        CivilDateTime(secondsSinceEpoch: instant + Int64(utcOffset(at: instant)))
    }

    /// The instants whose wall-clock time in this zone is `local`, earliest first: none in a gap (spring
    /// forward), two in a fold (fall back), one otherwise.
    public func instants(forLocal local: CivilDateTime) -> [Int64] {
        if let single = singleInstant(forLocal: local) { return [single] }
        return WallClock.instants(forLocal: local, utcOffset: utcOffset(at:))
    }

    /// The instant of `local` when no change of offset lies within a day either side (nearly always): one
    /// offset then covers it, and the general search is not needed.
    private func singleInstant(forLocal local: CivilDateTime) -> Int64? {
        let asUTC = local.secondsSinceEpoch
        let from = asUTC - 26 * 3600
        let to = asUTC + 26 * 3600
        // Looking up both ends loads the spans hasChange reads.
        let offset = utcOffset(at: from)
        _ = utcOffset(at: to)
        return offsets.hasChange(between: from, and: to) ? nil : asUTC - Int64(offset)
    }

    /// The instant a reader following RFC 5545 takes for `local` in this zone: the earlier one in a fold,
    /// and in a gap the time shifted forward by the gap's length (RFC 5545 §3.3.5).
    public func instant(forLocal local: CivilDateTime) -> Int64 {
        if let single = singleInstant(forLocal: local) { return single }
        return WallClock.instant(forLocal: local, utcOffset: utcOffset(at:))
    }

    /// Whether `instant` can be written as local time with this zone's TZID and be read back as the same
    /// instant by every reader: false when its wall-clock time occurs twice (a fold, when clocks go back).
    ///
    /// RFC 5545 resolves such a time to its first occurrence, but common readers (pytz-based ones such
    /// as khal) take the second, so graph-ics writes both copies of the repeated hour in UTC.
    public func localTimeIsExact(at instant: Int64) -> Bool {
        let offset = utcOffset(at: instant)
        // Nearly always: the same offset a day either side, so no change (and no fold) is near.
        if utcOffset(at: instant - 90_000) == offset, utcOffset(at: instant + 90_000) == offset,
            !offsets.hasChange(between: instant - 90_000, and: instant + 90_000)
        {
            return true
        }
        let local = localTime(at: instant).secondsSinceEpoch
        for hours in [-25, -3, -2, -1, 1, 2, 3, 25] {
            let otherOffset = utcOffset(at: instant + Int64(hours) * 3600)
            guard otherOffset != offset else { continue }
            let candidate = local - Int64(otherOffset)
            if candidate != instant, utcOffset(at: candidate) == otherOffset { return false }
        }
        return true
    }

    /// Whether the zone has a fixed offset of zero (`Etc/UTC`, `Etc/GMT`, …) and so needs no VTIMEZONE.
    public var isUTC: Bool {
        [
            "Etc/UTC", "Etc/GMT", "Etc/UCT", "Etc/Universal", "Etc/Zulu", "Etc/GMT+0", "Etc/GMT-0", "Etc/GMT0",
            "Etc/Greenwich", "UTC", "GMT",
        ].contains(name)
    }

    /// The instants graph-ics places in zones: 1900-01-01 to 2199-12-31 UTC. libical computes daylight
    /// saving only up to 2582, and far-off years (a typo such as 9026) would make it recompute each
    /// zone's history on every call; outside this range graph-ics writes times in UTC.
    public static let supportedInstants: Range<Int64> = -2_208_988_800..<7_258_118_400

    /// The zone's VTIMEZONE for the time windows `windows` (sorted, not overlapping), TZID set to the plain
    /// IANA name, serialised and folded.
    ///
    /// The form is the one Outlook and Google write (see ``openRulesVTimezone(from:to:changes:)``): the
    /// history cut before the first window, the yearly rules in force after the last left open, no TZUNTIL.
    /// It is checked: read back by libical it must give the zone's offset at the start of every window and
    /// around every change in them. When the check fails, graph-ics writes the offset at each window's
    /// start and the changes in it one by one (still from libical's tzdata rules), which every reader
    /// understands.
    ///
    /// With `openEnded` (a series without end uses the zone) the changes of ten more years are written
    /// exactly, and the rules after them go on. Windows are cut to ``supportedInstants``; one that
    /// reaches past them is taken as open-ended.
    public func vtimezone(windows: [(from: Int64, to: Int64)], openEnded: Bool = false) throws(ICalBridgeError)
        -> [UInt8]
    {
        // Windows are cut to the supported instants, and one reaching past them (a series ending in 4054)
        // leaves the rules without end: stepping through centuries of offsets would take seconds per zone.
        let supported = Self.supportedInstants
        let openEnded = openEnded || (windows.last.map { $0.to >= supported.upperBound } ?? false)
        let windows = windows.compactMap { window -> (from: Int64, to: Int64)? in
            let from = max(window.from, supported.lowerBound)
            let to = min(window.to, supported.upperBound - 1)
            return from <= to ? (from, to) : nil
        }
        guard let first = windows.first, let last = windows.last else { return [] }
        let end = openEnded ? min(last.to + 10 * 366 * 86_400, supported.upperBound - 1) : last.to
        let lookback = max(first.from - Self.openRulesLookback, supported.lowerBound)
        let horizon = min(end + Self.openRulesHorizon, supported.upperBound - 1)
        let changes = transitions(from: lookback, to: horizon)
        var spans = windows.map { window in
            (start: window.from, changes: changes.filter { $0.instant > window.from && $0.instant <= window.to })
        }
        if openEnded { spans.append((last.to, changes.filter { $0.instant > last.to && $0.instant <= end })) }
        let text = openRulesVTimezone(from: first.from, lookback: lookback, horizon: horizon, changes: changes)
        return matches(text, spans: spans) ? text : explicitVTimezone(spans: spans)
    }

    /// The VTIMEZONE for one window `[from, to]`.
    public func vtimezone(from: Int64, to: Int64) throws(ICalBridgeError) -> [UInt8] {
        try vtimezone(windows: [(from, to)])
    }

    /// A change of UTC offset: the instant, the offsets before and after, and whether daylight time begins.
    struct Transition {
        var instant: Int64
        var before: Int
        var after: Int
        var isDaylight: Bool
    }

    /// The offset and daylight flag at `instant`.
    func offsetAndDaylight(at instant: Int64) -> (offset: Int, isDaylight: Bool) {
        var time = icaltimetype.make(CivilDateTime(secondsSinceEpoch: instant))
        var isDaylight: Int32 = 0
        Self.lock.lock()
        defer { Self.lock.unlock() }
        let offset = Int(icaltimezone_get_utc_offset_of_utc_time(pointer, &time, &isDaylight))
        return (offset, isDaylight != 0)
    }

    /// Every offset change in `(from, to]`, found by stepping six hours at a time and bisecting to the second.
    func transitions(from: Int64, to: Int64) -> [Transition] {
        var result: [Transition] = []
        var previous = offsetAndDaylight(at: from)
        var time = from
        let step: Int64 = 6 * 3600
        while time < to {
            let next = min(time + step, to)
            let current = offsetAndDaylight(at: next)
            if current != previous {
                var low = time
                var high = next
                while high - low > 1 {
                    let middle = low + (high - low) / 2
                    if offsetAndDaylight(at: middle) == previous { low = middle } else { high = middle }
                }
                let after = offsetAndDaylight(at: high)
                result.append(
                    Transition(
                        instant: high, before: previous.offset, after: after.offset, isDaylight: after.isDaylight))
                previous = after
                if high < next {
                    time = high
                    continue
                }
            }
            previous = current
            time = next
        }
        return result
    }

    /// Whether a VTIMEZONE text, read back by libical, agrees with this zone at each window's start and
    /// around every change.
    func matches(_ text: [UInt8], spans: [(start: Int64, changes: [Transition])]) -> Bool {
        let unfolded = String(decoding: text, as: UTF8.self).replacing("\r\n ", with: "")
        for line in unfolded.split(separator: "\r\n") where line.hasPrefix("RDATE") && line.hasSuffix("Z") {
            return false
        }
        let parsed: OpaquePointer? = unfolded.withCString { icalparser_parse_string($0) }
        guard let parsed else { return false }
        let owner = ICalComponent(owning: parsed)
        Self.lock.lock()
        defer { Self.lock.unlock() }
        guard let zone = icaltimezone_new() else { return false }
        defer { icaltimezone_free(zone, 1) }
        guard let copy = icalcomponent_new_clone(owner.pointer) else { return false }
        guard icaltimezone_set_component(zone, copy) != 0 else {
            icalcomponent_free(copy)
            return false
        }
        var probes: [Int64] = []
        for (start, changes) in spans {
            probes += [start, start + 3600]
            for change in changes { probes += [change.instant - 1, change.instant, change.instant + 3600] }
        }
        for instant in probes {
            var expectedTime = icaltimetype.make(CivilDateTime(secondsSinceEpoch: instant))
            var actualTime = expectedTime
            var flag: Int32 = 0
            let expected = icaltimezone_get_utc_offset_of_utc_time(pointer, &expectedTime, &flag)
            let actual = icaltimezone_get_utc_offset_of_utc_time(zone, &actualTime, &flag)
            if expected != actual { return false }
            // The reverse direction is what readers of local times do: it must find the same instant.
            let local = CivilDateTime(secondsSinceEpoch: instant + Int64(expected))
            var localTime = icaltimetype.make(local)
            let readBack = icaltimezone_get_utc_offset(zone, &localTime, &flag)
            var builtinLocal = icaltimetype.make(local)
            let builtinReadBack = icaltimezone_get_utc_offset(pointer, &builtinLocal, &flag)
            if readBack != builtinReadBack { return false }
        }
        return true
    }

    /// A VTIMEZONE listing, for each window, the offset at its start and each change in it as components
    /// of their own.
    func explicitVTimezone(spans: [(start: Int64, changes: [Transition])]) -> [UInt8] {
        func offsetText(_ seconds: Int) -> String {
            let sign = seconds < 0 ? "-" : "+"
            let value = abs(seconds)
            let text = sign + CivilDateTime.pad(value / 3600, 2) + CivilDateTime.pad(value / 60 % 60, 2)
            return value % 60 == 0 ? text : text + CivilDateTime.pad(value % 60, 2)
        }
        func stamp(_ civil: CivilDateTime) -> String {
            CivilDateTime.pad(civil.year, 4) + CivilDateTime.pad(civil.month, 2) + CivilDateTime.pad(civil.day, 2) + "T"
                + CivilDateTime.pad(civil.hour, 2) + CivilDateTime.pad(civil.minute, 2)
                + CivilDateTime.pad(civil.second, 2)
        }
        var lines = ["BEGIN:VTIMEZONE", "TZID:" + name]
        func component(daylight: Bool, before: Int, after: Int, onset: CivilDateTime) {
            let kind = daylight ? "DAYLIGHT" : "STANDARD"
            lines += [
                "BEGIN:" + kind, "TZOFFSETFROM:" + offsetText(before), "TZOFFSETTO:" + offsetText(after),
                "DTSTART:" + stamp(onset), "END:" + kind,
            ]
        }
        for (start, changes) in spans {
            let initial = offsetAndDaylight(at: start)
            component(
                daylight: initial.isDaylight,
                before: initial.offset,
                after: initial.offset,
                onset: CivilDateTime(secondsSinceEpoch: start + Int64(initial.offset))
            )
            for change in changes {
                component(
                    daylight: change.isDaylight,
                    before: change.before,
                    after: change.after,
                    onset: CivilDateTime(secondsSinceEpoch: change.instant + Int64(change.before))
                )
            }
        }
        lines.append("END:VTIMEZONE")
        return ICalText.refoldedLine(lines.joined(separator: "\r\n"))
    }
}

/// The UTC offsets of one zone in spans of 61 days (an export is usually a week or a month): the offset at the span's start and each change in
/// it. Filled from libical on first use of a span, then read under a short lock; shared by all copies of
/// an ``ICalZone``.
final class OffsetTable: Sendable {
    private static let span: Int64 = 61 * 86_400
    private let spans = Mutex<[Int64: (initial: Int, changes: [(instant: Int64, offset: Int)])]>([:])

    /// Whether a change falls in `[from, to]`, in the spans already loaded (callers look up the offsets at
    /// both ends first, which loads them).
    func hasChange(between from: Int64, and to: Int64) -> Bool {
        let first = key(from)
        let last = key(to)
        return spans.withLock { spans in
            for span in first...last {
                guard let entry = spans[span] else { return true }
                if entry.changes.contains(where: { $0.instant >= from && $0.instant <= to }) { return true }
            }
            return false
        }
    }

    private func key(_ instant: Int64) -> Int64 {
        instant >= 0 ? instant / Self.span : (instant - Self.span + 1) / Self.span
    }

    /// The offset at `instant`; `load` gives a span's initial offset and changes when it is not known yet.
    func offset(
        at instant: Int64,
        load: (_ from: Int64, _ to: Int64) -> (Int, [(Int64, Int)])
    ) -> Int {
        let key = key(instant)
        var entry = spans.withLock { $0[key] }
        if entry == nil {
            let start = key * Self.span
            let (initial, changes) = load(start, start + Self.span)
            let loaded = (initial: initial, changes: changes.map { (instant: $0.0, offset: $0.1) })
            spans.withLock { $0[key] = loaded }
            entry = loaded
        }
        guard let entry else { return 0 }
        var offset = entry.initial
        for change in entry.changes {
            guard change.instant <= instant else { break }
            offset = change.offset
        }
        return offset
    }
}

/// Wall-clock time to instants, for any zone given by its UTC offset at an instant (tzdata zones and a
/// file's own VTIMEZONE alike).
enum WallClock {
    /// The instants whose wall-clock time is `local`, earliest first: none in a gap (spring forward), two
    /// in a fold (fall back), one otherwise.
    static func instants(forLocal local: CivilDateTime, utcOffset: (Int64) -> Int) -> [Int64] {
        let asUTC = local.secondsSinceEpoch
        // Every offset in force within a day either side covers any real transition.
        var offsets: [Int] = []
        for hours in stride(from: -26, through: 26, by: 2) {
            let offset = utcOffset(asUTC + Int64(hours) * 3600)
            if !offsets.contains(offset) { offsets.append(offset) }
        }
        var result: [Int64] = []
        for offset in offsets {
            let candidate = asUTC - Int64(offset)
            if utcOffset(candidate) == offset, !result.contains(candidate) { result.append(candidate) }
        }
        return result.sorted()
    }

    /// The earlier instant in a fold; in a gap the time shifted forward by the gap's length (RFC 5545
    /// §3.3.5).
    static func instant(forLocal local: CivilDateTime, utcOffset: (Int64) -> Int) -> Int64 {
        if let first = instants(forLocal: local, utcOffset: utcOffset).first { return first }
        let asUTC = local.secondsSinceEpoch
        return asUTC - Int64(utcOffset(asUTC - 86_400))
    }
}
