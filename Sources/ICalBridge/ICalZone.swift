internal import CLibical
import Foundation

/// One of libical's built-in time zones, generated from the system tzdata (`icaltimezone *`).
///
/// libical owns these zones for the life of the process (`icaltimezone_get_builtin_timezone`); this type
/// borrows one and never frees it. libical expands a zone's changes lazily and shares its cache between
/// threads, so every call into it goes through ``lock``.
public struct ICalZone: @unchecked Sendable, Equatable {
    /// The tzdata-canonical IANA name, which is also the TZID graph-ics writes.
    public let name: String
    let pointer: OpaquePointer

    /// Serialises every use of libical's zone code (its lazily built caches are shared globals).
    static let lock = NSLock()
    nonisolated(unsafe) private static var cache: [String: ICalZone] = [:]

    /// The built-in zone for an IANA name (normalised through tzdata's links), or nil when libical has no
    /// rules for it.
    public static func named(_ ianaName: String) -> ICalZone? {
        let name = TZData.system.canonical(ianaName)
        lock.lock()
        defer { lock.unlock() }
        if let zone = cache[name] { return zone }
        guard TZData.isSafeName(name), let pointer = icaltimezone_get_builtin_timezone(name) else { return nil }
        let zone = ICalZone(name: name, pointer: pointer)
        cache[name] = zone
        return zone
    }

    public static func == (lhs: ICalZone, rhs: ICalZone) -> Bool { lhs.name == rhs.name }

    /// Seconds to add to UTC to get local time at `instant` (`icaltimezone_get_utc_offset_of_utc_time`).
    public func utcOffset(at instant: Int64) -> Int {
        var time = icaltimetype.make(CivilDateTime(secondsSinceEpoch: instant))
        var isDaylight: Int32 = 0
        Self.lock.lock()
        defer { Self.lock.unlock() }
        return Int(icaltimezone_get_utc_offset_of_utc_time(pointer, &time, &isDaylight))
    }

    /// The wall-clock time in this zone at `instant`.
    public func localTime(at instant: Int64) -> CivilDateTime {
        CivilDateTime(secondsSinceEpoch: instant + Int64(utcOffset(at: instant)))
    }

    /// The instants whose wall-clock time in this zone is `local`, earliest first: none in a gap (spring
    /// forward), two in a fold (fall back), one otherwise.
    public func instants(forLocal local: CivilDateTime) -> [Int64] {
        let asUTC = local.secondsSinceEpoch
        // Every offset in force within a day either side covers any real transition.
        var offsets: [Int] = []
        for hours in stride(from: -26, through: 26, by: 2) {
            let offset = utcOffset(at: asUTC + Int64(hours) * 3600)
            if !offsets.contains(offset) { offsets.append(offset) }
        }
        var result: [Int64] = []
        for offset in offsets {
            let candidate = asUTC - Int64(offset)
            if utcOffset(at: candidate) == offset, !result.contains(candidate) { result.append(candidate) }
        }
        return result.sorted()
    }

    /// The instant a reader following RFC 5545 takes for `local` in this zone: the earlier one in a fold,
    /// and in a gap the time shifted forward by the gap's length (RFC 5545 §3.3.5).
    public func instant(forLocal local: CivilDateTime) -> Int64 {
        if let first = instants(forLocal: local).first { return first }
        let asUTC = local.secondsSinceEpoch
        let before = utcOffset(at: asUTC - 86_400)
        return asUTC - Int64(before)
    }

    /// Whether writing `instant` as local time with this zone's TZID gives back the same instant: false
    /// only for the second copy of a repeated hour, which must then be written in UTC.
    public func localTimeIsExact(at instant: Int64) -> Bool {
        let local = localTime(at: instant)
        let offset = utcOffset(at: instant)
        for hours in [-25, -3, -2, -1] {
            let earlierOffset = utcOffset(at: instant + Int64(hours) * 3600)
            guard earlierOffset > offset else { continue }
            let candidate = local.secondsSinceEpoch - Int64(earlierOffset)
            if candidate < instant, utcOffset(at: candidate) == earlierOffset { return false }
        }
        return true
    }

    /// Whether the zone has a fixed offset of zero (`Etc/UTC`, `Etc/GMT`, …) and so needs no VTIMEZONE.
    public var isUTC: Bool {
        ["Etc/UTC", "Etc/GMT", "Etc/UCT", "Etc/Universal", "Etc/Zulu", "Etc/GMT+0", "Etc/GMT-0", "Etc/GMT0",
            "Etc/Greenwich", "UTC", "GMT"].contains(name)
    }

    /// The zone's VTIMEZONE, TZID set to the plain IANA name, truncated to `[from, to]` in libical's
    /// Outlook-compatible form (`icaltimezone_truncate_vtimezone` with `ms_compatible`), serialised and
    /// folded. The built-in component is cloned first: libical keeps the original.
    public func vtimezone(from: Int64, to: Int64) throws(ICalBridgeError) -> [UInt8] {
        Self.lock.lock()
        defer { Self.lock.unlock() }
        guard let builtin = icaltimezone_get_component(pointer) else {
            throw ICalBridgeError(.libical, "libical has no VTIMEZONE for \(name)")
        }
        let component = try ICalComponent(cloning: builtin)
        if let tzid = icalcomponent_get_first_property(component.pointer, ICAL_TZID_PROPERTY) {
            name.withCString { icalproperty_set_tzid(tzid, $0) }
        }
        let start = icaltimetype.make(CivilDateTime(secondsSinceEpoch: from), utc: true)
        let end = icaltimetype.make(CivilDateTime(secondsSinceEpoch: to), utc: true)
        icaltimezone_truncate_vtimezone(component.pointer, start, end, 1)
        return try component.serialized()
    }
}
