internal import CLibical

/// The time zones of a file: each TZID resolved once, by the ladder of DESIGN.md.
extension EventDecoder {
    /// How a TZID of the file is understood.
    enum SourceZone {
        /// A zone graph-ics has rules for.
        case known(ResolvedZone)
        /// Only the file's own VTIMEZONE describes it: instants come from its rules, Graph gets UTC.
        case embedded(FileTimeZone)
        /// Nothing knows it.
        case unknown
    }

    /// The time-zone ladder of DESIGN.md for one TZID, remembered per file.
    mutating func sourceZone(_ tzid: String, context: inout Context) -> SourceZone {
        if let known = zones[tzid] { return known }
        let resolved: SourceZone
        let rule: String
        switch ZoneResolver.resolve(tzid) {
        case .resolved(let zone, let how):
            resolved = .known(zone)
            rule = how
        case .sentinel where tzid.lowercased() == "tzone://microsoft/utc":
            resolved = .known(.utc)
            rule = "tzone://Microsoft/Utc"
        case .sentinel, .unknown:
            let year = time(ICAL_DTSTART_PROPERTY, in: context.event.pointer)?.civil.year ?? 2026
            if let text = context.event.timezones[tzid],
                let embedded = FileTimeZone(vtimezone: text, throughYear: year + 10)
            {
                if let iana = embedded.matchingIANAZone(year: year), let zone = ResolvedZone.iana(iana) {
                    resolved = .known(zone)
                    rule = "VTIMEZONE rules match \(iana)"
                } else {
                    resolved = .embedded(embedded)
                    rule = "the file's VTIMEZONE (no IANA zone matches; sent to Graph in UTC)"
                }
            } else {
                resolved = .unknown
                rule = "unknown"
            }
        }
        zones[tzid] = resolved
        if case .known(let zone) = resolved {
            zoneRules[tzid] = "\(zone.name) (\(rule))"
        } else {
            zoneRules[tzid] = rule
        }
        return resolved
    }
}
