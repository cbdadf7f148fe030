extension ResolvedZone {
    /// The Windows name of the zone, the name Graph is sent (`W. Europe Standard Time`; `UTC` for UTC), or nil
    /// when CLDR has none.
    public var windowsName: String? {
        switch self {
        case .utc: return "UTC"
        case .zone(let ical): return WindowsZones.windows(forIANA: ical.name)
        }
    }

    /// The zone Graph reads local times named by ``windowsName`` in: CLDR's default zone of that Windows name
    /// (territory 001), so `Europe/Amsterdam` becomes `Europe/Berlin`; nil (Graph gets UTC) when the zone is
    /// UTC or has no Windows name.
    var graphZone: ICalZone? {
        guard case .zone(let ical) = self, let windows = WindowsZones.windows(forIANA: ical.name),
            let iana = WindowsZones.iana(forWindows: windows)
        else { return nil }
        return ICalZone.named(iana)
    }
}

extension GraphDateTimeTimeZone {
    /// `instant` as graph-ics tells Graph a time in `zone`: local time in the zone's ``ResolvedZone/graphZone``
    /// with its Windows name (re-derived from the instant, so Graph stores exactly that instant), or UTC when
    /// the zone has no Windows name.
    public init(instant: Int64, in zone: ResolvedZone) {
        self.init(instant: instant, graphZone: zone.graphZone)
    }

    /// `instant` as local time in `graphZone` (a ``ResolvedZone/graphZone``) with its Windows name; UTC for nil.
    ///
    /// An instant whose wall-clock time in `graphZone` occurs twice (the repeated hour when clocks go back) is
    /// sent in UTC: how Graph reads a local time in a fold is on no page (.NET takes the standard-time one,
    /// RFC 5545 the first), and only UTC names the instant.
    init(instant: Int64, graphZone: ICalZone?) {
        guard let graphZone, let windows = WindowsZones.windows(forIANA: graphZone.name),
            graphZone.localTimeIsExact(at: instant)
        else {
            self.init(dateTime: CivilDateTime(secondsSinceEpoch: instant).description, timeZone: "UTC")
            return
        }
        self.init(dateTime: graphZone.localTime(at: instant).description, timeZone: windows)
    }
}
