/// The VTIMEZONE graph-ics writes, in the form Outlook and Google use: the zone's history cut shortly
/// before the first instant the file needs, the yearly rules in force at its end left open (no UNTIL on
/// them, no TZUNTIL).
///
/// Why not libical's truncated form: it ends the last rule of each kind with `UNTIL` exactly at its last
/// change, in UTC as RFC 5545 says, and vobject and dateutil's `tzical` compare that UTC time with the
/// rule's local onsets and drop the change (an hour off for every event after it); `TZUNTIL` makes
/// `tzical` refuse the whole file.
///
/// How: every change of offset from a lookback (400 days before the first instant, so that each kind of
/// change occurs at least once before it) to a horizon (800 days after the last) comes from libical's
/// tzdata rules. Changes of the same kind (daylight or not, offsets before and after) that recur each year
/// on the same rule (the last Sunday of March at 02:00, the second Sunday, the Friday on or after the
/// 23rd, a fixed date) become one observance with a yearly RRULE; a rule that is still running at the
/// horizon is left open, an earlier one ends with an UNTIL a day after its last change (so that a reader
/// who compares it with local time still keeps that change). Any other change is an observance of its
/// own. The onsets written are exactly the changes from the lookback to the horizon.
///
/// Each observance has its TZNAME (from the TZif file) and nothing else is written into the block: dateutil's `tzical` refuses a VTIMEZONE with any property it
/// does not know (`X-LIC-LOCATION`, `TZUNTIL`), and with it the whole file.
extension ICalZone {
    /// Days of changes read before the first instant and after the last.
    static let openRulesLookback: Int64 = 400 * 86_400
    static let openRulesHorizon: Int64 = 800 * 86_400

    /// The VTIMEZONE text, folded, for instants from `from` on, given the zone's `changes` from
    /// `lookback` to `horizon`.
    func openRulesVTimezone(from: Int64, lookback: Int64, horizon: Int64, changes: [Transition]) -> [UInt8] {
        // The abbreviations (TZNAME) come from the zone's TZif file, which libical reads too.
        let tzif = TZifZone(path: TZData.system.directory + "/" + name)
        let onsets = changes.map { Onset($0, name: tzif?.abbreviation(at: $0.instant)) }
        let runs = OpenRules.runs(onsets, horizon: horizon)
        var lines = ["BEGIN:VTIMEZONE", "TZID:" + name]
        if onsets.first.map({ $0.instant > from }) ?? true {
            // No change before the first instant: one observance gives the offset in force there.
            let initial = offsetAndDaylight(at: lookback)
            lines += OpenRules.observance(
                daylight: initial.isDaylight, before: initial.offset, after: initial.offset,
                name: tzif?.abbreviation(at: lookback),
                start: CivilDateTime(secondsSinceEpoch: lookback + Int64(initial.offset)), rule: nil)
        }
        for run in runs { lines += run.lines }
        lines.append("END:VTIMEZONE")
        return ICalText.refoldedLine(lines.joined(separator: "\r\n"))
    }
}

/// One change of offset as an observance onset: its local time in the offset before it.
struct Onset {
    var instant: Int64
    var before: Int
    var after: Int
    var isDaylight: Bool
    var local: CivilDateTime
    /// The abbreviation from the change on (TZNAME), when known.
    var name: String?

    init(_ change: ICalZone.Transition, name: String?) {
        self.name = name
        instant = change.instant
        before = change.before
        after = change.after
        isDaylight = change.isDaylight
        local = CivilDateTime(secondsSinceEpoch: change.instant + Int64(change.before))
    }

    /// Onsets of one kind may share an observance.
    func isSameKind(as other: Onset) -> Bool {
        isDaylight == other.isDaylight && before == other.before && after == other.after && name == other.name
    }
}

/// The yearly rules of a run of onsets, and the text of observances.
enum OpenRules {
    /// Where in its month a yearly change falls.
    enum Pattern: Equatable {
        /// The `n`th (1–4) or last (-1) weekday (0 Sunday … 6 Saturday) of the month.
        case nthWeekday(n: Int, weekday: Int)
        /// The weekday on or after day `first` (tzdata's `Fri>=23`), when that is not an `nthWeekday`.
        case weekdayOnOrAfter(weekday: Int, first: Int)
        case monthDay(Int)

        static let weekdays = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"]

        /// The patterns `date` fits, simplest first.
        static func candidates(for date: CivilDateTime) -> [Pattern] {
            let weekday = OpenRules.weekday(date)
            let length = CivilDateTime.daysInMonth(year: date.year, month: date.month)
            var result: [Pattern] = []
            if date.day <= 28 { result.append(.nthWeekday(n: (date.day - 1) / 7 + 1, weekday: weekday)) }
            if date.day + 7 > length { result.append(.nthWeekday(n: -1, weekday: weekday)) }
            result.append(.monthDay(date.day))
            for first in max(1, date.day - 6)...date.day where first + 6 <= length && (first - 1) % 7 != 0 {
                result.append(.weekdayOnOrAfter(weekday: weekday, first: first))
            }
            return result
        }

        /// The day of `month` in `year` this pattern names.
        func day(year: Int, month: Int) -> Int {
            let length = CivilDateTime.daysInMonth(year: year, month: month)
            let firstWeekday = OpenRules.weekday(CivilDateTime(year: year, month: month, day: 1))
            switch self {
            case .nthWeekday(let n, let weekday) where n > 0:
                return 1 + (weekday - firstWeekday + 7) % 7 + (n - 1) * 7
            case .nthWeekday(_, let weekday):
                let lastWeekday = (firstWeekday + length - 1) % 7
                return length - (lastWeekday - weekday + 7) % 7
            case .weekdayOnOrAfter(let weekday, let first):
                let weekdayOfFirst = (firstWeekday + first - 1) % 7
                return first + (weekday - weekdayOfFirst + 7) % 7
            case .monthDay(let day):
                return min(day, length)
            }
        }

        /// The RRULE parts after FREQ=YEARLY and BYMONTH.
        var ruleParts: String {
            switch self {
            case .nthWeekday(let n, let weekday): return "BYDAY=\(n)\(Self.weekdays[weekday])"
            case .weekdayOnOrAfter(let weekday, let first):
                let days = (first..<(first + 7)).map(String.init).joined(separator: ",")
                return "BYDAY=\(Self.weekdays[weekday]);BYMONTHDAY=\(days)"
            case .monthDay(let day): return "BYMONTHDAY=\(day)"
            }
        }
    }

    /// 0 Sunday … 6 Saturday.
    static func weekday(_ date: CivilDateTime) -> Int {
        Int(((date.daysSinceEpoch % 7) + 11) % 7)
    }

    /// Onsets of one kind, one a year, on the patterns left that fit them all.
    struct Run {
        var onsets: [Onset]
        var patterns: [Pattern]
        /// Whether the rule goes on past the horizon (its next onset would lie beyond it).
        var isOpen = false

        /// The onset the rule gives in the year after its last one.
        func next(_ pattern: Pattern) -> CivilDateTime? {
            guard let last = onsets.last?.local else { return nil }
            var next = last
            next.year += 1
            next.day = pattern.day(year: next.year, month: next.month)
            return next
        }

        /// The patterns under which `onset` is this run's next onset.
        func patterns(continuingWith onset: Onset) -> [Pattern] {
            guard let last = onsets.last, last.isSameKind(as: onset) else { return [] }
            return patterns.filter { next($0) == onset.local }
        }

        var lines: [String] {
            guard let first = onsets.first, let last = onsets.last else { return [] }
            guard onsets.count > 1, let pattern = patterns.first else {
                return OpenRules.observance(
                    daylight: first.isDaylight, before: first.before, after: first.after, name: first.name,
                    start: first.local, rule: nil)
            }
            var rule = "FREQ=YEARLY;BYMONTH=\(first.local.month);" + pattern.ruleParts
            if !isOpen {
                // A day after the last change, in UTC: a reader comparing it with local time keeps it too.
                rule += ";UNTIL=" + OpenRules.stamp(CivilDateTime(secondsSinceEpoch: last.instant + 86_400)) + "Z"
            }
            return OpenRules.observance(
                daylight: first.isDaylight, before: first.before, after: first.after, name: first.name,
                start: first.local, rule: rule)
        }
    }

    /// The onsets grouped into yearly runs, in order of their first onset.
    static func runs(_ onsets: [Onset], horizon: Int64) -> [Run] {
        var runs: [Run] = []
        for onset in onsets {
            if let index = runs.lastIndex(where: { !$0.patterns(continuingWith: onset).isEmpty }) {
                runs[index].patterns = runs[index].patterns(continuingWith: onset)
                runs[index].onsets.append(onset)
            } else {
                runs.append(Run(onsets: [onset], patterns: Pattern.candidates(for: onset.local)))
            }
        }
        for index in runs.indices {
            let run = runs[index]
            guard run.onsets.count > 1, let pattern = run.patterns.first, let next = run.next(pattern),
                let last = run.onsets.last
            else { continue }
            // The next onset in local time; a day's margin covers any offset.
            runs[index].isOpen = next.secondsSinceEpoch - Int64(last.before) - 86_400 > horizon
        }
        return runs
    }

    /// The lines of one STANDARD or DAYLIGHT observance.
    static func observance(
        daylight: Bool, before: Int, after: Int, name: String?, start: CivilDateTime, rule: String?
    ) -> [String] {
        let kind = daylight ? "DAYLIGHT" : "STANDARD"
        var lines = ["BEGIN:" + kind]
        // tzdata's abbreviations are letters, digits and signs; anything else is left out.
        if let name, !name.isEmpty, name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x2C && $0 != 0x3B }) {
            lines.append("TZNAME:" + name)
        }
        lines += ["TZOFFSETFROM:" + offsetText(before), "TZOFFSETTO:" + offsetText(after), "DTSTART:" + stamp(start)]
        if let rule { lines.append("RRULE:" + rule) }
        lines.append("END:" + kind)
        return lines
    }

    /// `+0100`, `-0330`, or with seconds `+005328`.
    static func offsetText(_ seconds: Int) -> String {
        let sign = seconds < 0 ? "-" : "+"
        let value = abs(seconds)
        let text = sign + CivilDateTime.pad(value / 3600, 2) + CivilDateTime.pad(value / 60 % 60, 2)
        return value % 60 == 0 ? text : text + CivilDateTime.pad(value % 60, 2)
    }

    /// `20261025T030000`.
    static func stamp(_ civil: CivilDateTime) -> String {
        CivilDateTime.pad(civil.year, 4) + CivilDateTime.pad(civil.month, 2) + CivilDateTime.pad(civil.day, 2) + "T"
            + CivilDateTime.pad(civil.hour, 2) + CivilDateTime.pad(civil.minute, 2) + CivilDateTime.pad(civil.second, 2)
    }
}
