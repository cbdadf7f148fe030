internal import CLibical

/// The time zones of a file: each TZID resolved once, by the zone ladder (docs/ARCHITECTURE.md).
extension EventDecoder {
    /// How a TZID of the file is understood.
    enum SourceZone {
        /// A zone whose offsets graph-ics knows (IANA or UTC).
        case known(ResolvedZone)
        /// Only the file's own VTIMEZONE describes it: instants come from its STANDARD and DAYLIGHT parts,
        /// Graph gets UTC.
        case embedded(FileTimeZone)
        /// Nothing knows it.
        case unknown
    }

    /// The zone ladder (docs/ARCHITECTURE.md) for one TZID, remembered per file.
    mutating func sourceZone(_ tzid: String, context: inout Context) -> SourceZone {
        if let known = zones[tzid] { return known }
        let resolved: SourceZone
        let reading: String
        switch ZoneResolver.resolve(tzid) {
        case .resolved(let zone, let how):
            resolved = .known(zone)
            reading = how
        case .sentinel where tzid.lowercased() == "tzone://microsoft/utc":
            resolved = .known(.utc)
            reading = "tzone://Microsoft/Utc"
        case .sentinel, .unknown:
            let year = time(ICAL_DTSTART_PROPERTY, in: context.event.pointer)?.civil.year ?? 2026
            if let text = context.event.timezones[tzid],
                let embedded = FileTimeZone(vtimezone: text, throughYear: year + 10)
            {
                if let iana = embedded.matchingIANAZone(year: year), let zone = ResolvedZone.iana(iana) {
                    resolved = .known(zone)
                    reading = "VTIMEZONE rules match \(iana)"
                } else {
                    resolved = .embedded(embedded)
                    reading = "the file's VTIMEZONE (no IANA zone matches; sent to Graph in UTC)"
                }
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
}
