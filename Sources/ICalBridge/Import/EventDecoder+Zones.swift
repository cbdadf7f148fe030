internal import CLibical

/// The time zones of a file: each TZID resolved once, by the zone ladder (docs/ARCHITECTURE.md).
extension EventDecoder {
    /// How a TZID of the file is understood.
    enum SourceZone {
        /// A zone whose offsets graph-ics knows (IANA or UTC).
        case known(ResolvedZone)
        /// Only the file's own VTIMEZONE describes it: instants come from its STANDARD and DAYLIGHT parts;
        /// Graph gets UTC, and a series the Windows zone with the same clocks (``placeSeries``) or single events.
        case embedded(FileTimeZone)
        /// Nothing knows it.
        case unknown
    }

    /// The zone ladder (docs/ARCHITECTURE.md) for one TZID, remembered per file.
    mutating func sourceZone(_ tzid: String, context: inout Context) -> SourceZone {
        if let known = zones[tzid] { return known }
        let resolved: SourceZone
        let reading: String
        let year = time(ICAL_DTSTART_PROPERTY, in: context.event.pointer)?.civil.year ?? 2026
        switch ZoneResolver.resolve(tzid) {
        case .resolved(let zone, let how):
            if ZoneResolver.rulesMayBeRedefined(how), let embedded = embeddedZone(tzid, context: context, year: year),
                let window = Self.comparisonWindow(year, described: embedded.described),
                zone.disagreement(with: embedded, from: window.from, to: window.to) > Self.tolerance
            {
                // RFC 5545: a VTIMEZONE defines its TZID; vobject writes TZID=EST with New York's rules.
                (resolved, reading) = Self.reading(
                    embedded, year: year,
                    because: "the file's VTIMEZONE, whose offsets in \(year)–\(year + 1) are not those of the IANA zone"
                        + " \(zone.name == tzid ? tzid : "\(tzid) (\(zone.name))")")
            } else {
                resolved = .known(zone)
                reading = how
            }
        case .sentinel where tzid.lowercased() == "tzone://microsoft/utc":
            resolved = .known(.utc)
            reading = "tzone://Microsoft/Utc"
        case .sentinel, .unknown:
            if let embedded = embeddedZone(tzid, context: context, year: year) {
                (resolved, reading) = Self.reading(embedded, year: year, because: "the file's VTIMEZONE")
            } else {
                resolved = .unknown
                reading = "unknown"
            }
        }
        zones[tzid] = resolved
        if case .known(let zone) = resolved {
            zoneResolutions[tzid] = "\(zone.name) (\(reading))"
        } else {
            zoneResolutions[tzid] = reading
        }
        return resolved
    }

    /// How long a file's VTIMEZONE may disagree with the zone its TZID names before it redefines the name:
    /// a change an hour early or late (a common slip: `DTSTART:…T030000` for a change at 02:00) is read as
    /// a slip, weeks or months of other clocks (another rule, no summer time at all) as another zone.
    static let tolerance: Int64 = 86_400

    /// The file's own VTIMEZONE for `tzid`, when it has a usable one.
    func embeddedZone(_ tzid: String, context: Context, year: Int) -> FileTimeZone? {
        guard let text = context.event.timezones[tzid] else { return nil }
        return FileTimeZone(vtimezone: text, throughYear: year + 10)
    }

    /// A file's VTIMEZONE: the IANA zone with the same rules when there is one, else its own rules (Graph
    /// then gets UTC); and how -v words it.
    static func reading(_ embedded: FileTimeZone, year: Int, because source: String) -> (SourceZone, String) {
        if let iana = embedded.matchingIANAZone(year: year), let zone = ResolvedZone.iana(iana) {
            return (.known(zone), "\(source); its rules match \(iana)")
        }
        return (.embedded(embedded), "\(source), whose rules no IANA zone matches: times are read by its own rules")
    }

    /// The two years from 1 January of `year` (UTC) over which a named zone and the file's VTIMEZONE for
    /// that name are compared, as ``VTimezoneMatcher`` compares them, within the span the VTIMEZONE describes
    /// (``FileTimeZone/describedSpan(of:)``); nil outside the years libical covers, or when the two do not
    /// overlap.
    static func comparisonWindow(_ year: Int, described: (from: Int64?, to: Int64?)) -> (from: Int64, to: Int64)? {
        guard VTimezoneMatcher.supportedYears.contains(year) else { return nil }
        let window = VTimezoneMatcher.window(of: year)
        let start = max(window.start, described.from ?? .min)
        let end = min(window.end, described.to ?? .max)
        return end > start ? (start, end) : nil
    }
}
