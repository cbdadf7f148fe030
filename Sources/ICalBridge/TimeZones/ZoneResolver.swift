import Foundation
import Synchronization

/// How a zone name was understood.
public enum ResolvedZone: Equatable, Sendable {
    /// UTC: times are written with `Z` and need no VTIMEZONE.
    case utc
    /// A zone with rules, named by its tzdata-canonical IANA name.
    case zone(ICalZone)

    /// The IANA name, or `UTC`.
    public var name: String {
        switch self {
        case .utc: return "UTC"
        case .zone(let zone): return zone.name
        }
    }

    /// Seconds to add to UTC to get local time at `instant`.
    public func utcOffset(at instant: Int64) -> Int {
        switch self {
        case .utc: return 0
        case .zone(let zone): return zone.utcOffset(at: instant)
        }
    }

    /// The wall-clock time in this zone at `instant`.
    public func localTime(at instant: Int64) -> CivilDateTime {
        CivilDateTime(secondsSinceEpoch: instant + Int64(utcOffset(at: instant)))
    }

    /// The instant of a wall-clock time in this zone (earlier one in a fold).
    public func instant(forLocal local: CivilDateTime) -> Int64 {
        switch self {
        case .utc: return local.secondsSinceEpoch
        case .zone(let zone): return zone.instant(forLocal: local)
        }
    }

    /// The instants whose wall-clock time in this zone is `local`: none in a gap (spring forward), two in a
    /// fold (fall back), one otherwise.
    public func instants(forLocal local: CivilDateTime) -> [Int64] {
        switch self {
        case .utc: return [local.secondsSinceEpoch]
        case .zone(let zone): return zone.instants(forLocal: local)
        }
    }

    /// A zone resolved from an IANA name, UTC for the zero-offset `Etc` zones.
    public static func iana(_ name: String) -> ResolvedZone? {
        guard let known = TZData.system.knownName(name), let zone = ICalZone.named(known) else { return nil }
        return zone.isUTC ? .utc : .zone(zone)
    }
}

/// Turns the zone names found in Graph JSON (and given with `--tz`) into zones with rules.
///
/// Graph names zones in Windows form (`W. Europe Standard Time`), in IANA form when the mailbox was set
/// up that way, or with a sentinel when the original zone is unknown (`tzone://Microsoft/Custom`).
public enum ZoneResolver {
    /// The outcome of resolving one name.
    public enum Resolution: Equatable, Sendable {
        /// A zone, with the rule of the ladder that found it (`IANA name`, `Windows name (CLDR)`, …).
        case resolved(ResolvedZone, rule: String)
        /// One of Graph's "no real zone here" values: the caller falls back.
        case sentinel
        /// A name nothing knows.
        case unknown
    }

    /// Graph's values for "the original zone is not known or not a standard zone".
    public static let sentinels: Set<String> = [
        "tzone://microsoft/custom", "tzone://microsoft/utc", "customized time zone",
    ]

    /// Resolves `name` through: UTC spellings → IANA → a path-style TZID ending in an IANA name → Windows
    /// (CLDR) → Windows with a numeric suffix (`… Time 1`) → Outlook display name. Empty names and Graph's sentinels are ``Resolution/sentinel``.
    public static func resolve(_ name: String?) -> Resolution {
        let key = name ?? ""
        if let cached = cache.withLock({ $0[key] }) { return cached }
        let resolution = resolveUncached(name)
        // Unknown names are not remembered: input could bring a new one per event.
        if resolution != .unknown {
            cache.withLock { $0[key] = resolution }
        }
        return resolution
    }

    /// Exports name few zones many times: resolutions are remembered per spelling for the process.
    private static let cache = Mutex<[String: Resolution]>([:])

    static func resolveUncached(_ name: String?) -> Resolution {
        let trimmed = (name ?? "").trimmingSpaces()
        if trimmed.isEmpty || sentinels.contains(trimmed.lowercased()) { return .sentinel }
        let lowered = trimmed.lowercased()
        if lowered == "utc" || lowered == "z" || lowered == "etc/utc" || lowered == "gmt" {
            return .resolved(.utc, rule: "UTC")
        }
        if !trimmed.contains(" "), let zone = ResolvedZone.iana(trimmed) {
            return .resolved(zone, rule: "IANA name")
        }
        if let (zone, tail) = pathStyle(trimmed) {
            return .resolved(zone, rule: "path-style TZID ending in \(tail)")
        }
        if let iana = WindowsZones.iana(forWindows: trimmed), let zone = ResolvedZone.iana(iana) {
            return .resolved(zone, rule: "Windows name (CLDR)")
        }
        if let base = withoutNumericSuffix(trimmed), let iana = WindowsZones.iana(forWindows: base),
            let zone = ResolvedZone.iana(iana)
        {
            return .resolved(zone, rule: "Windows name with numeric suffix")
        }
        if let windows = WindowsZones.windows(forDisplayName: trimmed),
            let iana = WindowsZones.iana(forWindows: windows),
            let zone = ResolvedZone.iana(iana)
        {
            return .resolved(zone, rule: "Outlook display name")
        }
        return .unknown
    }

    /// Whether a zone found by `rule` is one a file's VTIMEZONE of the same TZID may redefine: UTC spellings,
    /// IANA names and path-style TZIDs (vobject writes `TZID=EST` and `TZID=GMT` with New York's and
    /// London's rules). Windows and Outlook names keep their zone: Outlook's VTIMEZONEs hold only the
    /// current rules of the zone the name stands for.
    static func rulesMayBeRedefined(_ rule: String) -> Bool {
        rule == "UTC" || rule == "IANA name" || rule.hasPrefix("path-style TZID")
    }

    /// The zone of a path-style TZID, as Evolution, Thunderbird, Citadel and libical write them
    /// (`/softwarestudio.org/Olson_20011030_5/America/Chicago`, `/mozilla.org/20070129_1/Europe/Berlin`,
    /// `/citadel.org/20190914_1/Asia/Tokyo`): the longest tail of the path after its first part that is an
    /// IANA name (or a UTC spelling), and that tail. Nil for a name without a leading `/`.
    static func pathStyle(_ name: String) -> (ResolvedZone, String)? {
        guard name.hasPrefix("/") else { return nil }
        let parts = name.split(separator: "/")
        guard parts.count >= 2 else { return nil }
        for first in 1..<parts.count {
            let tail = parts[first...].joined(separator: "/")
            if ["utc", "etc/utc", "gmt", "z"].contains(tail.lowercased()) { return (.utc, tail) }
            if !tail.contains(" "), let zone = ResolvedZone.iana(tail) { return (zone, tail) }
        }
        return nil
    }

    /// `Pacific Standard Time 1` → `Pacific Standard Time`.
    static func withoutNumericSuffix(_ name: String) -> String? {
        guard let space = name.lastIndex(of: " ") else { return nil }
        let suffix = name[name.index(after: space)...]
        guard !suffix.isEmpty, suffix.allSatisfy(\.isNumber) else { return nil }
        return String(name[..<space])
    }
}
