/// A zone seen only through its UTC offsets: what an instant's offset is, and when it changes. tzdata's
/// zones (``ResolvedZone``) and a file's own VTIMEZONE (``FileTimeZone``) both are, so that they can be
/// compared exactly over a span of time.
protocol ZoneOffsets {
    /// Seconds to add to UTC to get local time at `instant`.
    func utcOffset(at instant: Int64) -> Int
    /// The instants in `(from, to]` at which the offset changes, ascending.
    func offsetChanges(from: Int64, to: Int64) -> [Int64]
}

extension ZoneOffsets {
    /// Whether `other` gives the same offset as this zone at every instant of `[from, to]`: both are
    /// constant between their changes, so checking at `from` and at each change of either is exact.
    func agrees(with other: some ZoneOffsets, from: Int64, to: Int64) -> Bool {
        let probes = [from] + offsetChanges(from: from, to: to) + other.offsetChanges(from: from, to: to)
        return probes.allSatisfy { utcOffset(at: $0) == other.utcOffset(at: $0) }
    }

    /// For how many seconds of `[from, to)` `other` gives another offset than this zone.
    func disagreement(with other: some ZoneOffsets, from: Int64, to: Int64) -> Int64 {
        let changes = offsetChanges(from: from, to: to) + other.offsetChanges(from: from, to: to)
        let bounds = Array(Set([from, to] + changes.filter { $0 < to })).sorted()
        var total: Int64 = 0
        for (start, end) in zip(bounds, bounds.dropFirst()) where utcOffset(at: start) != other.utcOffset(at: start) {
            total += end - start
        }
        return total
    }

    /// The wall-clock time at `instant`.
    func localTime(at instant: Int64) -> CivilDateTime {
        CivilDateTime(secondsSinceEpoch: instant + Int64(utcOffset(at: instant)))
    }
}

extension ResolvedZone: ZoneOffsets {
    func offsetChanges(from: Int64, to: Int64) -> [Int64] {
        switch self {
        case .utc: return []
        case .zone(let zone): return zone.transitions(from: from, to: to).map(\.instant)
        }
    }
}

extension FileTimeZone: ZoneOffsets {}
