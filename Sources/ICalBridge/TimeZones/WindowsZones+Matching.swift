extension WindowsZones {
    /// The zone Graph reads a Windows name in (its CLDR territory-001 zone) for the first Windows zone whose
    /// offsets equal `source`'s at every instant of `[from, to]`, the one covering the most places first
    /// (`Pacific Standard Time` before `Pacific Standard Time (Mexico)`), then in CLDR order; nil when none
    /// does.
    ///
    /// This is how a series whose own zone has no Windows name (`CET`, `EST`, a file's VTIMEZONE that no
    /// IANA zone matches) is still sent to Graph with a local-time pattern: in a Windows zone that keeps the
    /// same clocks for as long as the series runs. The candidates are narrowed with their tzdata offsets
    /// (``TZifZone``) at `from`, around each change of `source` and once a week, then confirmed exactly with
    /// libical (``ZoneOffsets/agrees(with:from:to:)``).
    static func graphZone(matching source: some ZoneOffsets, from: Int64, to: Int64) -> ICalZone? {
        let changes = source.offsetChanges(from: from, to: to)
        var probes = Array(stride(from: from, through: to, by: 7 * 86_400))
        for change in changes { probes += [change - 1, change] }
        let expected = probes.map { source.utcOffset(at: $0) }
        for candidate in defaultZones {
            if let tzif = candidate.tzif, !zip(probes, expected).allSatisfy({ tzif.offset(at: $0) == $1 }) {
                continue
            }
            if ResolvedZone.zone(candidate.zone).agrees(with: source, from: from, to: to) { return candidate.zone }
        }
        return nil
    }

    /// The territory-001 zone of every Windows zone with its TZif file, in the order ``graphZone(matching:from:to:)``
    /// tries them.
    private static let defaultZones: [VTimezoneMatcher.Candidate] = {
        let order = Dictionary(allWindowsNames.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        return VTimezoneMatcher.candidates.filter { $0.isDefault && $0.windows != nil }.sorted { lhs, rhs in
            if lhs.prominence != rhs.prominence { return lhs.prominence > rhs.prominence }
            return order[lhs.windows ?? "", default: .max] < order[rhs.windows ?? "", default: .max]
        }
    }()
}
