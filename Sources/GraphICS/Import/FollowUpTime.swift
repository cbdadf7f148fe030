import ICalBridge

/// The `originalStart` of a follow-up: a UTC instant (`2027-01-19T18:00:00Z`) or an all-day date (`2027-01-19`).
enum FollowUpTime {
    /// Seconds since the epoch of a Graph or plan timestamp; a time without offset is taken as UTC.
    static func instant(_ text: String) -> Int64? {
        guard let parsed = GraphTimestamp.parse(text) else { return nil }
        return parsed.instant ?? parsed.civil.secondsSinceEpoch
    }

    /// Whether `text` names a day (all-day series), not an instant.
    static func isDate(_ text: String) -> Bool {
        text.count == 10 && !text.contains("T")
    }

    /// The occurrence of `occurrences` that `originalStart` names.
    static func match(_ originalStart: String, in occurrences: [Occurrence]) -> Occurrence? {
        if isDate(originalStart) {
            return occurrences.first { $0.startDate == originalStart }
                ?? occurrences.first { occurrence in
                    occurrence.originalStart.map { CivilDateTime(secondsSinceEpoch: $0).dateString } == originalStart
                }
        }
        guard let instant = instant(originalStart) else { return nil }
        if let exact = occurrences.first(where: { $0.originalStart == instant }) { return exact }
        // An occurrence whose local start is in a gap or a fold: graph-ics names it by the instant RFC 5545
        // gives it, Graph by the one it chose, which is on no page; the two are at most the change of offset
        // apart (two hours at most), and Graph's patterns repeat at most daily.
        let near = occurrences.compactMap { occurrence in
            occurrence.originalStart.map { (occurrence, abs($0 - instant)) }
        }.filter { $0.1 <= 7_200 }
        return near.min { $0.1 < $1.1 }?.0
    }

    /// The originalStart of the occurrence a RECURRENCE-ID names (`20270119T180000Z`, `20270119`, or a local
    /// `20270119T190000` read in `zoneName`, the zone of the event's start).
    static func originalStart(recurrenceID: String, zoneName: String?) -> String? {
        let digits = recurrenceID.filter { $0.isNumber }
        guard digits.count == 8 || digits.count == 14 else { return nil }
        func number(_ from: Int, _ length: Int) -> Int {
            let start = digits.index(digits.startIndex, offsetBy: from)
            return Int(digits[start..<digits.index(start, offsetBy: length)]) ?? 0
        }
        var civil = CivilDateTime(year: number(0, 4), month: number(4, 2), day: number(6, 2))
        if digits.count == 8 { return civil.dateString }
        civil.hour = number(8, 2)
        civil.minute = number(10, 2)
        civil.second = number(12, 2)
        var instant = civil.secondsSinceEpoch
        if !recurrenceID.uppercased().hasSuffix("Z") {
            guard case .resolved(let zone, _) = ZoneResolver.resolve(zoneName) else { return nil }
            instant = zone.instant(forLocal: civil)
        }
        return CivilDateTime(secondsSinceEpoch: instant).description + "Z"
    }
}
